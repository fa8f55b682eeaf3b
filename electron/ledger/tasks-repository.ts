import type { Task } from '../../shared/entities';
import type { LedgerDb } from './ledger-db';
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
  };
}

export class TasksRepository {
  constructor(private readonly db: LedgerDb) {}

  list(filter: { projectId?: string | undefined; includeArchived?: boolean | undefined }): Task[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.projectId) {
      where.push('project_id = ?');
      params.push(filter.projectId);
    }
    if (!filter.includeArchived) where.push('archived_at IS NULL');
    const sql = `SELECT * FROM tasks ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC`;
    return (this.db.prepare(sql).all(...params) as TaskRow[]).map(toTask);
  }
}
