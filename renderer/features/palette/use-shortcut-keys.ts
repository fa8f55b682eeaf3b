import { useEffect, useRef } from 'react';
import { createShortcutMatcher, isEditableTarget } from '../../app/shortcut-matcher';
import { currentShortcutPlatform, shortcuts } from '../../app/shortcuts';
import { usePaletteStore } from './palette-store';
import { useShortcutCommand } from './use-shortcut-command';

/** The class the palette's dialog carries, so an open palette is not mistaken for another dialog. */
export const paletteDialogClass = 'command-palette';

function otherDialogOpen(): boolean {
  return [...document.querySelectorAll('dialog[open]')].some((dialog) => !dialog.classList.contains(paletteDialogClass));
}

/** Listens for the shortcuts in app/shortcuts.ts, once, for the whole window. */
export function useShortcutKeys(): void {
  const runShortcut = useShortcutCommand();
  const runShortcutRef = useRef(runShortcut);
  useEffect(() => {
    runShortcutRef.current = runShortcut;
  });

  useEffect(() => {
    const matcher = createShortcutMatcher({ shortcuts, platform: currentShortcutPlatform() });
    const onKeyDown = (event: KeyboardEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      const match = matcher.match(event, {
        editable: isEditableTarget(target),
        dialogOpen: otherDialogOpen(),
        paletteOpen: usePaletteStore.getState().view !== null,
      });
      if (!match) return;
      event.preventDefault();
      if (match.kind === 'pending') return;
      // Ctrl+K in the terminal must not also reach the agent as ^K.
      event.stopPropagation();
      runShortcutRef.current(match.id);
    };
    const forgetSequence = () => matcher.reset();
    // Capture phase on the window: the terminal (xterm) handles and cancels the keys it is sent before
    // they bubble, so a listener further out would never hear Ctrl+K while the terminal has focus.
    window.addEventListener('keydown', onKeyDown, { capture: true });
    window.addEventListener('blur', forgetSequence);
    return () => {
      window.removeEventListener('keydown', onKeyDown, { capture: true });
      window.removeEventListener('blur', forgetSequence);
    };
  }, []);
}
