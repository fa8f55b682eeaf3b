import type Database from 'better-sqlite3';

/**
 * The rows a run hangs off (project `prj_1`, task `tsk_1`, agent `agt_1`), written with plain SQL so
 * that a ledger at any schema version takes them: what the migration and backup tests seed first.
 */
export function seedRunParents(db: Database.Database): void {
  db.prepare("INSERT INTO projects (id, name, path, is_git_repo, created_at) VALUES ('prj_1', 'p', '/srv/p', 1, 1)").run();
  db.prepare("INSERT INTO tasks (id, project_id, title, prompt, created_at, updated_at) VALUES ('tsk_1', 'prj_1', 't', 'p', 1, 1)").run();
  db.prepare(
    `INSERT INTO agents (id, name, provider_id, model, profile_id, capacity, home_mode, environment_id, created_at, updated_at)
     VALUES ('agt_1', 'a', 'codex', 'm', 'default', 1, 'isolated', 'env_sandboxed', 1, 1)`,
  ).run();
}
