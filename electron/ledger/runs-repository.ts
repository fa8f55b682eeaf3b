import type { Attempt, AttemptCause, RunEvent, RunStatus, RunSummary } from '../../shared/entities';
import type { LandingState, LandingStrategy, RunLanding } from '../../shared/landing';
import type { OperatorErrorShape } from '../../shared/errors';
import type { LedgerDb } from './database-handle';
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
  archived_at: number | null;
  host_unreachable_at: number | null;
  host_work_unfetched_at: number | null;
  landing_state: LandingState;
  landed_commit: string | null;
  landed_target: string | null;
  landed_strategy: LandingStrategy | null;
  landed_at: number | null;
  landed_by: string | null;
  pushed_remote: string | null;
  pushed_branch: string | null;
  pushed_at: number | null;
  compare_url: string | null;
  pull_request_url: string | null;
  discarded_at: number | null;
  files_removed_at: number | null;
  disk_bytes: number | null;
}

/** What a landing under way is about to do (runs.landing_intent_json). */
export interface LandingIntent {
  commit: string;
  runTip: string;
  target: string;
  strategy: LandingStrategy;
  at: number;
  by: string;
}

/** The run row itself, for the run service (which owns what the JSON columns hold). */
export interface RunRow {
  id: string;
  task_id: string;
  agent_id: string;
  status: RunStatus;
  admission_json: string | null;
  config_fingerprint: string | null;
  base_revision: string | null;
  task_root: string | null;
  cwd: string | null;
  failure_json: string | null;
  submission_json: string | null;
  /** What preparation did (shared runSetupSchema; runs/attempt/attempt-setup.ts writes it). */
  setup_json: string | null;
  archived_at: number | null;
  /** The project's branch the run started from (null: a detached commit, or a copy). */
  base_branch: string | null;
  landing_state: LandingState;
  landed_commit: string | null;
  landed_run_tip: string | null;
  landed_target: string | null;
  landed_at: number | null;
  discarded_at: number | null;
  files_removed_at: number | null;
  disk_bytes: number | null;
  disk_measured_at: number | null;
  /** What the run's Changes showed when its files were removed (shared runDiffSchema). */
  diff_summary_json: string | null;
  /** A landing under way: the target's new commit, written just before the branch moves (LandingIntent). */
  landing_intent_json: string | null;
  /** Since when the run's work is on its SSH host only, its fetch having failed (migration 18); null once it came back. */
  host_work_unfetched_at: number | null;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
}

interface AttemptRow {
  id: string;
  run_id: string;
  number: number;
  cause: AttemptCause | null;
  status: Attempt['status'];
  failure_code: string | null;
  exit_code: number | null;
  signal: string | null;
  retry_at: number | null;
  started_at: number | null;
  ended_at: number | null;
}

interface LocatorRow {
  kind: 'process' | 'session';
  payload_json: string;
  revision: string;
  updated_at: number;
}

interface EventRow {
  id: number;
  attempt_number: number | null;
  kind: string;
  payload_json: string;
  created_at: number;
}

export interface RunListFilter {
  status?: RunStatus | undefined;
  agentId?: string | undefined;
  projectId?: string | undefined;
  taskId?: string | undefined;
  landingState?: LandingState | undefined;
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

const summarySelect = `
  SELECT r.id, r.task_id, t.title AS task_title, r.agent_id, a.name AS agent_name, t.project_id, r.status,
         (SELECT count(*) FROM attempts WHERE run_id = r.id) AS attempt,
         r.created_at, r.started_at, r.ended_at, r.archived_at,
         r.landing_state, r.landed_commit, r.landed_target, r.landed_strategy, r.landed_at, r.landed_by,
         r.pushed_remote, r.pushed_branch, r.pushed_at, r.compare_url, r.pull_request_url,
         r.discarded_at, r.files_removed_at, r.disk_bytes, r.host_unreachable_at, r.host_work_unfetched_at
  FROM runs r JOIN tasks t ON t.id = r.task_id JOIN agents a ON a.id = r.agent_id`;

function toSummary(row: RunSummaryRow): RunSummary {
  return {
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
    archived: row.archived_at !== null,
    landing: toLanding(row),
    hostUnreachableSince: toIso(row.host_unreachable_at),
    hostWorkLeftSince: toIso(row.host_work_unfetched_at),
  };
}

function toLanding(row: RunSummaryRow): RunLanding {
  return {
    state: row.landing_state,
    landed:
      row.landed_commit && row.landed_target && row.landed_strategy && row.landed_at !== null
        ? { commit: row.landed_commit, target: row.landed_target, strategy: row.landed_strategy, at: isoNow(row.landed_at), by: row.landed_by ?? '' }
        : null,
    pushed:
      row.pushed_remote && row.pushed_branch && row.pushed_at !== null
        ? { remote: row.pushed_remote, branch: row.pushed_branch, at: isoNow(row.pushed_at), compareUrl: row.compare_url, pullRequestUrl: row.pull_request_url }
        : null,
    discardedAt: toIso(row.discarded_at),
    filesRemovedAt: toIso(row.files_removed_at),
    diskBytes: row.files_removed_at === null ? row.disk_bytes : null,
  };
}

/**
 * An attempt as the attempts table holds it. Where its output starts is the output's to say (see
 * OutputRepository.firstOffsets), so it is not here.
 */
export type AttemptRecord = Omit<Attempt, 'outputOffset'> & { id: string };

function toAttempt(row: AttemptRow): AttemptRecord {
  return {
    id: row.id,
    number: row.number,
    cause: row.cause,
    status: row.status,
    failureCode: row.failure_code,
    exitCode: row.exit_code,
    signal: row.signal,
    retryAt: toIso(row.retry_at),
    startedAt: toIso(row.started_at),
    endedAt: toIso(row.ended_at),
  };
}

export class RunsRepository {
  constructor(private readonly db: LedgerDb) {}

  /** Newest first, keyset-paginated so that page 300 of a long history costs what page 1 does. */
  list(filter: RunListFilter = {}): { runs: RunSummary[]; nextCursor: string | null } {
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
    if (filter.taskId) {
      where.push('r.task_id = ?');
      params.push(filter.taskId);
    }
    if (filter.landingState) {
      where.push('r.landing_state = ?');
      params.push(filter.landingState);
    }
    const cursor = filter.before ? decodeCursor(filter.before) : undefined;
    if (cursor) {
      where.push('(r.created_at < ? OR (r.created_at = ? AND r.id < ?))');
      params.push(cursor.createdAt, cursor.createdAt, cursor.id);
    }
    const rows = this.db
      .prepare(`${summarySelect} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY r.created_at DESC, r.id DESC LIMIT ?`)
      .all(...params, limit + 1) as RunSummaryRow[];
    const page = rows.slice(0, limit);
    return { runs: page.map(toSummary), nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!) : null };
  }

  summary(runId: string): RunSummary | undefined {
    const row = this.db.prepare(`${summarySelect} WHERE r.id = ?`).get(runId) as RunSummaryRow | undefined;
    return row && toSummary(row);
  }

  row(runId: string): RunRow | undefined {
    return this.db.prepare('SELECT * FROM runs WHERE id = ?').get(runId) as RunRow | undefined;
  }

  /** Runs in these states, oldest first (the queue's order). */
  withStatus(statuses: readonly RunStatus[]): RunRow[] {
    return this.db
      .prepare(`SELECT * FROM runs WHERE status IN (${statuses.map(() => '?').join(', ')}) ORDER BY created_at, id`)
      .all(...statuses) as RunRow[];
  }

  insert(run: { id: string; taskId: string; agentId: string; status: RunStatus; createdAt: number; failure?: OperatorErrorShape | null }): void {
    this.db
      .prepare(
        `INSERT INTO runs (id, task_id, agent_id, status, failure_json, created_at, ended_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        run.id,
        run.taskId,
        run.agentId,
        run.status,
        run.failure ? JSON.stringify(run.failure) : null,
        run.createdAt,
        run.status === 'refused' ? run.createdAt : null,
      );
  }

  /**
   * Changes a run's record, not its status: status changes go through `transitionRun` (runs/
   * run-transitions.ts), which checks them against the lifecycle and calls `setStatus`.
   */
  update(runId: string, changes: RunRecordChanges): void {
    const columns = recordColumns(changes);
    const names = Object.keys(columns);
    if (names.length === 0) return;
    this.db.prepare(`UPDATE runs SET ${names.map((name) => `${name} = ?`).join(', ')} WHERE id = ?`).run(...Object.values(columns), runId);
  }

  /**
   * Moves a run from one status to another, with the record changes that go with it, only if it is
   * still in `from` (compare and set): false when it was not, so two writers can't both move it.
   */
  setStatus(runId: string, from: RunStatus, to: RunStatus, changes: RunRecordChanges = {}): boolean {
    const columns = { ...recordColumns(changes), status: to };
    const names = Object.keys(columns);
    return (
      this.db
        .prepare(`UPDATE runs SET ${names.map((name) => `${name} = ?`).join(', ')} WHERE id = ? AND status = ?`)
        .run(...Object.values(columns), runId, from).changes === 1
    );
  }

  /** Clears the last attempt's pending retry time: the wait it stood for is over without a retry (a stop, a restart's stranding). */
  clearPendingRetry(runId: string): void {
    this.db
      .prepare('UPDATE attempts SET retry_at = NULL WHERE id = (SELECT id FROM attempts WHERE run_id = ? ORDER BY number DESC LIMIT 1)')
      .run(runId);
  }

  /** Every run of the project's tasks. */
  idsOfProject(projectId: string): string[] {
    return this.db.prepare('SELECT r.id FROM runs r JOIN tasks t ON t.id = r.task_id WHERE t.project_id = ?').pluck().all(projectId) as string[];
  }

  /** Removes the run and everything recorded under it (attempts, events, output, locators). */
  delete(runId: string): boolean {
    return this.db.prepare('DELETE FROM runs WHERE id = ?').run(runId).changes === 1;
  }

  activeCountByAgent(agentId: string): number {
    return (
      this.db
        .prepare("SELECT count(*) AS n FROM runs WHERE agent_id = ? AND status IN ('admitted', 'preparing', 'setting_up', 'running')")
        .get(agentId) as { n: number }
    ).n;
  }

  hasOpenRuns(agentId: string): boolean {
    return (
      this.db
        .prepare("SELECT count(*) AS n FROM runs WHERE agent_id = ? AND status IN ('queued', 'admitted', 'preparing', 'setting_up', 'running')")
        .get(agentId) as { n: number }
    ).n > 0;
  }

  // Landing and the task root's files ----------------------------------------------------------

  /** The run's commits landed in `target` (the commit it points at now). */
  recordLanded(runId: string, landed: { commit: string; runTip: string; target: string; strategy: LandingStrategy; at: number; by: string }): void {
    this.db
      .prepare(
        `UPDATE runs SET landing_state = CASE WHEN landing_state = 'pushed' THEN 'pushed' ELSE 'landed' END,
           landed_commit = ?, landed_run_tip = ?, landed_target = ?, landed_strategy = ?, landed_at = ?, landed_by = ?,
           landing_intent_json = NULL WHERE id = ?`,
      )
      .run(landed.commit, landed.runTip, landed.target, landed.strategy, landed.at, landed.by, runId);
  }

  /** Kept just before a landing moves its target branch; null clears it (the landing was recorded, or refused). */
  recordLandingIntent(runId: string, intent: LandingIntent | null): void {
    this.db.prepare('UPDATE runs SET landing_intent_json = ? WHERE id = ?').run(intent ? JSON.stringify(intent) : null, runId);
  }

  recordPushed(runId: string, pushed: { remote: string; branch: string; at: number; compareUrl: string | null }): void {
    this.db
      .prepare("UPDATE runs SET landing_state = 'pushed', pushed_remote = ?, pushed_branch = ?, pushed_at = ?, compare_url = ? WHERE id = ?")
      .run(pushed.remote, pushed.branch, pushed.at, pushed.compareUrl, runId);
  }

  recordPullRequest(runId: string, url: string): void {
    this.db.prepare('UPDATE runs SET pull_request_url = ? WHERE id = ?').run(url, runId);
  }

  /** The address is one the console derived and recorded on a run (a compare page, a pull request): the desktop window may open it. */
  isRecordedForgeAddress(url: string): boolean {
    return this.db.prepare('SELECT 1 FROM runs WHERE compare_url = ? OR pull_request_url = ? LIMIT 1').get(url, url) !== undefined;
  }

  recordDiscarded(runId: string, at: number): void {
    this.db.prepare("UPDATE runs SET landing_state = 'discarded', discarded_at = ? WHERE id = ?").run(at, runId);
  }

  /** The run's task root is gone (archived, discarded, cleaned up); what its Changes showed is kept. */
  recordFilesRemoved(runId: string, at: number, diffSummaryJson: string | null): void {
    this.db
      .prepare('UPDATE runs SET files_removed_at = ?, diff_summary_json = coalesce(?, diff_summary_json), disk_bytes = NULL WHERE id = ?')
      .run(at, diffSummaryJson, runId);
  }

  recordDiskSize(runId: string, bytes: number, at: number): void {
    this.db.prepare('UPDATE runs SET disk_bytes = ?, disk_measured_at = ? WHERE id = ? AND files_removed_at IS NULL').run(bytes, at, runId);
  }

  /** Since when the run's SSH host cannot be reached (epoch ms), or null while it answers (issue 28). */
  hostUnreachableSince(runId: string): number | null {
    const row = this.db.prepare('SELECT host_unreachable_at FROM runs WHERE id = ?').get(runId) as { host_unreachable_at: number | null } | undefined;
    return row?.host_unreachable_at ?? null;
  }

  setHostUnreachableSince(runId: string, since: number | null): void {
    this.db.prepare('UPDATE runs SET host_unreachable_at = ? WHERE id = ?').run(since, runId);
  }

  /** Since when the run's work is on its SSH host only, its fetch having failed (epoch ms); null once it came back. */
  hostWorkUnfetchedSince(runId: string): number | null {
    const row = this.db.prepare('SELECT host_work_unfetched_at FROM runs WHERE id = ?').get(runId) as { host_work_unfetched_at: number | null } | undefined;
    return row?.host_work_unfetched_at ?? null;
  }

  /** Marks the run's work as left on its host (kept from the first failure on), or as back (null). */
  setHostWorkUnfetched(runId: string, since: number | null): void {
    this.db.prepare('UPDATE runs SET host_work_unfetched_at = CASE WHEN ? IS NULL THEN NULL ELSE coalesce(host_work_unfetched_at, ?) END WHERE id = ?').run(since, since, runId);
  }

  recordBaseBranch(runId: string, branch: string | null): void {
    this.db.prepare('UPDATE runs SET base_branch = ? WHERE id = ?').run(branch, runId);
  }

  /** The agent's last message of the run (its own summary of what it did), from the timeline. */
  lastAssistantMessage(runId: string): string | null {
    const row = this.db
      .prepare(
        `SELECT json_extract(payload_json, '$.text') AS text FROM run_events
         WHERE run_id = ? AND kind = 'message' AND json_extract(payload_json, '$.role') = 'assistant'
         ORDER BY id DESC LIMIT 1`,
      )
      .get(runId) as { text: unknown } | undefined;
    return typeof row?.text === 'string' && row.text.trim() ? row.text : null;
  }

  /**
   * The tokens the run used (input plus output) as the usage ledger counted them per attempt
   * (usage_records, written by usage/usage-recorder.ts), or null when its CLI reported none. Not a sum
   * of the raw usage events: a CLI that reports the session's running total (Codex) would be counted
   * again for every turn.
   */
  reportedTokens(runId: string): number | null {
    const row = this.db
      .prepare('SELECT count(*) AS n, sum(input_tokens + output_tokens) AS total FROM usage_records WHERE run_id = ?')
      .get(runId) as { n: number; total: number | null };
    return row.n > 0 ? Math.max(0, Math.round(row.total ?? 0)) : null;
  }

  /** Ended runs whose task root is still on disk, oldest first: what Clean up and the disk figures look at. */
  withFiles(): RunRow[] {
    return this.db
      .prepare(
        `SELECT * FROM runs WHERE task_root IS NOT NULL AND files_removed_at IS NULL
           AND status IN ('succeeded', 'failed', 'cancelled', 'stranded') ORDER BY created_at, id`,
      )
      .all() as RunRow[];
  }

  /** A task's runs, oldest first. */
  ofTask(taskId: string): RunRow[] {
    return this.db.prepare('SELECT * FROM runs WHERE task_id = ? ORDER BY created_at, id').all(taskId) as RunRow[];
  }

  // Attempts ---------------------------------------------------------------------------------------

  /** A new attempt, with why it started (recorded now, never worked out later). */
  insertAttempt(attempt: { id: string; runId: string; number: number; cause: AttemptCause; startedAt: number }): void {
    this.db
      .prepare("INSERT INTO attempts (id, run_id, number, cause, status, started_at) VALUES (?, ?, ?, ?, 'running', ?)")
      .run(attempt.id, attempt.runId, attempt.number, attempt.cause, attempt.startedAt);
  }

  /**
   * Ends an attempt, only if it is still in `from` (compare and set): false when it was not. The one
   * caller is runs/attempt/attempt-record.ts, which checks the move against the attempt's table first.
   */
  endAttempt(
    attemptId: string,
    from: Attempt['status'],
    outcome: { status: Attempt['status']; failureCode: string | null; exitCode: number | null; signal: string | null; retryAt: number | null; endedAt: number },
  ): boolean {
    return (
      this.db
        .prepare('UPDATE attempts SET status = ?, failure_code = ?, exit_code = ?, signal = ?, retry_at = ?, ended_at = ? WHERE id = ? AND status = ?')
        .run(outcome.status, outcome.failureCode, outcome.exitCode, outcome.signal, outcome.retryAt, outcome.endedAt, attemptId, from).changes === 1
    );
  }

  attempt(attemptId: string): AttemptRecord | undefined {
    const row = this.db.prepare('SELECT * FROM attempts WHERE id = ?').get(attemptId) as AttemptRow | undefined;
    return row && toAttempt(row);
  }

  attempts(runId: string): AttemptRecord[] {
    return (this.db.prepare('SELECT * FROM attempts WHERE run_id = ? ORDER BY number').all(runId) as AttemptRow[]).map(toAttempt);
  }

  lastAttempt(runId: string): AttemptRecord | undefined {
    const row = this.db.prepare('SELECT * FROM attempts WHERE run_id = ? ORDER BY number DESC LIMIT 1').get(runId) as AttemptRow | undefined;
    return row && toAttempt(row);
  }

  // Locators ---------------------------------------------------------------------------------------

  saveLocator(runId: string, kind: 'process' | 'session', payload: Record<string, unknown>, revision: string, at: number): void {
    this.db
      .prepare(
        `INSERT INTO locators (run_id, kind, payload_json, revision, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, kind) DO UPDATE SET payload_json = excluded.payload_json, revision = excluded.revision,
           updated_at = excluded.updated_at`,
      )
      .run(runId, kind, JSON.stringify(payload), revision, at, at);
  }

  locators(runId: string): Array<{ kind: 'process' | 'session'; data: Record<string, unknown>; revision: string; updatedAt: string }> {
    return (this.db.prepare('SELECT * FROM locators WHERE run_id = ? ORDER BY kind').all(runId) as LocatorRow[]).map((row) => ({
      kind: row.kind,
      data: JSON.parse(row.payload_json) as Record<string, unknown>,
      revision: row.revision,
      updatedAt: isoNow(row.updated_at),
    }));
  }

  // Timeline ---------------------------------------------------------------------------------------

  appendEvents(runId: string, attemptId: string | null, events: ReadonlyArray<{ kind: string; data: Record<string, unknown> }>, at: number): void {
    const insert = this.db.prepare('INSERT INTO run_events (run_id, attempt_id, kind, payload_json, created_at) VALUES (?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const event of events) insert.run(runId, attemptId, event.kind, JSON.stringify(event.data), at);
    })();
  }

  events(runId: string, afterId: number, limit: number): RunEvent[] {
    const rows = this.db
      .prepare(
        `SELECT e.id, a.number AS attempt_number, e.kind, e.payload_json, e.created_at
         FROM run_events e LEFT JOIN attempts a ON a.id = e.attempt_id
         WHERE e.run_id = ? AND e.id > ? ORDER BY e.id LIMIT ?`,
      )
      .all(runId, afterId, limit) as EventRow[];
    return rows.map((row) => ({
      id: row.id,
      attempt: row.attempt_number,
      kind: row.kind,
      at: isoNow(row.created_at),
      data: JSON.parse(row.payload_json) as Record<string, unknown>,
    }));
  }

  /**
   * The run's egress decisions (`egress` events, one per request the proxy saw), one row per host,
   * port and verdict, most recent first: counted in SQL, so a run that retried a host ten thousand
   * times is still one row, and the panel gets rows, not events. `limit + 1` rows are read so the
   * caller can say there were more.
   */
  egressHosts(runId: string, limit: number): Array<{ host: string; port: number; allowed: boolean; count: number; firstAt: number; lastAt: number }> {
    const rows = this.db
      .prepare(
        `SELECT CAST(json_extract(payload_json, '$.host') AS TEXT) AS host,
                CAST(json_extract(payload_json, '$.port') AS INTEGER) AS port,
                CASE WHEN json_extract(payload_json, '$.allowed') THEN 1 ELSE 0 END AS allowed,
                count(*) AS count, min(created_at) AS first_at, max(created_at) AS last_at
         FROM run_events WHERE run_id = ? AND kind = 'egress'
         GROUP BY 1, 2, 3 ORDER BY last_at DESC, host, port LIMIT ?`,
      )
      .all(runId, limit + 1) as Array<{ host: string | null; port: number | null; allowed: number; count: number; first_at: number; last_at: number }>;
    return rows.map((row) => ({
      host: row.host ?? '',
      port: row.port ?? 0,
      allowed: row.allowed === 1,
      count: row.count,
      firstAt: row.first_at,
      lastAt: row.last_at,
    }));
  }
}

/** What a run's record may change besides its status. */
export interface RunRecordChanges {
  admissionJson?: string;
  configFingerprint?: string;
  taskRoot?: string | null;
  cwd?: string | null;
  baseRevision?: string | null;
  failure?: OperatorErrorShape | null;
  submissionJson?: string | null;
  setupJson?: string | null;
  startedAt?: number | null;
  endedAt?: number | null;
  archivedAt?: number | null;
}

function recordColumns(changes: RunRecordChanges): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (changes.admissionJson !== undefined) columns.admission_json = changes.admissionJson;
  if (changes.configFingerprint !== undefined) columns.config_fingerprint = changes.configFingerprint;
  if (changes.taskRoot !== undefined) columns.task_root = changes.taskRoot;
  if (changes.cwd !== undefined) columns.cwd = changes.cwd;
  if (changes.baseRevision !== undefined) columns.base_revision = changes.baseRevision;
  if (changes.failure !== undefined) columns.failure_json = changes.failure ? JSON.stringify(changes.failure) : null;
  if (changes.submissionJson !== undefined) columns.submission_json = changes.submissionJson;
  if (changes.setupJson !== undefined) columns.setup_json = changes.setupJson;
  if (changes.startedAt !== undefined) columns.started_at = changes.startedAt;
  if (changes.endedAt !== undefined) columns.ended_at = changes.endedAt;
  if (changes.archivedAt !== undefined) columns.archived_at = changes.archivedAt;
  return columns;
}
