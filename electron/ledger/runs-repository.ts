import type { RunStatus, RunSummary } from '../../shared/entities';
import type { LedgerDb } from './ledger-db';
import { isoNow, toIso } from './ids';

interface RunSummaryRow {
  id: string;
  task_id: string;
  task_title: string;
  agent_id: string;
  agent_name: string;
  project_id: string;
  status: RunStatus;
  attempt: number;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
}

export interface RunListFilter {
  status?: RunStatus | undefined;
  agentId?: string | undefined;
  projectId?: string | undefined;
  limit?: number | undefined;
  /** The cursor from the previous page: runs strictly older than it. */
  before?: string | undefined;
}

function encodeCursor(row: RunSummaryRow): string {
  return `${row.created_at}:${row.id}`;
}

function decodeCursor(cursor: string): { createdAt: number; id: string } | undefined {
  const match = /^(\d+):(.+)$/.exec(cursor);
  return match ? { createdAt: Number(match[1]), id: match[2]! } : undefined;
}

export class RunsRepository {
  constructor(private readonly db: LedgerDb) {}

  /** Newest first, keyset-paginated so that page 300 of a long history costs what page 1 does. */
  list(filter: RunListFilter): { runs: RunSummary[]; nextCursor: string | null } {
    const limit = filter.limit ?? 100;
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status) {
      where.push('r.status = ?');
      params.push(filter.status);
    }
    if (filter.agentId) {
      where.push('r.agent_id = ?');
      params.push(filter.agentId);
    }
    if (filter.projectId) {
      where.push('t.project_id = ?');
      params.push(filter.projectId);
    }
    const cursor = filter.before ? decodeCursor(filter.before) : undefined;
    if (cursor) {
      where.push('(r.created_at < ? OR (r.created_at = ? AND r.id < ?))');
      params.push(cursor.createdAt, cursor.createdAt, cursor.id);
    }
    const rows = this.db
      .prepare(
        `SELECT r.id, r.task_id, t.title AS task_title, r.agent_id, a.name AS agent_name, t.project_id, r.status,
                (SELECT count(*) FROM attempts WHERE run_id = r.id) AS attempt,
                r.created_at, r.started_at, r.ended_at
         FROM runs r JOIN tasks t ON t.id = r.task_id JOIN agents a ON a.id = r.agent_id
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY r.created_at DESC, r.id DESC
         LIMIT ?`,
      )
      .all(...params, limit + 1) as RunSummaryRow[];
    const page = rows.slice(0, limit);
    return {
      runs: page.map((row) => ({
        id: row.id,
        taskId: row.task_id,
        taskTitle: row.task_title,
        agentId: row.agent_id,
        agentName: row.agent_name,
        projectId: row.project_id,
        status: row.status,
        attempt: row.attempt,
        createdAt: isoNow(row.created_at),
        startedAt: toIso(row.started_at),
        endedAt: toIso(row.ended_at),
      })),
      nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!) : null,
    };
  }
}
