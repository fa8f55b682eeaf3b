import { describe, expect, it } from 'vitest';
import { ariaKeyShortcuts, shortcutById, shortcutLabel, shortcuts } from './shortcuts';

describe('shortcut labels', () => {
  it('say Ctrl+K off a Mac and ⌘K on one', () => {
    expect(shortcutLabel(shortcutById('open-palette'), 'other')).toBe('Ctrl+K');
    expect(shortcutLabel(shortcutById('open-palette'), 'mac')).toBe('⌘K');
  });

  it('spell a sequence out, and keep symbols as typed', () => {
    expect(shortcutLabel(shortcutById('go-runs'), 'other')).toBe('G then R');
    expect(shortcutLabel(shortcutById('show-shortcuts'), 'mac')).toBe('?');
  });

  it('give aria-keyshortcuts for single presses only', () => {
    expect(ariaKeyShortcuts(shortcutById('open-palette'), 'other')).toBe('Control+K');
    expect(ariaKeyShortcuts(shortcutById('open-palette'), 'mac')).toBe('Meta+K');
    expect(ariaKeyShortcuts(shortcutById('new-task'), 'other')).toBe('N');
    expect(ariaKeyShortcuts(shortcutById('show-shortcuts'), 'other')).toBe('Shift+?');
    expect(ariaKeyShortcuts(shortcutById('go-tasks'), 'other')).toBeUndefined();
  });

  it('are unique: no two shortcuts share their keys', () => {
    const keys = shortcuts.map((shortcut) => shortcutLabel(shortcut, 'other'));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
