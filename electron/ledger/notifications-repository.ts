import type { LedgerDb } from './database-handle';

/**
 * The events desktop notifications were sent for (`notifications_sent`, migration 11): each notifies
 * once; and the notifications held for the next app that can show them (`held_notifications`, migration 16).
 */
export class NotificationsRepository {
  constructor(private readonly db: LedgerDb) {}

  /**
   * Claims an event for a notification: true the first time this key is claimed, false ever after
   * (another window, a second delivery, a restart that sees the same event again).
   */
  claim(eventKey: string, notificationId: string, at: number): boolean {
    return this.db.prepare('INSERT OR IGNORE INTO notifications_sent (event_key, notification_id, sent_at) VALUES (?, ?, ?)').run(eventKey, notificationId, at).changes > 0;
  }

  /** Forgets claims older than `before` (ms): the table stays small, and an event that old does not come again. */
  forgetBefore(before: number): number {
    return this.db.prepare('DELETE FROM notifications_sent WHERE sent_at < ?').run(before).changes;
  }

  /**
   * Holds a notification (its JSON) for the next app that can show it. Only the newest `kept` wait: a
   * long absence keeps what is freshest (the rest is in the Runs and Notices pages). Delivered rows go.
   */
  hold(id: string, notificationJson: string, at: number, kept: number): void {
    this.db.transaction(() => {
      this.db.prepare('INSERT OR IGNORE INTO held_notifications (id, notification_json, held_at) VALUES (?, ?, ?)').run(id, notificationJson, at);
      this.db.prepare('DELETE FROM held_notifications WHERE delivered_at IS NOT NULL').run();
      this.db
        .prepare('DELETE FROM held_notifications WHERE id NOT IN (SELECT id FROM held_notifications ORDER BY held_at DESC, rowid DESC LIMIT ?)')
        .run(kept);
    })();
  }

  /**
   * Takes every waiting notification for delivery, oldest first, and marks it delivered in the same
   * transaction: once this returns, no other app (and no later service) gets them again.
   */
  takeHeld(at: number): Array<{ id: string; notificationJson: string }> {
    return this.db.transaction(() => {
      const rows = this.db
        .prepare('SELECT id, notification_json FROM held_notifications WHERE delivered_at IS NULL ORDER BY held_at, rowid')
        .all() as Array<{ id: string; notification_json: string }>;
      this.db.prepare('UPDATE held_notifications SET delivered_at = ? WHERE delivered_at IS NULL').run(at);
      return rows.map((row) => ({ id: row.id, notificationJson: row.notification_json }));
    })();
  }

  /** How many wait for an app now. */
  heldCount(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM held_notifications WHERE delivered_at IS NULL').get() as { n: number }).n;
  }
}
