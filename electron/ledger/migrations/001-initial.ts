/**
 * The first schema. Every table later issues build on is here, so they extend it rather than rewrite
 * it. Times are integer milliseconds since the epoch (sortable, compact); JSON columns hold values
 * whose shape is owned by a zod schema in the code that writes them.
 */
export const initialSchema = `
CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  path TEXT NOT NULL UNIQUE,
  is_git_repo INTEGER NOT NULL CHECK (is_git_repo IN (0, 1)),
  created_at INTEGER NOT NULL
);

CREATE TABLE environments (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('local', 'sandboxed')),
  network_mode TEXT NOT NULL CHECK (network_mode IN ('open', 'none', 'provider-only')),
  requires_connection INTEGER NOT NULL CHECK (requires_connection IN (0, 1)),
  created_at INTEGER NOT NULL
);

INSERT INTO environments (id, name, kind, network_mode, requires_connection, created_at) VALUES
  ('env_local', 'Local', 'local', 'open', 0, 0),
  ('env_sandboxed', 'Sandboxed', 'sandboxed', 'provider-only', 1, 0);

-- Metadata only. The secret itself is encrypted outside the ledger; secret_ref names it there.
CREATE TABLE ai_connections (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  provider TEXT NOT NULL,
  method TEXT NOT NULL,
  base_url TEXT,
  ownership TEXT NOT NULL CHECK (ownership IN ('personal', 'shared')),
  agent_scope TEXT NOT NULL CHECK (agent_scope IN ('all', 'chosen')),
  status TEXT NOT NULL CHECK (status IN ('connected', 'needs_attention', 'expired', 'revoked')),
  secret_hint TEXT,
  secret_ref TEXT,
  last_test_json TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE agents (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  provider_id TEXT NOT NULL,
  model TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  capacity INTEGER NOT NULL DEFAULT 1 CHECK (capacity >= 1),
  home_mode TEXT NOT NULL CHECK (home_mode IN ('isolated', 'preconfigured')),
  environment_id TEXT NOT NULL REFERENCES environments (id),
  connection_id TEXT REFERENCES ai_connections (id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE ai_connection_agents (
  connection_id TEXT NOT NULL REFERENCES ai_connections (id) ON DELETE CASCADE,
  agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  PRIMARY KEY (connection_id, agent_id)
);

CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  prompt TEXT NOT NULL,
  plan_path TEXT,
  review_path TEXT,
  archived_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX tasks_by_project ON tasks (project_id, created_at);

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  agent_id TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN
    ('queued', 'admitted', 'preparing', 'running', 'succeeded', 'failed', 'cancelled', 'refused', 'stranded')),
  admission_json TEXT,
  config_fingerprint TEXT,
  base_revision TEXT,
  task_root TEXT,
  failure_code TEXT,
  failure_reason TEXT,
  submission_json TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  ended_at INTEGER
);
CREATE INDEX runs_by_created ON runs (created_at DESC, id DESC);
CREATE INDEX runs_by_task ON runs (task_id, created_at DESC);

CREATE TABLE attempts (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  number INTEGER NOT NULL CHECK (number >= 1),
  status TEXT NOT NULL,
  failure_code TEXT,
  exit_code INTEGER,
  signal TEXT,
  retry_at INTEGER,
  started_at INTEGER,
  ended_at INTEGER,
  UNIQUE (run_id, number)
);

CREATE TABLE run_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  attempt_id TEXT REFERENCES attempts (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX run_events_by_run ON run_events (run_id, id);

-- Raw PTY bytes, exactly as produced; byte_offset is the offset of the chunk's first byte in the run.
CREATE TABLE output_chunks (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  byte_offset INTEGER NOT NULL CHECK (byte_offset >= 0),
  attempt_id TEXT REFERENCES attempts (id) ON DELETE CASCADE,
  bytes BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, byte_offset)
) WITHOUT ROWID;

CREATE TABLE locators (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('process', 'session')),
  payload_json TEXT NOT NULL,
  revision TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, kind)
);

CREATE TABLE notices (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  severity TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'error')),
  title TEXT NOT NULL,
  message TEXT NOT NULL,
  action_url TEXT,
  action_label TEXT,
  code TEXT,
  reason TEXT,
  run_id TEXT REFERENCES runs (id) ON DELETE SET NULL,
  agent_id TEXT REFERENCES agents (id) ON DELETE SET NULL,
  task_id TEXT REFERENCES tasks (id) ON DELETE SET NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'resolved', 'dismissed')),
  created_at INTEGER NOT NULL,
  resolved_at INTEGER
);
CREATE INDEX notices_by_status ON notices (status, created_at DESC);
`;
