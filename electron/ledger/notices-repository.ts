import type { Notice } from '../../shared/entities';
import type { LedgerDb } from './ledger-db';
import { isoNow, toIso } from './ids';

interface NoticeRow {
  id: string;
  kind: string;
  severity: Notice['severity'];
  title: string;
  message: string;
  action_url: string | null;
  action_label: string | null;
  run_id: string | null;
  agent_id: string | null;
  task_id: string | null;
  status: Notice['status'];
  created_at: number;
  resolved_at: number | null;
}

function toNotice(row: NoticeRow): Notice {
  return {
    id: row.id,
    kind: row.kind,
    severity: row.severity,
    title: row.title,
    message: row.message,
    actionUrl: row.action_url,
    actionLabel: row.action_label,
    runId: row.run_id,
    agentId: row.agent_id,
    taskId: row.task_id,
    status: row.status,
    createdAt: isoNow(row.created_at),
    resolvedAt: toIso(row.resolved_at),
  };
}

export interface NewNotice {
  id: string;
  kind: string;
  severity: Notice['severity'];
  title: string;
  message: string;
  actionUrl?: string | null;
  actionLabel?: string | null;
  code?: string | null;
  reason?: string | null;
  runId?: string | null;
  agentId?: string | null;
  taskId?: string | null;
  dedupeKey?: string | null;
  createdAt: number;
}

export class NoticesRepository {
  constructor(private readonly db: LedgerDb) {}

  list(status: Notice['status'] | 'all'): Notice[] {
    const rows =
      status === 'all'
        ? this.db.prepare('SELECT * FROM notices ORDER BY created_at DESC, id DESC').all()
        : this.db.prepare('SELECT * FROM notices WHERE status = ? ORDER BY created_at DESC, id DESC').all(status);
    return (rows as NoticeRow[]).map(toNotice);
  }

  get(id: string): Notice | undefined {
    const row = this.db.prepare('SELECT * FROM notices WHERE id = ?').get(id) as NoticeRow | undefined;
    return row && toNotice(row);
  }

  countOpen(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM notices WHERE status = 'open'").get() as { n: number }).n;
  }

  /** Raises a notice, or returns the open one with the same dedupe key: one open notice per cause. */
  raise(notice: NewNotice): Notice {
    const key = notice.dedupeKey ?? notice.id;
    const existing = this.db.prepare("SELECT id FROM notices WHERE dedupe_key = ? AND status = 'open'").get(key) as
      | { id: string }
      | undefined;
    if (existing) return this.get(existing.id)!;
    this.db
      .prepare(
        `INSERT INTO notices (id, kind, severity, title, message, action_url, action_label, code, reason,
           run_id, agent_id, task_id, status, created_at, dedupe_key)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)`,
      )
      .run(
        notice.id,
        notice.kind,
        notice.severity,
        notice.title,
        notice.message,
        notice.actionUrl ?? null,
        notice.actionLabel ?? null,
        notice.code ?? null,
        notice.reason ?? null,
        notice.runId ?? null,
        notice.agentId ?? null,
        notice.taskId ?? null,
        notice.createdAt,
        key,
      );
    return this.get(notice.id)!;
  }

  setStatus(id: string, status: 'resolved' | 'dismissed', at: number): Notice | undefined {
    this.db.prepare("UPDATE notices SET status = ?, resolved_at = ? WHERE id = ? AND status = 'open'").run(status, at, id);
    return this.get(id);
  }
}
