import type { DesktopNotification } from '../../shared/attention';
import type { ServerMessage } from '../../shared/wire';
import type { EventHub } from '../events/event-hub';
import type { HostSocket } from '../host/host-socket';
import type { Logger } from '../platform/log';

/**
 * Desktop notifications the console service told while no app could show them (no page open, no
 * desktop app attached; `npm run serve` itself shows none): held, and handed once to the first app that
 * attaches, so a run that ended in the background is still news when the operator comes back. Kept in
 * the service's memory: a service that stops (idle, or stopped) takes what it held with it.
 */
export class HeldNotifications {
  private held: DesktopNotification[] = [];
  private readonly stop: () => void;

  constructor(
    events: Pick<EventHub, 'listen'>,
    /** Whether an app that shows notifications is attached now. */
    private readonly watched: () => boolean,
    private readonly log: Logger,
    private readonly kept = 50,
  ) {
    this.stop = events.listen((event, payload) => {
      if (event !== 'desktopNotification' || this.watched()) return;
      this.held.push(payload as DesktopNotification);
      // A long absence keeps the newest: older ones are in the Runs and Notices pages.
      if (this.held.length > this.kept) this.held.splice(0, this.held.length - this.kept);
    });
  }

  /** Hands what was held to an app that has just attached, once. */
  deliverTo(socket: HostSocket): void {
    if (this.held.length === 0) return;
    const notifications = this.held;
    this.held = [];
    this.log.info('held notifications delivered', { count: notifications.length });
    for (const payload of notifications) {
      socket.sendEvent('desktopNotification', JSON.stringify({ type: 'event', event: 'desktopNotification', payload } satisfies ServerMessage));
    }
  }

  close(): void {
    this.stop();
  }
}
