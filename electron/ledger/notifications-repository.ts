import type { LedgerDb } from './database-handle';

/** The events desktop notifications were sent for (`notifications_sent`, migration 11): each notifies once. */
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
}
