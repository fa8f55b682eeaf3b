import type { ServiceConnection } from '../service/service-client';
import { goingRunIds } from './quit-runs';

/**
 * What the desktop app shows of runs going on in the console service (issue 27: "something visible
 * says runs are going in the background"). The decision is here, in plain code tested in Node; main.ts
 * only applies it to Electron's windows and Tray.
 * - Each window's title ends with how many runs are going (the taskbar and the window switcher show
 *   it while the window is minimised or behind others): "Runs · Operator Console — 2 runs going".
 * - With runs going and no window open, a tray icon (where the desktop has a tray) says so, and offers
 *   to open the console or to quit it (which asks, as quitting does, whether to keep them running).
 * - Closing the last window while runs go on keeps the app in its tray, rather than quitting, where
 *   there is a tray; without one it quits as before and the service goes on with the runs (the next
 *   start shows them). macOS keeps the app with no window, as its apps do, tray or not.
 */

export interface BackgroundRunsState {
  liveRuns: number;
  openWindows: number;
  /** Whether the desktop shows tray icons (trayAvailable). */
  trayAvailable: boolean;
  platform: NodeJS.Platform;
}

export interface BackgroundRunsView {
  /** Appended to each window's page title ('' with no run going). */
  titleSuffix: string;
  /** The tray icon to show, or null for none. */
  tray: { tooltip: string; menu: Array<{ action: 'open' | 'quit'; label: string }> } | null;
  /** What the app does when its last window closes now. */
  lastWindowClosed: 'quit' | 'stay';
}

function runsGoing(count: number): string {
  return count === 1 ? '1 run going' : `${count} runs going`;
}

export function backgroundRunsView(state: BackgroundRunsState): BackgroundRunsView {
  const going = state.liveRuns > 0;
  const tray =
    going && state.openWindows === 0 && state.trayAvailable
      ? {
          tooltip: `Operator Console: ${runsGoing(state.liveRuns)} in the background`,
          menu: [
            { action: 'open' as const, label: 'Open Operator Console' },
            { action: 'quit' as const, label: 'Quit Operator Console…' },
          ],
        }
      : null;
  return {
    titleSuffix: going ? ` — ${runsGoing(state.liveRuns)}` : '',
    tray,
    lastWindowClosed: state.platform === 'darwin' || (going && state.trayAvailable) ? 'stay' : 'quit',
  };
}

/** The window's title: the page's own, then the runs going. */
export function windowTitle(pageTitle: string, view: BackgroundRunsView): string {
  return `${pageTitle}${view.titleSuffix}`;
}

/**
 * Whether the desktop shows tray icons: Windows and macOS always; Linux only in a desktop session
 * that names itself (a bare X server or a kiosk has no tray to put one in, and the icon would be lost).
 */
export function trayAvailable(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean {
  if (platform === 'win32' || platform === 'darwin') return true;
  return Boolean(env.XDG_CURRENT_DESKTOP?.trim());
}

/**
 * Counts the runs going in the console service now and whenever runs change (runsChanged), and tells
 * `onCount` each time the count changes. Returns the function that stops watching.
 */
export function watchLiveRuns(connection: Pick<ServiceConnection, 'call' | 'onEvent'>, onCount: (count: number) => void, settleMs = 200): () => void {
  let last: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let counting = false;
  let again = false;
  let stopped = false;
  const count = async () => {
    if (counting) {
      again = true;
      return;
    }
    counting = true;
    try {
      do {
        again = false;
        const going = (await goingRunIds(connection)).length;
        if (!stopped && going !== last) {
          last = going;
          onCount(going);
        }
      } while (again && !stopped);
    } catch {
      // The service went away: its loss is told elsewhere (main.ts); the last count stands.
    } finally {
      counting = false;
    }
  };
  const unlisten = connection.onEvent((event) => {
    if (event !== 'runsChanged' || stopped) return;
    // A run's steps come in bursts: count once they settle.
    clearTimeout(timer);
    timer = setTimeout(() => void count(), settleMs);
  });
  void count();
  return () => {
    stopped = true;
    clearTimeout(timer);
    unlisten();
  };
}
