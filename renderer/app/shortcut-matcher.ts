import type { KeyStroke, Shortcut, ShortcutId, ShortcutPlatform } from './shortcuts';

/** The parts of a keydown the matcher reads (a KeyboardEvent has them all). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  repeat?: boolean;
  isComposing?: boolean;
}

/** Where the press happened, as far as shortcuts care. */
export interface KeyContext {
  /** Focus is in a field, an editable region or the terminal: the key is text, not a command. */
  editable: boolean;
  /** A dialog other than the command palette is open. */
  dialogOpen: boolean;
  paletteOpen: boolean;
}

export type ShortcutMatch = { kind: 'shortcut'; id: ShortcutId } | { kind: 'pending' } | null;

/** How long the second key of a sequence (G then R) may take, as in other apps with such sequences. */
export const sequenceTimeoutMs = 1500;

const modifierKeys = new Set(['Shift', 'Control', 'Alt', 'AltGraph', 'Meta', 'CapsLock', 'OS']);

function isModPress(press: KeyPress, platform: ShortcutPlatform): boolean {
  return platform === 'mac' ? press.metaKey && !press.ctrlKey : press.ctrlKey && !press.metaKey;
}

function pressMatches(stroke: KeyStroke, press: KeyPress, platform: ShortcutPlatform): boolean {
  const key = press.key.length === 1 ? press.key.toLowerCase() : press.key;
  if (key !== stroke.key || press.altKey) return false;
  if (stroke.mod) return isModPress(press, platform) && !press.shiftKey;
  if (press.ctrlKey || press.metaKey) return false;
  // A letter with Shift is another key; a symbol such as ? needs Shift to be typed at all.
  return /^[a-z0-9]$/.test(stroke.key) ? !press.shiftKey : true;
}

/**
 * Turns key presses into shortcuts. Ctrl/⌘ shortcuts work everywhere, fields and terminal included,
 * except over another dialog (which has the operator's attention and makes the page behind it inert).
 * Single keys are commands only when focus is on no field and no dialog is open; they never fire with
 * Ctrl, ⌘ or Alt held.
 */
export function createShortcutMatcher(options: {
  shortcuts: readonly Shortcut[];
  platform: ShortcutPlatform;
  timeoutMs?: number;
  now?: () => number;
}) {
  const { shortcuts, platform } = options;
  const timeoutMs = options.timeoutMs ?? sequenceTimeoutMs;
  const now = options.now ?? (() => Date.now());
  let pending: { strokes: KeyStroke[]; at: number } | null = null;

  function matchPlainKey(press: KeyPress): ShortcutMatch {
    const started = pending && now() - pending.at <= timeoutMs ? pending.strokes : [];
    pending = null;
    if (started.length > 0) {
      const continued = matchSequence(started, press);
      if (continued) return continued;
    }
    // Not a continuation: the key starts afresh (G then ? still shows the shortcuts).
    return matchSequence([], press);
  }

  function matchSequence(before: KeyStroke[], press: KeyPress): ShortcutMatch {
    const candidates = shortcuts.filter(
      (shortcut) =>
        shortcut.strokes.length > before.length &&
        !shortcut.strokes[0]!.mod &&
        before.every((stroke, index) => shortcut.strokes[index]!.key === stroke.key) &&
        pressMatches(shortcut.strokes[before.length]!, press, platform),
    );
    const complete = candidates.find((shortcut) => shortcut.strokes.length === before.length + 1);
    if (complete) return { kind: 'shortcut', id: complete.id };
    const next = candidates[0];
    if (!next) return null;
    pending = { strokes: next.strokes.slice(0, before.length + 1), at: now() };
    return { kind: 'pending' };
  }

  return {
    match(press: KeyPress, context: KeyContext): ShortcutMatch {
      if (modifierKeys.has(press.key)) return null;
      if (press.isComposing) {
        pending = null;
        return null;
      }
      const modShortcut = shortcuts.find((shortcut) => shortcut.strokes.length === 1 && shortcut.strokes[0]!.mod && pressMatches(shortcut.strokes[0]!, press, platform));
      if (modShortcut) {
        pending = null;
        return context.dialogOpen || press.repeat ? null : { kind: 'shortcut', id: modShortcut.id };
      }
      if (context.editable || context.dialogOpen || context.paletteOpen || press.repeat) {
        pending = null;
        return null;
      }
      return matchPlainKey(press);
    },
    /** Forgets a half-typed sequence (focus left the window, say). */
    reset(): void {
      pending = null;
    },
  };
}

/** The parts of an element the editable check reads (an Element has them all). */
export interface KeyTarget {
  tagName: string;
  isContentEditable?: boolean;
  closest(selector: string): unknown;
}

/**
 * Whether a key pressed here is text rather than a command: fields, editable regions, and the
 * terminal (xterm takes keys through a hidden helper textarea, but anything inside it counts).
 */
export function isEditableTarget(target: KeyTarget | null): boolean {
  if (!target || typeof target.tagName !== 'string') return false;
  const tag = target.tagName.toLowerCase();
  if (tag === 'input' || tag === 'textarea' || tag === 'select') return true;
  if (target.isContentEditable) return true;
  return Boolean(target.closest('.xterm, [contenteditable]:not([contenteditable="false"]), [role="textbox"]'));
}
