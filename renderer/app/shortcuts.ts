/**
 * The console's keyboard shortcuts, defined once: the key handler matches these, the command palette
 * shows them beside its actions, and Settings → About lists them. Add a shortcut here and all three
 * follow.
 */

export type ShortcutId =
  | 'open-palette'
  | 'show-shortcuts'
  | 'new-task'
  | 'go-runs'
  | 'go-tasks'
  | 'go-agents'
  | 'go-notices'
  | 'go-settings';

/** One key press. `mod` is Ctrl, or ⌘ on a Mac: the key each platform's own apps use for commands. */
export interface KeyStroke {
  /** As `KeyboardEvent.key` reports it, letters in lower case: `k`, `g`, `?`. */
  key: string;
  mod?: boolean;
}

export interface Shortcut {
  id: ShortcutId;
  /** What it does, in the words the palette and the About list show. */
  description: string;
  /** Pressed one after another; more than one makes a sequence (G then R). */
  strokes: readonly KeyStroke[];
}

export type ShortcutPlatform = 'mac' | 'other';

export const shortcuts: readonly Shortcut[] = [
  { id: 'open-palette', description: 'Open the command palette', strokes: [{ key: 'k', mod: true }] },
  { id: 'show-shortcuts', description: 'Show keyboard shortcuts', strokes: [{ key: '?' }] },
  { id: 'new-task', description: 'New task', strokes: [{ key: 'n' }] },
  { id: 'go-runs', description: 'Go to Runs', strokes: [{ key: 'g' }, { key: 'r' }] },
  { id: 'go-tasks', description: 'Go to Tasks', strokes: [{ key: 'g' }, { key: 't' }] },
  { id: 'go-agents', description: 'Go to Agents', strokes: [{ key: 'g' }, { key: 'a' }] },
  { id: 'go-notices', description: 'Go to Notices', strokes: [{ key: 'g' }, { key: 'n' }] },
  { id: 'go-settings', description: 'Go to Settings', strokes: [{ key: 'g' }, { key: 's' }] },
];

export function shortcutById(id: ShortcutId): Shortcut {
  const found = shortcuts.find((shortcut) => shortcut.id === id);
  if (!found) throw new Error(`No shortcut ${id}`);
  return found;
}

/** The platform the keys are shown for; Macs say ⌘ where others say Ctrl. */
export function currentShortcutPlatform(): ShortcutPlatform {
  if (typeof navigator === 'undefined') return 'other';
  const platform = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData?.platform ?? navigator.platform;
  return /mac|iphone|ipad/i.test(platform || navigator.userAgent) ? 'mac' : 'other';
}

function keyName(key: string): string {
  return key.length === 1 ? key.toUpperCase() : key;
}

/** One press as people read it: `Ctrl+K`, `⌘K`, `G`, `?`. */
export function keyStrokeLabel(stroke: KeyStroke, platform: ShortcutPlatform): string {
  if (!stroke.mod) return keyName(stroke.key);
  return platform === 'mac' ? `⌘${keyName(stroke.key)}` : `Ctrl+${keyName(stroke.key)}`;
}

/** The whole shortcut as people read it: `Ctrl+K`, `G then R`. */
export function shortcutLabel(shortcut: Shortcut, platform: ShortcutPlatform): string {
  return shortcut.strokes.map((stroke) => keyStrokeLabel(stroke, platform)).join(' then ');
}

/**
 * The `aria-keyshortcuts` value, for shortcuts of one press only: the attribute has no way to say
 * "then", so a sequence is left to the visible label.
 */
export function ariaKeyShortcuts(shortcut: Shortcut, platform: ShortcutPlatform): string | undefined {
  if (shortcut.strokes.length !== 1) return undefined;
  const stroke = shortcut.strokes[0]!;
  if (stroke.mod) return `${platform === 'mac' ? 'Meta' : 'Control'}+${keyName(stroke.key)}`;
  // A symbol is typed with Shift on most layouts; the attribute names the key as typed.
  return /^[a-z0-9]$/i.test(stroke.key) ? keyName(stroke.key) : `Shift+${stroke.key}`;
}
