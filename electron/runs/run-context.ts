import { createHash } from 'node:crypto';
import type { RunStatus } from '../../shared/entities';
import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import type { ConnectionService } from '../connections/connection-service';
import { SecretRedactor } from '../platform/secret-redaction';
import type { Ledger } from '../ledger/ledger';
import type { RunRecordChanges } from '../ledger/runs-repository';
import type { Logger } from '../platform/log';
import type { NoticeService } from '../notices/notice-service';
import type { ProjectSetupService } from '../projects/project-setup-service';
import type { SandboxProbe } from '../sandbox/sandbox-probe';
import { canonicalJson, type LaunchProfile, type ProviderCatalog, type ProviderEntry } from '../providers/catalog';
import type { TimelineEvent } from '../providers/events/timeline-event';
import type { OutputFanout } from '../pty/output-fanout';
import type { PtySession } from '../pty/pty-session';
import type { EventHub } from '../events/event-hub';
import type { RunEventBus } from '../events/run-events';
import { configFingerprint, type Admission, type SandboxState } from './admission';
import type { ConfinedLaunch } from './attempt/attempt-confinement';
import type { RunAttempt } from './attempt/attempt-record';
import type { LongTimer } from '../platform/long-timer';
import { transitionRun } from './run-transitions';
import type { Budget, PriceTable } from '../../shared/usage';
import type { BudgetHolder, PriceTarget } from '../usage/budget-rule';
import type { RunHosts } from '../hosts/remote-run/host-connection';

export interface RunServiceOptions {
  ledger: Ledger;
  catalog: ProviderCatalog;
  events: EventHub;
  /** The run lifecycle's events (attempt started and ended, timeline entries, run ended), which reactions subscribe to. */
  lifecycle: RunEventBus;
  notices: NoticeService;
  /** AI connections: admission asks about the agent's, and a launch opens its secret. */
  connections: ConnectionService;
  /** Projects' setup (files to copy, the setup command) and the variable layers a run's environment merges. */
  projectSetup: ProjectSetupService;
  fanout: OutputFanout;
  dataDir: string;
  log: Logger;
  /** The operator's environment: confinement copies only its allow-list from it. */
  operatorEnv?: NodeJS.ProcessEnv | undefined;
  operatorHome?: string | undefined;
  /** The sandbox probe's answer, once the console has probed (what admission asks). */
  sandbox?: () => SandboxState | null;
  /** The probe itself: how runs and the console's tools are sandboxed here. Null where nothing probes (tests without a sandbox). */
  sandboxProbe?: SandboxProbeSource;
  /**
   * Budgets (issue 14): admission holds a new run to its agent's and its delivered connection's, a
   * run that crossed one is not retried, and a "Budget reached" notice says what let it go. Absent,
   * nothing is budgeted.
   */
  budgets?: RunBudgets | undefined;
  now?: () => number;
  /** Under this many free bytes on the data directory's disk new runs are refused (disk-full-notices.ts has the default). */
  minFreeDiskBytes?: number | undefined;
  /** How often free space is looked at while a Disk full notice is open. */
  diskCheckIntervalMs?: number | undefined;
  /** How long a failing output write is retried before the run is ended (tests shorten or lengthen it). */
  outputGiveUpAfterMs?: number | undefined;
  /** Terminal size before the viewer has said how big its pane is. */
  initialSize?: { cols: number; rows: number };
  /** SSH hosts (issue 28): how a run whose environment names one reaches it. */
  hosts?: RunHosts | undefined;
}

/** What runs ask of the budgets (electron/usage/budget-service.ts). */
export interface RunBudgets {
  /** The budgets holding a run of the agent given this connection's key, with what they spent now. */
  holding(holder: BudgetHolder): Budget[];
  /** What let a budget's refused runs start again since `since` (ms), in words. */
  recovery(budgetId: string, since: number): string;
  /** The price table in use: a money budget cannot count a run whose model has no price. */
  priceTable(): PriceTable;
  /** What let the runs a money budget could not count start again (the notice links to this model's price), in words. */
  pricedRecovery(target: PriceTarget | null): string;
}

export interface SandboxProbeSource {
  /** The answer, or null while the probe has not answered yet. */
  current(): SandboxProbe | null;
  /** The answer, once there is one. */
  ready(): Promise<SandboxProbe | null>;
}

/** Why a run's work is being called off: the operator's Stop, or the console closing. */
export type StopReason = 'operator' | 'shutdown';

/** A run the console is driving right now (queued runs are only in the ledger). */
export interface ActiveRun {
  runId: string;
  agentId: string;
  admission: Admission;
  provider: ProviderEntry;
  profile: LaunchProfile;
  attemptNumber: number;
  attemptId: string | null;
  /** The current attempt's record: every end of it goes through its `finish` (attempt/attempt-record.ts). */
  attempt: RunAttempt | null;
  session: PtySession | null;
  launch: ConfinedLaunch | null;
  /**
   * Aborted by Stop or by the console closing. Its signal goes into every await of an attempt's
   * steps (attempt/attempt-steps.ts): the long waits (the sandbox probe, a busy connection) end on
   * it, and work that must finish despite it (the task root, the confinement) takes it right after,
   * so a Stop during preparation is never lost. Its reason is a `StopReason`.
   */
  stopping: AbortController;
  /** Set while the run waits between attempts. */
  retryTimer: LongTimer | null;
  /** The CLI's native session, once known (from the argv, or from its JSON stream). */
  sessionId: string | null;
  sessionDir: string | null;
  /**
   * Where the session id comes from. `argv`: the console chose it and resumes by it, whatever id the
   * CLI's stream reports (Pi reports an internal id of the session file the console named). `stream`:
   * only the stream knows it (Codex's thread id). Null: no session the console can resume (a command,
   * an ephemeral run); an id the stream reports is still recorded.
   */
  sessionSource: 'argv' | 'stream' | null;
  /** Timeline events of the current attempt, for the failure classifier. */
  attemptEvents: TimelineEvent[];
  size: { cols: number; rows: number };
  /** Settles once the current attempt is over: prepared, run, its output all in the ledger. */
  attemptDone: Promise<void> | null;
  /**
   * Every secret delivered to the run so far (a connection's key, per attempt). Cut out of its output,
   * its timeline and the console's own notes about it before they are written or sent.
   */
  secrets: Set<string>;
}

export function stopReason(active: ActiveRun): StopReason | null {
  return active.stopping.signal.aborted ? (active.stopping.signal.reason as StopReason) : null;
}

/** How often a run's end is written again while the ledger refuses it. */
const endRetryMs = 2000;

/** Timeline updates are announced at most this often per run. */
const timelineNoticeMs = 100;

export function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/**
 * What the parts of the run lifecycle (the scheduler, the attempt runner, the queries, the service's
 * operator actions) share: the ledger, the runs being driven, status changes, and the run's timeline
 * and announcements.
 */
export class RunContext {
  readonly ledger: Ledger;
  readonly log: Logger;
  readonly now: () => number;
  readonly lifecycle: RunEventBus;
  readonly active = new Map<string, ActiveRun>();
  /** The console is closing: nothing new starts, and a run's state is left for the next start to find. */
  closing = false;
  private readonly timelineTimers = new Map<string, NodeJS.Timeout>();

  constructor(readonly options: RunServiceOptions) {
    this.ledger = options.ledger;
    this.log = options.log;
    this.lifecycle = options.lifecycle;
    this.now = options.now ?? Date.now;
  }

  /** A status change, through the lifecycle's table (run-transitions.ts), announced when it happened. */
  transition(runId: string, to: RunStatus, changes: RunRecordChanges = {}): boolean {
    const moved = transitionRun(this, runId, to, changes);
    if (moved) this.announce(runId);
    return moved;
  }

  /** Ends the run (refused, cancelled, failed, succeeded): it is no longer driven, and the bus hears it (the queue moves). */
  end(runId: string, status: RunStatus, failure: OperatorErrorShape | null): void {
    this.active.delete(runId);
    if (this.transition(runId, status, { failure, endedAt: this.now() })) {
      this.log.info('run ended', { runId, status, code: failure?.code });
    }
    // The scheduler (first to subscribe) forgets its wait and starts what was queued behind it.
    this.lifecycle.emit('runEnded', { runId, status, failure });
  }

  /**
   * Ends the run even when its record cannot be written now (the data directory's disk is full): it
   * is no longer driven at once, and its end is written as soon as the ledger takes it again.
   * `recordFirst` (its attempt's end) is written with it, and retried with it: it must be idempotent.
   */
  endWhenWritable(runId: string, status: RunStatus, failure: OperatorErrorShape | null, recordFirst: () => void = () => {}): void {
    try {
      recordFirst();
      this.end(runId, status, failure);
      return;
    } catch (error) {
      this.active.delete(runId);
      this.log.error('could not record the end of a run; trying again every few seconds', { runId, status, error: String(error) });
    }
    const timer = setInterval(() => {
      if (this.closing) return clearInterval(timer);
      try {
        recordFirst();
        this.end(runId, status, failure);
        clearInterval(timer);
      } catch {
        // Still full: the next tick tries again.
      }
    }, endRetryMs);
    timer.unref();
  }

  announce(runId: string): void {
    this.options.events.emit('runsChanged', { runIds: [runId] });
    this.options.events.emit('tasksChanged', {});
  }

  /** The console's own timeline entries (retries, resumes, quota observations, egress decisions). */
  note(runId: string, attemptId: string | null, kind: string, data: Record<string, unknown>): void {
    const redactor = this.redactorFor(runId);
    this.ledger.runs.appendEvents(runId, attemptId, [{ kind, data: redactor ? redactor.redactValue(data) : data }], this.now());
    this.announceTimeline(runId);
  }

  announceTimeline(runId: string): void {
    if (this.closing || this.timelineTimers.has(runId)) return;
    this.timelineTimers.set(
      runId,
      setTimeout(() => {
        this.timelineTimers.delete(runId);
        this.options.events.emit('runTimeline', { runId });
      }, timelineNoticeMs),
    );
  }

  /** The secrets delivered to a run, as a redactor; null when it was given none. */
  redactorFor(runId: string): SecretRedactor | null {
    const secrets = this.active.get(runId)?.secrets;
    return secrets && secrets.size > 0 ? new SecretRedactor(secrets) : null;
  }

  saveSessionLocator(active: ActiveRun): void {
    this.saveLocator(active.runId, 'session', { id: active.sessionId, dir: active.sessionDir, providerId: active.provider.id, fingerprint: configFingerprint(active.admission) });
  }

  saveLocator(runId: string, kind: 'process' | 'session', data: Record<string, unknown>): void {
    this.ledger.runs.saveLocator(runId, kind, data, digest({ kind, ...data }), this.now());
  }

  requireRun(runId: string) {
    const row = this.ledger.runs.row(runId);
    if (!row) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.', actionUrl: actionRoute({ kind: 'runs' }) });
    return row;
  }

  requireAgent(agentId: string) {
    const agent = this.ledger.agents.get(agentId);
    if (!agent) throw new OperatorError({ code: 'not_found', message: 'That agent is no longer in the console.', actionUrl: actionRoute({ kind: 'agents' }) });
    return agent;
  }

  /** The console is closing: timeline announcements still waiting are dropped. */
  close(): void {
    this.closing = true;
    for (const timer of this.timelineTimers.values()) clearTimeout(timer);
    this.timelineTimers.clear();
  }
}
