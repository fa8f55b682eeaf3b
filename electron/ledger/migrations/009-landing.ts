/**
 * Landing a run's work (issue 13).
 *
 * - A run carries its landing state: `not_landed` until its commits land in a branch of the project
 *   (the commit, the target, the strategy, when and by whom), `pushed` once its branch is on the
 *   project's remote (the forge's compare address, the pull request), `discarded` when the operator
 *   threw its work away.
 * - `base_branch`: the project's branch the run started from, the default target of landing.
 * - `files_removed_at`: when its task root was removed (archived, discarded, cleaned up); the run's
 *   history stays, and `diff_summary_json` keeps what its Changes showed then (shared runDiffSchema).
 * - `disk_bytes` / `disk_measured_at`: the task root's size, measured when the run ends and on Refresh.
 * - `console_settings`: the console's own settings, one JSON value per key (the clean-up policy).
 */
export const landing = `
ALTER TABLE runs ADD COLUMN base_branch TEXT;
ALTER TABLE runs ADD COLUMN landing_state TEXT NOT NULL DEFAULT 'not_landed'
  CHECK (landing_state IN ('not_landed', 'landed', 'pushed', 'discarded'));
ALTER TABLE runs ADD COLUMN landed_commit TEXT;
-- The run's own tip that landed (for a squash, landed_commit is a new commit): later commits of the run are not landed.
ALTER TABLE runs ADD COLUMN landed_run_tip TEXT;
ALTER TABLE runs ADD COLUMN landed_target TEXT;
ALTER TABLE runs ADD COLUMN landed_strategy TEXT CHECK (landed_strategy IS NULL OR landed_strategy IN ('fast-forward', 'merge', 'squash'));
ALTER TABLE runs ADD COLUMN landed_at INTEGER;
ALTER TABLE runs ADD COLUMN landed_by TEXT;
ALTER TABLE runs ADD COLUMN pushed_remote TEXT;
ALTER TABLE runs ADD COLUMN pushed_branch TEXT;
ALTER TABLE runs ADD COLUMN pushed_at INTEGER;
ALTER TABLE runs ADD COLUMN compare_url TEXT;
ALTER TABLE runs ADD COLUMN pull_request_url TEXT;
ALTER TABLE runs ADD COLUMN discarded_at INTEGER;
ALTER TABLE runs ADD COLUMN files_removed_at INTEGER;
ALTER TABLE runs ADD COLUMN disk_bytes INTEGER;
ALTER TABLE runs ADD COLUMN disk_measured_at INTEGER;
ALTER TABLE runs ADD COLUMN diff_summary_json TEXT;

-- An archived run's files were removed with it.
UPDATE runs SET files_removed_at = archived_at WHERE archived_at IS NOT NULL;

CREATE INDEX runs_by_landing_state ON runs (landing_state, created_at);

CREATE TABLE console_settings (
  key TEXT PRIMARY KEY,
  value_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
`;
