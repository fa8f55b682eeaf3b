/**
 * AI connections, admission and notices that open the fix (issue 5).
 *
 * - An agent's verification (the admission rules checked without starting anything) is kept as one
 *   JSON value, with the configuration revision it was made for: a refused verification waits for
 *   that revision to change instead of retrying.
 * - A notice stands for one or more runs: later refusals of the same agent for the same cause join
 *   the open notice instead of piling up. `rerun_run_id` is the run Run again started for each, and
 *   `rerun_at` marks the notice's Run again as used, so a second click starts nothing.
 * Existing notices keep the run they were raised for.
 */
export const connectionsAndNoticeRuns = `
ALTER TABLE agents ADD COLUMN verification_json TEXT;
ALTER TABLE notices ADD COLUMN rerun_at INTEGER;
CREATE TABLE notice_runs (
  notice_id TEXT NOT NULL REFERENCES notices (id) ON DELETE CASCADE,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rerun_run_id TEXT REFERENCES runs (id) ON DELETE SET NULL,
  linked_at INTEGER NOT NULL,
  PRIMARY KEY (notice_id, run_id)
);
CREATE INDEX notice_runs_by_run ON notice_runs (run_id);
INSERT INTO notice_runs (notice_id, run_id, linked_at) SELECT id, run_id, created_at FROM notices WHERE run_id IS NOT NULL;
CREATE INDEX notices_by_agent ON notices (agent_id, status);
`;
