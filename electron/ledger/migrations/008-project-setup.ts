import type { LedgerDb } from '../database-handle';

/**
 * Project setup (issue 12): files copied into each run's view, a setup command run before the agent,
 * and environment variables in layers (project < agent < task).
 *
 * - A project keeps its copy patterns (a JSON array of globs) and its setup command.
 * - `layer_variables` holds every layer's variables: exactly one of project, agent or task names the
 *   owner (and removing it removes them). A plain value is in `value`; a secret one is sealed by the
 *   console's vault (as a connection's key is) in `sealed_value`, and `value` is NULL.
 * - A run records what its preparation did (`setup_json`: the files copied or refused, the merged
 *   variables with where each came from, never a secret's value, and the setup command's outcome).
 * - A run may be `setting_up`: its setup command is running and the agent has not started.
 */
export const projectSetup = `
ALTER TABLE projects ADD COLUMN copy_patterns_json TEXT;
ALTER TABLE projects ADD COLUMN setup_command TEXT;
ALTER TABLE runs ADD COLUMN setup_json TEXT;

CREATE TABLE layer_variables (
  project_id TEXT REFERENCES projects (id) ON DELETE CASCADE,
  agent_id TEXT REFERENCES agents (id) ON DELETE CASCADE,
  task_id TEXT REFERENCES tasks (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT,
  sealed_value TEXT,
  position INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  CHECK ((project_id IS NOT NULL) + (agent_id IS NOT NULL) + (task_id IS NOT NULL) = 1),
  CHECK ((value IS NULL) <> (sealed_value IS NULL))
);
CREATE UNIQUE INDEX layer_variables_by_owner ON layer_variables (coalesce(project_id, ''), coalesce(agent_id, ''), coalesce(task_id, ''), name);
CREATE INDEX layer_variables_by_project ON layer_variables (project_id) WHERE project_id IS NOT NULL;
CREATE INDEX layer_variables_by_agent ON layer_variables (agent_id) WHERE agent_id IS NOT NULL;
CREATE INDEX layer_variables_by_task ON layer_variables (task_id) WHERE task_id IS NOT NULL;
`;

/**
 * Adds `setting_up` to the runs table's status CHECK. SQLite cannot change a CHECK in place, so the
 * table is rebuilt the way SQLite's documentation prescribes (foreign keys off, a new table, the rows
 * copied, the old one dropped and the new one renamed, then a foreign key check): from the table's own
 * stored definition, so every column earlier migrations added (and any a later one adds before this
 * runs) is kept as it is.
 */
export function allowSettingUpStatus(db: LedgerDb): void {
  const table = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get() as { sql: string };
  const statusCheck = /status TEXT NOT NULL CHECK \(status IN\s*\(([^)]*)\)\)/;
  const match = statusCheck.exec(table.sql);
  if (!match) throw new Error('The runs table has no status CHECK this migration knows.');
  if (match[1]!.includes("'setting_up'")) return;
  const definition = table.sql
    .replace(statusCheck, `status TEXT NOT NULL CHECK (status IN (${match[1]!.trimEnd()}, 'setting_up'))`)
    .replace(/^CREATE TABLE "?runs"?/, 'CREATE TABLE runs_next');
  const dependents = db
    .prepare("SELECT sql FROM sqlite_master WHERE tbl_name = 'runs' AND type IN ('index', 'trigger') AND sql IS NOT NULL")
    .all() as Array<{ sql: string }>;
  db.exec(definition);
  db.exec('INSERT INTO runs_next SELECT * FROM runs');
  db.exec('DROP TABLE runs');
  db.exec('ALTER TABLE runs_next RENAME TO runs');
  for (const dependent of dependents) db.exec(dependent.sql);
}
