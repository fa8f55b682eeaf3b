/**
 * What launching needs beyond the first schema. Agents name where their CLI is (when it is not on
 * PATH) and, for the command provider, the argv to run; a deleted agent is kept (marked) so the runs
 * it made keep their history. Runs keep their failure as one JSON value (code, message, reason,
 * action link) and the folder the agent worked in.
 */
export const launchDetails = `
ALTER TABLE agents ADD COLUMN executable_path TEXT;
ALTER TABLE agents ADD COLUMN command_args_json TEXT;
ALTER TABLE agents ADD COLUMN deleted_at INTEGER;
ALTER TABLE runs ADD COLUMN failure_json TEXT;
ALTER TABLE runs ADD COLUMN cwd TEXT;
CREATE INDEX runs_by_status ON runs (status, created_at);
CREATE INDEX attempts_by_run ON attempts (run_id, number);
`;
