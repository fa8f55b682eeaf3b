import type { DesktopNotification } from '../../../shared/attention';
import { safeActionHref } from '../../ui/error-message';

/**
 * The browser host's desktop notifications, with the Web Notifications API. The core decided what is
 * worth telling and told it once; the page shows it if the operator allowed notifications and is not
 * looking at the console already (when they asked for that). In the desktop app the shell shows them
 * with Electron's Notification and this page never gets the event.
 */

/** What the page needs from the browser, as parameters so the decision is tested without one. */
export interface NotificationSurface {
  /** The Notification constructor, where the browser has the API. */
  Notification: typeof Notification | undefined;
  hasFocus(): boolean;
  focusWindow(): void;
  /** Opens an in-app route (`#/runs/run_1`). */
  navigate(route: string): void;
}

export type ShowOutcome =
  | { shown: true; notification: Notification }
  | { shown: false; why: 'unsupported' | 'not-allowed' | 'focused' | 'failed' };

export function showDesktopNotification(payload: DesktopNotification, surface: NotificationSurface): ShowOutcome {
  const Api = surface.Notification;
  if (!Api) return { shown: false, why: 'unsupported' };
  if (Api.permission !== 'granted') return { shown: false, why: 'not-allowed' };
  if (payload.quietWhenFocused && surface.hasFocus()) return { shown: false, why: 'focused' };
  let notification: Notification;
  try {
    // The tag is the event's id: two tabs of the console showing it replace each other, not repeat.
    notification = new Api(payload.title, { body: payload.body, tag: payload.id, silent: payload.silent });
  } catch {
    // Chrome on Android, say, allows notifications only from a service worker: nothing to show here.
    return { shown: false, why: 'failed' };
  }
  // Only an in-app route is opened: the route came over the wire.
  const route = safeActionHref(payload.route);
  notification.onclick = (event) => {
    event.preventDefault();
    surface.focusWindow();
    if (route) surface.navigate(route);
    notification.close();
  };
  return { shown: true, notification };
}

/** The permission as Settings shows it, `unsupported` where the browser has no Notification API. */
export type NotificationPermissionState = NotificationPermission | 'unsupported';

export function notificationPermission(api: typeof Notification | undefined): NotificationPermissionState {
  return api ? api.permission : 'unsupported';
}

/** The page's own Notification API, if the browser has one. */
export function browserNotificationApi(): typeof Notification | undefined {
  return typeof window !== 'undefined' && 'Notification' in window ? window.Notification : undefined;
}
