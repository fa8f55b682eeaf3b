import type { RunStatus, Task } from '../../shared/entities';
import type { LedgerDb } from './database-handle';
import { isoNow } from './ids';

interface TaskRow {
  id: string;
  project_id: string;
  title: string;
  prompt: string;
  plan_path: string | null;
  review_path: string | null;
  archived_at: number | null;
  created_at: number;
  updated_at: number;
  latest_run_id: string | null;
  latest_run_status: RunStatus | null;
}

function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    prompt: row.prompt,
    planPath: row.plan_path,
    reviewPath: row.review_path,
    archived: row.archived_at !== null,
    createdAt: isoNow(row.created_at),
    updatedAt: isoNow(row.updated_at),
    latestRun: row.latest_run_id && row.latest_run_status ? { id: row.latest_run_id, status: row.latest_run_status } : null,
  };
}

const selectTasks = `
  SELECT t.*, lr.id AS latest_run_id, lr.status AS latest_run_status
  FROM tasks t
  LEFT JOIN runs lr ON lr.id = (SELECT id FROM runs WHERE task_id = t.id ORDER BY created_at DESC, id DESC LIMIT 1)`;

export interface NewTask {
  id: string;
  projectId: string;
  title: string;
  prompt: string;
  planPath: string | null;
  reviewPath: string | null;
  createdAt: number;
}

export class TasksRepository {
  constructor(private readonly db: LedgerDb) {}

  list(filter: { projectId?: string | undefined; includeArchived?: boolean | undefined }): Task[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.projectId) {
      where.push('t.project_id = ?');
      params.push(filter.projectId);
    }
    if (!filter.includeArchived) where.push('t.archived_at IS NULL');
    const sql = `${selectTasks} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY t.created_at DESC, t.id DESC`;
    return (this.db.prepare(sql).all(...params) as TaskRow[]).map(toTask);
  }

  get(id: string): Task | undefined {
    const row = this.db.prepare(`${selectTasks} WHERE t.id = ?`).get(id) as TaskRow | undefined;
    return row && toTask(row);
  }

  /** Plan paths already imported in a project, so a second import does not duplicate tasks. */
  planPaths(projectId: string): Set<string> {
    const rows = this.db.prepare('SELECT plan_path FROM tasks WHERE project_id = ? AND plan_path IS NOT NULL').all(projectId) as Array<{
      plan_path: string;
    }>;
    return new Set(rows.map((row) => row.plan_path));
  }

  insert(task: NewTask): Task {
    this.db
      .prepare(
        `INSERT INTO tasks (id, project_id, title, prompt, plan_path, review_path, archived_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
      )
      .run(task.id, task.projectId, task.title, task.prompt, task.planPath, task.reviewPath, task.createdAt, task.createdAt);
    return this.get(task.id)!;
  }

  insertMany(tasks: NewTask[]): Task[] {
    return this.db.transaction(() => tasks.map((task) => this.insert(task)))();
  }

  update(
    id: string,
    changes: { title?: string | undefined; prompt?: string | undefined; planPath?: string | null | undefined; reviewPath?: string | null | undefined },
    at: number,
  ): Task | undefined {
    const current = this.get(id);
    if (!current) return undefined;
    this.db
      .prepare('UPDATE tasks SET title = ?, prompt = ?, plan_path = ?, review_path = ?, updated_at = ? WHERE id = ?')
      .run(
        changes.title ?? current.title,
        changes.prompt ?? current.prompt,
        changes.planPath === undefined ? current.planPath : changes.planPath,
        changes.reviewPath === undefined ? current.reviewPath : changes.reviewPath,
        at,
        id,
      );
    return this.get(id);
  }

  setArchived(id: string, archived: boolean, at: number): Task | undefined {
    this.db.prepare('UPDATE tasks SET archived_at = ?, updated_at = ? WHERE id = ?').run(archived ? at : null, at, id);
    return this.get(id);
  }
}
