import type { AttentionEvent } from '../../../shared/attention';
import type { NotificationPermissionState } from './show-notification';

/** Settings → Notifications: each event as the operator thinks of it, finishing "Notify me when…". */
export const attentionEventLabels: Record<AttentionEvent, string> = {
  run_succeeded: 'A run succeeds',
  run_failed: 'A run fails',
  run_refused: 'A run is refused before it starts',
  run_stranded: 'A run is stranded (the console stopped while it ran)',
  quota_wait: 'A run waits for a quota reset',
  notice: 'A notice is raised',
};

/** What the browser's permission means for the operator, and what to do about it. */
export function permissionText(state: NotificationPermissionState): { status: string; advice: string | null } {
  switch (state) {
    case 'granted':
      return { status: 'Allowed', advice: null };
    case 'default':
      return { status: 'Not allowed yet', advice: 'This browser shows the console’s notifications once you allow them.' };
    case 'denied':
      return {
        status: 'Blocked',
        advice:
          'This browser blocks notifications from the console. Allow them in the browser’s site settings for this address (the icon at the start of the address bar), then reload the page.',
      };
    case 'unsupported':
      return { status: 'Not available', advice: 'This browser has no desktop notifications: the Notices page and the window title still show what needs you.' };
  }
}
