import { describe, expect, it } from 'vitest';
import { createShortcutMatcher, isEditableTarget, type KeyContext, type KeyPress, type KeyTarget } from './shortcut-matcher';
import { shortcuts } from './shortcuts';

const onPage: KeyContext = { editable: false, dialogOpen: false, paletteOpen: false };
const inField: KeyContext = { ...onPage, editable: true };

function press(key: string, modifiers: Partial<KeyPress> = {}): KeyPress {
  return { key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...modifiers };
}

function matcher(platform: 'mac' | 'other' = 'other') {
  let time = 0;
  const instance = createShortcutMatcher({ shortcuts, platform, timeoutMs: 1500, now: () => time });
  return { ...instance, wait: (ms: number) => (time += ms) };
}

describe('the command palette shortcut', () => {
  it('is Ctrl+K off a Mac and ⌘K on one, and not the other way round', () => {
    expect(matcher('other').match(press('k', { ctrlKey: true }), onPage)).toEqual({ kind: 'shortcut', id: 'open-palette' });
    expect(matcher('other').match(press('k', { metaKey: true }), onPage)).toBeNull();
    expect(matcher('mac').match(press('k', { metaKey: true }), onPage)).toEqual({ kind: 'shortcut', id: 'open-palette' });
    expect(matcher('mac').match(press('k', { ctrlKey: true }), onPage)).toBeNull();
  });

  it('works in a field and in the terminal, and with Caps Lock on', () => {
    expect(matcher().match(press('k', { ctrlKey: true }), inField)).toEqual({ kind: 'shortcut', id: 'open-palette' });
    expect(matcher().match(press('K', { ctrlKey: true }), inField)).toEqual({ kind: 'shortcut', id: 'open-palette' });
    expect(matcher().match(press('k', { ctrlKey: true }), { ...onPage, paletteOpen: true })).toEqual({ kind: 'shortcut', id: 'open-palette' });
  });

  it('does nothing over another dialog, with Shift or Alt added, or when the key is held down', () => {
    expect(matcher().match(press('k', { ctrlKey: true }), { ...onPage, dialogOpen: true })).toBeNull();
    expect(matcher().match(press('k', { ctrlKey: true, shiftKey: true }), onPage)).toBeNull();
    expect(matcher().match(press('k', { ctrlKey: true, altKey: true }), onPage)).toBeNull();
    expect(matcher().match(press('k', { ctrlKey: true, repeat: true }), onPage)).toBeNull();
  });
});

describe('single-key shortcuts', () => {
  it('N opens a new task and ? the shortcut list (typed with Shift)', () => {
    expect(matcher().match(press('n'), onPage)).toEqual({ kind: 'shortcut', id: 'new-task' });
    expect(matcher().match(press('?', { shiftKey: true }), onPage)).toEqual({ kind: 'shortcut', id: 'show-shortcuts' });
  });

  it('never fire while typing, in a dialog, in the palette, or with a modifier', () => {
    expect(matcher().match(press('n'), inField)).toBeNull();
    expect(matcher().match(press('n'), { ...onPage, dialogOpen: true })).toBeNull();
    expect(matcher().match(press('n'), { ...onPage, paletteOpen: true })).toBeNull();
    for (const modifier of ['ctrlKey', 'metaKey', 'altKey', 'shiftKey'] as const) {
      expect(matcher().match(press(modifier === 'shiftKey' ? 'N' : 'n', { [modifier]: true }), onPage)).toBeNull();
    }
    expect(matcher().match(press('n', { isComposing: true }), onPage)).toBeNull();
  });
});

describe('the G-then-key sequences', () => {
  it('G then T goes to Tasks; G alone waits for the second key', () => {
    const keys = matcher();
    expect(keys.match(press('g'), onPage)).toEqual({ kind: 'pending' });
    keys.wait(400);
    expect(keys.match(press('t'), onPage)).toEqual({ kind: 'shortcut', id: 'go-tasks' });
    // The sequence is used up: T on its own is nothing.
    expect(keys.match(press('t'), onPage)).toBeNull();
  });

  it('G then N goes to Notices rather than opening a new task', () => {
    const keys = matcher();
    keys.match(press('g'), onPage);
    expect(keys.match(press('n'), onPage)).toEqual({ kind: 'shortcut', id: 'go-notices' });
  });

  it('a second key after the timeout starts afresh', () => {
    const keys = matcher();
    keys.match(press('g'), onPage);
    keys.wait(1600);
    expect(keys.match(press('t'), onPage)).toBeNull();
    keys.match(press('g'), onPage);
    keys.wait(1600);
    expect(keys.match(press('n'), onPage)).toEqual({ kind: 'shortcut', id: 'new-task' });
  });

  it('a key that continues nothing is read on its own; pressing Shift in between breaks nothing', () => {
    const keys = matcher();
    keys.match(press('g'), onPage);
    expect(keys.match(press('Shift', { shiftKey: true }), onPage)).toBeNull();
    expect(keys.match(press('?', { shiftKey: true }), onPage)).toEqual({ kind: 'shortcut', id: 'show-shortcuts' });
    keys.match(press('g'), onPage);
    expect(keys.match(press('x'), onPage)).toBeNull();
    expect(keys.match(press('t'), onPage)).toBeNull();
    keys.match(press('g'), onPage);
    expect(keys.match(press('g'), onPage)).toEqual({ kind: 'pending' });
    expect(keys.match(press('r'), onPage)).toEqual({ kind: 'shortcut', id: 'go-runs' });
  });

  it('is dropped when focus moves into a field or a dialog opens in between', () => {
    const keys = matcher();
    keys.match(press('g'), onPage);
    expect(keys.match(press('t'), inField)).toBeNull();
    expect(keys.match(press('t'), onPage)).toBeNull();
    keys.match(press('g'), onPage);
    keys.reset();
    expect(keys.match(press('t'), onPage)).toBeNull();
  });
});

describe('isEditableTarget', () => {
  function element(tagName: string, options: { isContentEditable?: boolean; inside?: string[] } = {}): KeyTarget {
    return {
      tagName,
      isContentEditable: options.isContentEditable ?? false,
      closest: (selector: string) => {
        const ancestors = options.inside ?? [];
        return selector.split(',').some((part) => ancestors.includes(part.trim())) ? {} : null;
      },
    };
  }

  it('counts fields, editable regions and anything in the terminal as typing', () => {
    expect(isEditableTarget(element('INPUT'))).toBe(true);
    expect(isEditableTarget(element('TEXTAREA'))).toBe(true);
    expect(isEditableTarget(element('SELECT'))).toBe(true);
    expect(isEditableTarget(element('DIV', { isContentEditable: true }))).toBe(true);
    expect(isEditableTarget(element('SPAN', { inside: ['.xterm'] }))).toBe(true);
  });

  it('leaves buttons, links and the page itself to shortcuts', () => {
    expect(isEditableTarget(element('BUTTON'))).toBe(false);
    expect(isEditableTarget(element('A'))).toBe(false);
    expect(isEditableTarget(element('BODY'))).toBe(false);
    expect(isEditableTarget(null)).toBe(false);
  });
});
