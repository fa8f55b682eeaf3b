import type { StoredAgent } from '../ledger/agents-repository';
import type { RunRow } from '../ledger/runs-repository';
import { resolveAgentLaunch } from '../agents/agent-profile';
import type { AttemptCause } from '../../shared/entities';
import type { SessionRequest } from '../providers/launch';
import { configFingerprint, savedAdmission, type Admission, type AdmissionResult } from './admission';
import { budgetStoppingRetry, endOverBudget } from './budget-stop';
import { setLongTimer } from '../platform/long-timer';
import type { ActiveRun, RunContext } from './run-context';
import type { RunNotices } from './notices/run-notices';

export interface RunSchedulerOptions {
  /** Admission for a new run of the agent, as the service asks it. */
  /** Admission of a queued run of the task on the agent. */
  admit: (agent: StoredAgent & { deleted: boolean }, taskId: string) => AdmissionResult;
  runNotices: RunNotices;
  /** Starts the next attempt of a run (the attempt runner). */
  /** Starts the run's next attempt, recording why: the run's first start, or a retry. */
  launch: (active: ActiveRun, session: SessionRequest, cause: Extract<AttemptCause, 'first' | 'retry'>) => Promise<void>;
}

/**
 * When runs start: the queue (oldest first, within each agent's capacity, admission asked again at
 * dequeue), deferral while a connection is being updated, and the wait between attempts. Retry times
 * are in the ledger (the failed attempt's `retry_at`), so a run waiting for a quota reset still waits
 * for it after the console restarts, and a wait of any length holds (long-timer.ts).
 */
export class RunScheduler {
  private pumping = false;
  /** A pump scheduled for runs deferred by admission (a connection being updated). */
  private pumpTimer: NodeJS.Timeout | null = null;
  /** Queued runs whose deferral the timeline already noted (one note per wait, not one per retry). */
  private readonly deferred = new Set<string>();

  constructor(
    private readonly context: RunContext,
    private readonly options: RunSchedulerOptions,
  ) {}

  /** Starts queued runs while their agents have capacity, oldest first. */
  pump(): void {
    const { context } = this;
    if (this.pumping || context.closing) return;
    this.pumping = true;
    try {
      for (const row of context.ledger.runs.withStatus(['queued'])) {
        const agent = context.ledger.agents.get(row.agent_id);
        if (!agent) continue;
        if (context.ledger.runs.activeCountByAgent(row.agent_id) >= agent.capacity) continue;
        // Admission is checked again at dequeue: the agent may have changed while the run waited.
        const verdict = this.options.admit(agent, row.task_id);
        if (!verdict.admitted && verdict.deferred) {
          // Stays queued: a connection being updated is a moment, not a failure.
          this.noteDeferral(row.id, verdict);
          continue;
        }
        this.deferred.delete(row.id);
        if (!verdict.admitted) {
          context.end(row.id, 'refused', verdict.failure);
          const task = context.ledger.tasks.get(row.task_id);
          this.options.runNotices.raiseOwnerNotice(row.id, agent, { id: row.task_id, title: task?.title ?? 'a task' }, verdict.failure);
          continue;
        }
        const admission = verdict.admission;
        if (!context.transition(row.id, 'admitted', { admissionJson: JSON.stringify(admission), configFingerprint: configFingerprint(admission) })) continue;
        void this.options.launch(this.activate(row.id, admission), { mode: 'new' }, 'first');
      }
    } finally {
      this.pumping = false;
    }
  }

  /** The timeline says once why a queued run waits; the pump looks again after the delay. */
  noteDeferral(runId: string, verdict: Extract<AdmissionResult, { deferred: true }>): void {
    const { context } = this;
    if (!this.deferred.has(runId)) {
      this.deferred.add(runId);
      context.note(runId, null, 'admission_deferred', {
        code: verdict.failure.code,
        message: verdict.failure.message,
        retryAt: new Date(context.now() + verdict.retryAfterMs).toISOString(),
      });
      context.log.info('run deferred', { runId, code: verdict.failure.code });
    }
    if (context.closing || this.pumpTimer) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, verdict.retryAfterMs);
  }

  /** A run has ended: its wait (if any) is forgotten, and what was queued behind it may start. */
  runEnded(runId: string): void {
    this.deferred.delete(runId);
    this.pump();
  }

  /** The run the console drives from here on, with what its admission resolved to. */
  activate(runId: string, admission: Admission): ActiveRun {
    const { context } = this;
    const agent = context.requireAgent(admission.agentId);
    const { provider, profile } = resolveAgentLaunch(context.options.catalog, agent);
    const active: ActiveRun = {
      runId,
      agentId: admission.agentId,
      admission,
      provider,
      profile,
      attemptNumber: context.ledger.runs.attempts(runId).length,
      attemptId: null,
      attempt: null,
      session: null,
      launch: null,
      stopping: new AbortController(),
      retryTimer: null,
      sessionId: null,
      sessionDir: null,
      sessionSource: null,
      attemptEvents: [],
      size: context.options.initialSize ?? { cols: 120, rows: 32 },
      attemptDone: null,
      secrets: new Set(),
    };
    context.active.set(runId, active);
    return active;
  }

  /** Waits until `retryAt` (already recorded on the failed attempt), then starts a fresh attempt. */
  scheduleRetry(active: ActiveRun, retryAt: number): void {
    active.retryTimer = setLongTimer(
      retryAt,
      () => {
        active.retryTimer = null;
        // The budget may have been spent while the run waited (by another run of the agent or on
        // its connection, or priced anew): then the retry does not start.
        const overBudget = budgetStoppingRetry(this.context, active);
        if (overBudget) {
          this.context.ledger.runs.clearPendingRetry(active.runId);
          return endOverBudget(this.context, active, overBudget);
        }
        // A retry is a fresh attempt: the failed one's session may hold a half-done turn.
        void this.options.launch(active, { mode: 'new' }, 'retry');
      },
      this.context.now,
    );
  }

  /** Stop while the run waits between attempts: nothing runs, so it ends at once. */
  cancelRetry(active: ActiveRun): boolean {
    if (!active.retryTimer) return false;
    active.retryTimer.cancel();
    active.retryTimer = null;
    this.context.ledger.runs.clearPendingRetry(active.runId);
    this.context.end(active.runId, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator while waiting to retry.' });
    return true;
  }

  /**
   * At start: a run that was waiting between attempts when the console stopped goes on waiting, for
   * the time recorded with its failed attempt (or retries at once if that time has passed). Returns
   * the runs taken up, which recovery then leaves alone.
   */
  restoreRetries(rows: readonly RunRow[]): Set<string> {
    const { context } = this;
    const restored = new Set<string>();
    for (const row of rows) {
      const last = context.ledger.runs.lastAttempt(row.id);
      const admission = savedAdmission(row.admission_json);
      const retryAt = last?.retryAt ? Date.parse(last.retryAt) : Number.NaN;
      // Only a run that was waiting: one whose retry had begun (preparing) was live, and is stranded.
      if (row.status !== 'running' || !last || last.status !== 'failed' || Number.isNaN(retryAt) || !admission) continue;
      if (!context.ledger.agents.get(admission.agentId)) continue;
      const active = this.activate(row.id, admission);
      context.note(row.id, last.id, 'retry_scheduled', {
        code: last.failureCode,
        nextAttempt: active.attemptNumber + 1,
        retryAt: new Date(retryAt).toISOString(),
        message: 'The console restarted while the run waited; the retry keeps its time.',
      });
      context.log.info('run retry restored', { runId: row.id, retryAt: new Date(retryAt).toISOString() });
      this.scheduleRetry(active, retryAt);
      restored.add(row.id);
    }
    return restored;
  }

  /** The console is closing: no timer fires any more. Retry times stay in the ledger for the next start. */
  close(): void {
    if (this.pumpTimer) clearTimeout(this.pumpTimer);
    this.pumpTimer = null;
    for (const active of this.context.active.values()) {
      active.retryTimer?.cancel();
      active.retryTimer = null;
    }
  }
}
