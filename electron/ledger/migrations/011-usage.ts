/**
 * Usage, budgets and notifications (issue 14).
 * - `usage_records`: one row per attempt that reported usage, its tokens as the console counted them
 *   (normalized, shared/usage.ts). It names its run, task, project, agent and connection by id and
 *   by name, with no foreign keys: deleting a run must not give its money back to a budget, and the
 *   Usage page still shows what a deleted agent used. `session_*` hold the CLI's last session total
 *   for CLIs that report cumulative totals (Codex), so a resumed turn counts only what it added.
 * - `budgets`: a limit in estimated money or tokens per day or month on a connection or an agent.
 * - `notifications_sent`: the key of every event a desktop notification was sent for, so that no
 *   event notifies twice, also across a restart.
 */
export const usage = `
CREATE TABLE usage_records (
  attempt_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  attempt_number INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  task_title TEXT NOT NULL,
  project_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  agent_name TEXT NOT NULL,
  connection_id TEXT,
  connection_name TEXT,
  provider_id TEXT NOT NULL,
  -- The model provider whose API bills the tokens: the price table's provider.
  price_provider TEXT NOT NULL,
  model TEXT NOT NULL,
  billing TEXT NOT NULL CHECK (billing IN ('api_key', 'subscription', 'operator_login')),
  counting TEXT NOT NULL CHECK (counting IN ('per_call', 'per_invocation', 'per_session')),
  -- When the attempt started (ms): the day it counts in, and the budget period.
  started_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  reports INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cached_input_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  session_id TEXT,
  session_total_json TEXT
);
CREATE INDEX usage_records_by_run ON usage_records (run_id, attempt_number);
CREATE INDEX usage_records_by_time ON usage_records (started_at);
CREATE INDEX usage_records_by_agent ON usage_records (agent_id, started_at);
CREATE INDEX usage_records_by_connection ON usage_records (connection_id, started_at);

CREATE TABLE budgets (
  id TEXT PRIMARY KEY,
  scope TEXT NOT NULL CHECK (scope IN ('connection', 'agent')),
  target_id TEXT NOT NULL,
  target_name TEXT NOT NULL,
  measure TEXT NOT NULL CHECK (measure IN ('cost', 'tokens')),
  period TEXT NOT NULL CHECK (period IN ('day', 'month')),
  limit_value REAL NOT NULL CHECK (limit_value > 0),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (scope, target_id, measure, period)
);

CREATE TABLE notifications_sent (
  event_key TEXT PRIMARY KEY,
  notification_id TEXT NOT NULL,
  sent_at INTEGER NOT NULL
);
`;
