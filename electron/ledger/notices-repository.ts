import type { Notice } from '../../shared/entities';
import type { LedgerDb } from './database-handle';
import { isoNow, toIso } from './ids';

interface NoticeRow {
  id: string;
  kind: string;
  severity: Notice['severity'];
  title: string;
  message: string;
  action_url: string | null;
  action_label: string | null;
  code: string | null;
  reason: string | null;
  run_id: string | null;
  agent_id: string | null;
  task_id: string | null;
  status: Notice['status'];
  created_at: number;
  resolved_at: number | null;
  resolution: string | null;
  rerun_at: number | null;
  environment_id: string | null;
  /** How many of the runs it stands for Run again can start (refused ones, or any for a notice about runs that started). */
  rerunnable_runs: number;
}

interface NoticeRunRow {
  run_id: string;
  rerun_run_id: string | null;
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
  /** The environment it is about (a request it blocked), when it is about one. */
  environmentId?: string | null;
  /** What exactly it is about, for the code that resolves it (JSON; e.g. the blocked host and port). */
  subject?: Record<string, unknown> | null;
  createdAt: number;
}

/**
 * Notices about runs that did start (a request the environment blocked; a budget a run crossed, so it
 * was not retried): Run again starts their tasks again whatever became of the runs. Every other
 * notice's Run again starts only refused runs, the ones that never started.
 */
export const startedRunNoticeKinds = ['network_blocked', 'budget_exhausted', 'budget_unpriced'] as const;

const noticeSelect = `
  SELECT n.*,
         (SELECT count(*) FROM notice_runs nr JOIN runs r ON r.id = nr.run_id
           WHERE nr.notice_id = n.id AND (r.status = 'refused' OR n.kind IN (${startedRunNoticeKinds.map((kind) => `'${kind}'`).join(', ')}))) AS rerunnable_runs
  FROM notices n`;

export class NoticesRepository {
  constructor(private readonly db: LedgerDb) {}

  list(status: Notice['status'] | 'all', runId?: string): Notice[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (status !== 'all') {
      where.push('n.status = ?');
      params.push(status);
    }
    if (runId) {
      where.push('(n.run_id = ? OR n.id IN (SELECT notice_id FROM notice_runs WHERE run_id = ?))');
      params.push(runId, runId);
    }
    const rows = this.db
      .prepare(`${noticeSelect} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY n.created_at DESC, n.id DESC`)
      .all(...params) as NoticeRow[];
    return rows.map((row) => this.toNotice(row));
  }

  get(id: string): Notice | undefined {
    const row = this.db.prepare(`${noticeSelect} WHERE n.id = ?`).get(id) as NoticeRow | undefined;
    return row && this.toNotice(row);
  }

  countOpen(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM notices WHERE status = 'open'").get() as { n: number }).n;
  }

  /** Open notices of an agent (all of them, or those of the given kinds), oldest first. */
  openForAgent(agentId: string, kinds?: readonly string[]): Notice[] {
    const kindFilter = kinds ? ` AND n.kind IN (${kinds.map(() => '?').join(', ')})` : '';
    const rows = this.db
      .prepare(`${noticeSelect} WHERE n.status = 'open' AND n.agent_id = ?${kindFilter} ORDER BY n.created_at, n.id`)
      .all(agentId, ...(kinds ?? [])) as NoticeRow[];
    return rows.map((row) => this.toNotice(row));
  }

  /** Open notices about an environment (of a kind), oldest first, each with what exactly it is about. */
  openForEnvironment(environmentId: string, kind: string): Array<{ notice: Notice; subject: Record<string, unknown> }> {
    const rows = this.db
      .prepare(`${noticeSelect} WHERE n.status = 'open' AND n.environment_id = ? AND n.kind = ? ORDER BY n.created_at, n.id`)
      .all(environmentId, kind) as Array<NoticeRow & { subject_json: string | null }>;
    return rows.map((row) => ({ notice: this.toNotice(row), subject: row.subject_json ? (JSON.parse(row.subject_json) as Record<string, unknown>) : {} }));
  }

  /** Whether any notice (whatever its status) of this kind stands for the run. */
  runHasNotice(runId: string, kind: string): boolean {
    return (
      this.db
        .prepare(
          'SELECT 1 FROM notices n WHERE n.kind = ? AND (n.run_id = ? OR n.id IN (SELECT notice_id FROM notice_runs WHERE run_id = ?)) LIMIT 1',
        )
        .get(kind, runId, runId) !== undefined
    );
  }

  /** The newest notice raised for a cause (its dedupe key), whatever its status now. */
  latestForKey(dedupeKey: string): Notice | undefined {
    const row = this.db.prepare(`${noticeSelect} WHERE n.dedupe_key = ? ORDER BY n.created_at DESC, n.id DESC LIMIT 1`).get(dedupeKey) as NoticeRow | undefined;
    return row && this.toNotice(row);
  }

  /** Open notices of a kind, oldest first. */
  openOfKind(kind: string): Notice[] {
    const rows = this.db.prepare(`${noticeSelect} WHERE n.status = 'open' AND n.kind = ? ORDER BY n.created_at, n.id`).all(kind) as NoticeRow[];
    return rows.map((row) => this.toNotice(row));
  }

  /**
   * Raises a notice, or returns the open one with the same dedupe key: one open notice per cause. The
   * run (when given) is linked to whichever notice stands for it, so the run detail can show it and
   * Run again can start it. The answer is a new notice exactly when its id is `notice.id`.
   */
  raise(notice: NewNotice): Notice {
    const key = notice.dedupeKey ?? notice.id;
    return this.db.transaction(() => {
      const existing = this.db.prepare("SELECT id FROM notices WHERE dedupe_key = ? AND status = 'open'").get(key) as { id: string } | undefined;
      const id = existing?.id ?? notice.id;
      if (!existing) {
        this.db
          .prepare(
            `INSERT INTO notices (id, kind, severity, title, message, action_url, action_label, code, reason,
               run_id, agent_id, task_id, status, created_at, dedupe_key, environment_id, subject_json)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?)`,
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
            notice.environmentId ?? null,
            notice.subject ? JSON.stringify(notice.subject) : null,
          );
      }
      if (notice.runId) {
        this.db.prepare('INSERT OR IGNORE INTO notice_runs (notice_id, run_id, linked_at) VALUES (?, ?, ?)').run(id, notice.runId, notice.createdAt);
      }
      return this.get(id)!;
    })();
  }

  /** Rewrites what an open notice says (the fix can change while its cause stays). */
  setContent(id: string, content: { message: string; actionUrl: string | null; actionLabel: string | null }): void {
    this.db.prepare('UPDATE notices SET message = ?, action_url = ?, action_label = ? WHERE id = ?').run(content.message, content.actionUrl, content.actionLabel, id);
  }

  /** An open notice's cause is gone; `resolution` says what fixed it, when that is known. */
  resolve(id: string, at: number, resolution: string | null): Notice | undefined {
    this.db.prepare("UPDATE notices SET status = 'resolved', resolved_at = ?, resolution = ? WHERE id = ? AND status = 'open'").run(at, resolution, id);
    return this.get(id);
  }

  /**
   * The operator puts a notice away: an open one, or a resolved one whose Run again they decline. Any
   * other resolved notice keeps its status (and a run-again one its rerun links); the check and the
   * write are one transaction, so a Run again claimed in between cannot be overwritten.
   */
  dismiss(id: string, at: number): Notice | undefined {
    return this.db.transaction(() => {
      const notice = this.get(id);
      if (!notice || !(notice.status === 'open' || notice.canRunAgain)) return notice;
      this.db.prepare("UPDATE notices SET status = 'dismissed', resolved_at = ? WHERE id = ?").run(at, id);
      return this.get(id);
    })();
  }

  /** The runs a notice stands for, oldest link first, with the run Run again started for each. */
  runs(id: string): NoticeRunRow[] {
    return this.db.prepare('SELECT run_id, rerun_run_id FROM notice_runs WHERE notice_id = ? ORDER BY linked_at, rowid').all(id) as NoticeRunRow[];
  }

  /**
   * Claims the notice's Run again. True exactly once per notice, so two clicks (or two windows) cannot
   * start its tasks twice.
   */
  claimRerun(id: string, at: number): boolean {
    return this.db.prepare('UPDATE notices SET rerun_at = ? WHERE id = ? AND rerun_at IS NULL').run(at, id).changes === 1;
  }

  rerunClaimed(id: string): boolean {
    const row = this.db.prepare('SELECT rerun_at FROM notices WHERE id = ?').get(id) as { rerun_at: number | null } | undefined;
    return row?.rerun_at !== null && row?.rerun_at !== undefined;
  }

  recordRerun(id: string, runId: string, rerunRunId: string): void {
    this.db.prepare('UPDATE notice_runs SET rerun_run_id = ? WHERE notice_id = ? AND run_id = ?').run(rerunRunId, id, runId);
  }

  private toNotice(row: NoticeRow): Notice {
    const runs = this.runs(row.id);
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
      environmentId: row.environment_id,
      status: row.status,
      createdAt: isoNow(row.created_at),
      resolvedAt: toIso(row.resolved_at),
      resolution: row.resolution,
      code: row.code,
      reason: row.reason,
      runIds: runs.map((run) => run.run_id),
      canRunAgain: row.status === 'resolved' && row.rerun_at === null && row.rerunnable_runs > 0,
      rerunRunIds: runs.flatMap((run) => (run.rerun_run_id ? [run.rerun_run_id] : [])),
    };
  }
}
