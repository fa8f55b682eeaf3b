import type { TokenCounts } from '../../shared/usage';
import type { EventHub } from '../events/event-hub';
import type { Ledger } from '../ledger/ledger';
import type { UsageRecord } from '../ledger/usage-repository';
import type { Logger } from '../platform/log';
import type { ProviderEntry } from '../providers/catalog';
import type { Admission } from '../ledger/run-admission';
import { billingOf, priceProviderOf } from './run-billing';
import { AttemptUsageCounter, type UsageEvent } from './usage-counter';

/** The attempt whose usage is recorded, as the run lifecycle knows it. */
export interface RecordedAttempt {
  runId: string;
  attemptId: string;
  attemptNumber: number;
  agentId: string;
  admission: Admission;
  provider: ProviderEntry;
  /**
   * Whether the attempt continues the CLI's session (a resume). A fresh launch starts the CLI's
   * counters at nothing, whatever its session is called; a resumed one starts where the run's
   * previous attempt on that session left them.
   */
  resumed: boolean;
  /** The CLI's native session when a report arrives (Codex names it in its stream, before its first report). */
  sessionId(): string | null;
}

export interface UsageRecorderDeps {
  ledger: Ledger;
  events: EventHub;
  log: Logger;
  now: () => number;
}

/** The parts of a usage record that stay what they were at the attempt's first report. */
type RecordHead = Omit<UsageRecord, 'updatedAt' | 'reports' | 'tokens' | 'sessionId' | 'sessionTotal' | 'counting'>;

/**
 * Records one attempt's token usage in the ledger (`usage_records`) as its CLI reports it: each
 * report rewrites the attempt's row with its tokens so far, counted the way the CLI reports
 * (usage-counter.ts), and says so with `usageChanged`. A CLI that reports the session's running total
 * (Codex) is counted, in a resumed attempt, from the total the run's previous attempt on that session
 * left, so a resumed turn adds only what it used; a fresh session is counted whole. The row names the run's task, project, agent and connection as they are
 * now, so the Usage page and budgets keep them after any of those is renamed or deleted. Only
 * numbers and names are written: nothing a CLI printed, nothing secret.
 */
export class AttemptUsageRecorder {
  private readonly counter = new AttemptUsageCounter();
  private head: RecordHead | null = null;
  private readonly baselines = new Map<string, TokenCounts | null>();
  private failed = false;

  constructor(
    private readonly deps: UsageRecorderDeps,
    private readonly attempt: RecordedAttempt,
  ) {}

  report(event: UsageEvent): void {
    this.counter.add(event);
    try {
      this.write();
    } catch (error) {
      // The timeline and the run go on: a usage row that could not be written is a gap in the
      // figures, said once in the log, not a failed run.
      if (!this.failed) this.deps.log.warn('usage could not be recorded', { runId: this.attempt.runId, attempt: this.attempt.attemptNumber, error: String(error) });
      this.failed = true;
    }
  }

  private write(): void {
    const { ledger } = this.deps;
    const head = (this.head ??= this.recordHead());
    const sessionId = this.attempt.sessionId();
    const sessionTotal = this.counter.sessionTotal;
    const baseline = sessionTotal && sessionId && this.attempt.resumed ? this.baselineFor(sessionId) : null;
    ledger.usage.record({
      ...head,
      counting: this.counter.counting ?? 'per_call',
      updatedAt: this.deps.now(),
      reports: this.counter.reports,
      tokens: this.counter.tokens(baseline),
      sessionId,
      sessionTotal,
    });
    this.deps.events.emit('usageChanged', { runIds: [this.attempt.runId] });
  }

  /** What the session had before this attempt: the total the run's latest earlier attempt on it reported. */
  private baselineFor(sessionId: string): TokenCounts | null {
    if (!this.baselines.has(sessionId)) {
      this.baselines.set(sessionId, this.deps.ledger.usage.sessionTotalBefore(this.attempt.runId, sessionId, this.attempt.attemptNumber));
    }
    return this.baselines.get(sessionId) ?? null;
  }

  private recordHead(): RecordHead {
    const { ledger } = this.deps;
    const { runId, attemptId, attemptNumber, admission, provider, agentId } = this.attempt;
    const run = ledger.runs.row(runId);
    const task = run ? ledger.tasks.get(run.task_id) : undefined;
    const connection = admission.connection;
    const startedAt = ledger.runs.attempts(runId).find((entry) => entry.id === attemptId)?.startedAt;
    return {
      attemptId,
      runId,
      attemptNumber,
      taskId: run?.task_id ?? '',
      taskTitle: task?.title ?? '',
      projectId: task?.projectId ?? '',
      agentId,
      agentName: ledger.agents.get(agentId)?.name ?? admission.agentName,
      connectionId: connection?.id ?? null,
      connectionName: connection ? (ledger.connections.get(connection.id)?.name ?? connection.name) : null,
      providerId: admission.providerId,
      priceProvider: priceProviderOf(connection, provider, admission.model),
      model: admission.model,
      billing: billingOf(connection),
      startedAt: startedAt ? Date.parse(startedAt) : this.deps.now(),
    };
  }
}
