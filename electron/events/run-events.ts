import type { Attempt, AttemptCause, RunStatus } from '../../shared/entities';
import type { OperatorErrorShape } from '../../shared/errors';
import type { CoreEventBus } from './core-event-bus';
import type { ProviderEntry } from '../providers/catalog';
import type { TimelineEvent } from '../providers/events/timeline-event';
import type { Admission } from '../ledger/run-admission';
import type { EgressDecisionNote } from '../sandbox/egress-proxy';

/** How an attempt ended, as its ledger row records it. */
export interface AttemptEnd {
  status: Exclude<Attempt['status'], 'running'>;
  failureCode: string | null;
  exitCode: number | null;
  signal: string | null;
  /** When the next attempt starts (epoch ms), for a failed attempt the retry policy gives another go. */
  retryAt: number | null;
  endedAt: number;
}

/** Who an attempt is for, as its events name them (reactions need no ledger read to say it). */
export interface AttemptParties {
  runId: string;
  attemptId: string;
  attemptNumber: number;
  agent: { id: string; name: string };
  /** The CLI's display name ("Codex CLI"). */
  providerName: string;
  task: { id: string; title: string };
}

/** The run lifecycle's events, as the attempt pipeline and the run context emit them. */
export interface RunEventMap {
  /**
   * An attempt's record exists (status running): its output and timeline follow. With what the run
   * was admitted under and the CLI it launches, and whether it continues the CLI's session (a resume).
   */
  attemptStarted: AttemptParties & { cause: AttemptCause; admission: Admission; provider: ProviderEntry; resumed: boolean };
  /** An attempt got past a point that stopped earlier ones: its setup command succeeded, or its CLI started. */
  attemptProgressed: AttemptParties & { milestone: 'setup_succeeded' | 'agent_started' };
  /**
   * The run's egress proxy let a request through or refused it (the timeline holds it already), in
   * the environment the run was admitted in.
   */
  egressDecided: AttemptParties & { decision: EgressDecisionNote; environmentId: string };
  /** One entry parsed from the CLI's stream, as the timeline records it (redacted), with the CLI's session as known then. */
  timelineEvent: AttemptParties & { event: TimelineEvent; sessionId: string | null };
  /**
   * The attempt's end is in the ledger. `failure`: what the run fails with when this attempt is its
   * last (null for a success, a cancel, or a failure the retry policy gives another go);
   * `ownerAction`: someone must change something before a run of the agent can get further.
   */
  attemptEnded: AttemptParties & { end: AttemptEnd; failure: OperatorErrorShape | null; ownerAction: boolean };
  /**
   * A run that crossed its budget while it ran was ended failed instead of retried (budget-stop.ts):
   * `refusal` is the budget's own (the run's failure adds that it was not retried).
   */
  budgetStopped: { runId: string; agent: { id: string; name: string }; task: { id: string | null; title: string }; refusal: OperatorErrorShape };
  /**
   * The run was stopped because the data directory's disk is full (it could not be prepared, or its
   * output could not be stored), told before its end is written (which may have to wait for room).
   * `taskId` is null when even reading the ledger failed.
   */
  diskFull: { runId: string; agent: { id: string; name: string }; taskId: string | null };
  /**
   * The run could not be prepared for a reason its owner must fix (a secret variable that cannot be
   * read now), before any attempt of it began: no attempt's end tells it. Told before its end is written.
   */
  preparationFailed: { runId: string; agent: { id: string; name: string }; task: { id: string | null; title: string }; failure: OperatorErrorShape };
  /**
   * The run was ended (its status written, or refused by the lifecycle table and left as it was): every
   * way a run ends, its attempt's outcome, a Stop, a refusal at Start, or stranded by the next start.
   */
  runEnded: { runId: string; status: RunStatus; failure: OperatorErrorShape | null };
}

export type RunEventBus = CoreEventBus<RunEventMap>;
