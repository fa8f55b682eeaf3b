/**
 * Desktop notifications the console service told while no app could show them (issue 27): kept in the
 * ledger, not in the service's memory, so that a service that stops or crashes (SIGKILL) still hands
 * them to the next app that attaches. `delivered_at` is set in the same transaction that takes a row
 * for delivery, before it is sent (at most once: see HeldNotifications); delivered rows are pruned.
 */
export const heldNotifications = `
CREATE TABLE held_notifications (
  id TEXT PRIMARY KEY,
  notification_json TEXT NOT NULL,
  held_at INTEGER NOT NULL,
  delivered_at INTEGER
);
CREATE INDEX held_notifications_waiting ON held_notifications (held_at) WHERE delivered_at IS NULL;
`;
