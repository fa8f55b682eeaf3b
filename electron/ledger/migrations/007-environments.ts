/**
 * Environments operators shape (issue 12).
 *
 * - An environment has its own allowed hosts (JSON: canonical `host` / `host:port` entries, owned by
 *   shared/allowed-hosts.ts) that the egress proxy lets its provider-only runs reach besides the model.
 * - The two environments every console starts with are built in: editable, never deleted. Others are
 *   deleted by marking (like agents), so the runs they confined keep naming them.
 * - A notice can be about an environment (a request it blocked): `environment_id` finds those that a
 *   change to it may resolve, and `subject_json` holds what exactly (the host and port).
 * - A run's egress decisions are read per run and kind, aggregated, for its Network panel.
 */
export const environments = `
ALTER TABLE environments ADD COLUMN allowed_hosts_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE environments ADD COLUMN built_in INTEGER NOT NULL DEFAULT 0 CHECK (built_in IN (0, 1));
ALTER TABLE environments ADD COLUMN updated_at INTEGER;
ALTER TABLE environments ADD COLUMN deleted_at INTEGER;
UPDATE environments SET built_in = 1, updated_at = created_at WHERE id IN ('env_local', 'env_sandboxed');
ALTER TABLE notices ADD COLUMN environment_id TEXT REFERENCES environments (id) ON DELETE SET NULL;
ALTER TABLE notices ADD COLUMN subject_json TEXT;
CREATE INDEX notices_by_environment ON notices (environment_id, status);
CREATE INDEX run_events_by_kind ON run_events (run_id, kind);
`;
