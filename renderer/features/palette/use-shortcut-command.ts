import { useCallback } from 'react';
import { useLocation, useSearch } from 'wouter';
import { actionPath } from '../../../shared/routes';
import type { ShortcutId } from '../../app/shortcuts';
import { newTaskPath } from '../tasks/new-task-route';
import { usePaletteStore } from './palette-store';

const goTargets = {
  'go-runs': actionPath({ kind: 'runs' }),
  'go-tasks': actionPath({ kind: 'tasks' }),
  'go-agents': actionPath({ kind: 'agents' }),
  'go-notices': actionPath({ kind: 'notices' }),
  'go-settings': actionPath({ kind: 'settings' }),
} as const;

/** What each shortcut does, the same whether it was pressed or chosen in the palette. */
export function useShortcutCommand(): (id: ShortcutId) => void {
  const [path, navigate] = useLocation();
  const search = useSearch();
  return useCallback(
    (id: ShortcutId) => {
      const { view, openPalette, closePalette } = usePaletteStore.getState();
      switch (id) {
        case 'open-palette':
          // The same keys close it again, as in other apps with a palette.
          if (view === null) openPalette('everything');
          else closePalette();
          return;
        case 'show-shortcuts':
          openPalette('shortcuts');
          return;
        case 'new-task':
          closePalette();
          navigate(newTaskPath(path, search));
          return;
        default:
          closePalette();
          navigate(goTargets[id]);
      }
    },
    [navigate, path, search],
  );
}
