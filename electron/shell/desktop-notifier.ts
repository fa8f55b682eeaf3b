import type { BrowserWindow, NotificationConstructorOptions, WebContents } from 'electron';
import type { DesktopNotification } from '../../shared/attention';
import { ipcEventChannel, type EventName, type EventPayload } from '../../shared/contract';
import type { EventHub } from '../events/event-hub';
import type { Logger } from '../platform/log';

/** The parts of Electron's Notification the notifier uses. */
export interface ShownNotification {
  show(): void;
  close(): void;
  on(event: 'click' | 'close', listener: () => void): unknown;
}

/** The parts of a console window the notifier uses. */
export type NotifierWindow = Pick<BrowserWindow, 'isFocused' | 'isMinimized' | 'restore' | 'show' | 'focus' | 'isDestroyed'> & {
  webContents: Pick<WebContents, 'send' | 'isDestroyed'>;
};

export interface DesktopNotifierOptions {
  events: Pick<EventHub, 'listen'>;
  log: Logger;
  /** Electron's Notification (a stand-in in tests). */
  Notification: {
    new (options: NotificationConstructorOptions): ShownNotification;
    isSupported(): boolean;
  };
  /** The console's live windows. */
  windows(): NotifierWindow[];
  /** Opens a window at an in-app route (macOS keeps the app running with none open). */
  openWindow(route: string): void;
  /** app.setBadgeCount: the dock / launcher badge. */
  setBadgeCount(count: number): void;
  /** How many notices are open now, for the badge at start (asked of the console service). */
  openNotices(): number | Promise<number>;
}

/**
 * The desktop app's notifications: the core decides what to tell (once per event, floods as one
 * summary, the operator's events) and pushes `desktopNotification`; the shell shows it with Electron's
 * Notification, unless the operator asked for quiet while a console window has focus and one has. A
 * click brings the console forward and opens the notification's route in it. The dock / launcher
 * badge carries the open-notice count. The page never gets `desktopNotification` (the IPC binding
 * keeps it back), so nothing is shown twice. Returns a function that stops it.
 */
export function bindDesktopNotifications(options: DesktopNotifierOptions): () => void {
  const { log } = options;
  // Electron drops a notification's click handler when the object is garbage collected: keep each
  // one until it is clicked or closed.
  const showing = new Set<ShownNotification>();

  const setBadge = (count: number) => {
    try {
      options.setBadgeCount(count);
    } catch (error) {
      // Linux without a launcher that shows badges: the window title still counts them.
      log.debug('badge not set', { error: error instanceof Error ? error.message : String(error) });
    }
  };

  const openRoute = (route: string) => {
    // Only an in-app route: the page's hash router opens it.
    if (!/^#\/[^\s]*$/.test(route)) return;
    const window = options.windows().find((candidate) => !candidate.isDestroyed());
    if (!window) {
      options.openWindow(route);
      return;
    }
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    if (!window.webContents.isDestroyed()) window.webContents.send(ipcEventChannel, 'openRoute', { route } satisfies EventPayload<'openRoute'>);
  };

  const show = (payload: DesktopNotification) => {
    if (!options.Notification.isSupported()) return;
    if (payload.quietWhenFocused && options.windows().some((window) => !window.isDestroyed() && window.isFocused())) return;
    const notification = new options.Notification({ title: payload.title, body: payload.body, silent: payload.silent });
    showing.add(notification);
    notification.on('click', () => {
      showing.delete(notification);
      openRoute(payload.route);
    });
    notification.on('close', () => showing.delete(notification));
    notification.show();
  };

  let heardChange = false;
  const stop = options.events.listen(<E extends EventName>(event: E, payload: EventPayload<E>) => {
    try {
      if (event === 'desktopNotification') show(payload as EventPayload<'desktopNotification'>);
      else if (event === 'noticesChanged') {
        heardChange = true;
        setBadge((payload as EventPayload<'noticesChanged'>).open);
      }
    } catch (error) {
      log.warn('desktop notification not shown', { event, error: error instanceof Error ? error.message : String(error) });
    }
  });
  // The count at start, asked of the service, must not undo a newer one a noticesChanged already set.
  const atStart = options.openNotices();
  if (typeof atStart === 'number') setBadge(atStart);
  else {
    atStart.then(
      (count) => {
        if (!heardChange) setBadge(count);
      },
      (error: unknown) => log.debug('open notices not counted', { error: error instanceof Error ? error.message : String(error) }),
    );
  }

  return () => {
    stop();
    for (const notification of showing) notification.close();
    showing.clear();
  };
}
