import type { TransportState } from '../../shared/contract';

/** Whether `path` is the page `href` or somewhere inside it (`/runs/run_1` is inside Runs). */
export function isPathWithin(path: string, href: string): boolean {
  return path === href || path.startsWith(`${href}/`);
}

/** The accessible label of the Notices badge. */
export function openNoticesLabel(count: number): string {
  return count === 1 ? '1 open notice' : `${count} open notices`;
}

/** What the status bar says about the connection to the core. */
export function transportStateLabel(state: TransportState): string {
  switch (state) {
    case 'connected':
      return 'Connected';
    case 'connecting':
      return 'Connecting…';
    case 'reconnecting':
      return 'Connection lost — reconnecting…';
    case 'refused':
      return 'The console was restarted — open its new address';
  }
}
