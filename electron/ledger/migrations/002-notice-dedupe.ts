/**
 * Notices are raised by causes that recur (the same agent refused again, the same CLI missing on the
 * next run). A dedupe key lets the notice service keep one open notice per cause instead of a pile.
 * Existing notices get their own id as key, so nothing already open is merged by surprise.
 */
export const noticeDedupe = `
ALTER TABLE notices ADD COLUMN dedupe_key TEXT;
UPDATE notices SET dedupe_key = id WHERE dedupe_key IS NULL;
CREATE UNIQUE INDEX notices_open_by_dedupe_key ON notices (dedupe_key) WHERE status = 'open';
`;
