import { desktopNotificationSchema, type DesktopNotification } from '../../shared/attention';
import type { ServerMessage } from '../../shared/wire';
import type { EventHub } from '../events/event-hub';
import type { HostSocket } from '../host/host-socket';
import type { NotificationsRepository } from '../ledger/notifications-repository';
import type { Logger } from '../platform/log';

/**
 * Desktop notifications the console service told while no app could show them (no page open, no
 * desktop app attached; `npm run serve` itself shows none): held, and handed once to the first app that
 * attaches, so a run that ended in the background is still news when the operator comes back.
 *
 * Held in the ledger (migration 16), so a service that stops, idles out or is killed with SIGKILL
 * leaves them to the next service. Delivery is at most once: the rows are marked delivered in the
 * transaction that takes them, before they are sent. A crash between the mark and the send loses those
 * notifications (the runs and notices they told of stay in the Runs and Notices pages and the badge);
 * the other order would show them twice after such a crash, and a notification seen twice is a false
 * event ("finished" again) where one missed is only a missed ping.
 */
export class HeldNotifications {
  private readonly stop: () => void;

  constructor(
    events: Pick<EventHub, 'listen'>,
    private readonly notifications: Pick<NotificationsRepository, 'hold' | 'takeHeld'>,
    /** Whether an app that shows notifications is attached now. */
    private readonly watched: () => boolean,
    private readonly log: Logger,
    private readonly kept = 50,
    private readonly now: () => number = Date.now,
  ) {
    this.stop = events.listen((event, payload) => {
      if (event !== 'desktopNotification' || this.watched()) return;
      const notification = payload as DesktopNotification;
      try {
        this.notifications.hold(notification.id, JSON.stringify(notification), this.now(), this.kept);
      } catch (error) {
        // A full disk or a closing ledger: the notification is lost, the run it told of is not.
        this.log.warn('notification not held', { id: notification.id, error: error instanceof Error ? error.message : String(error) });
      }
    });
  }

  /** Hands what was held to an app that has just attached, once. */
  deliverTo(socket: HostSocket): void {
    let taken: Array<{ id: string; notificationJson: string }>;
    try {
      taken = this.notifications.takeHeld(this.now());
    } catch (error) {
      this.log.warn('held notifications not read', { error: error instanceof Error ? error.message : String(error) });
      return;
    }
    if (taken.length === 0) return;
    this.log.info('held notifications delivered', { count: taken.length });
    for (const row of taken) {
      // Written by this or another version of the service: told only if it is still a notification this one knows.
      const parsed = desktopNotificationSchema.safeParse(parseJson(row.notificationJson));
      if (!parsed.success) {
        this.log.warn('held notification not understood; dropped', { id: row.id });
        continue;
      }
      socket.sendEvent('desktopNotification', JSON.stringify({ type: 'event', event: 'desktopNotification', payload: parsed.data } satisfies ServerMessage));
    }
  }

  close(): void {
    this.stop();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
