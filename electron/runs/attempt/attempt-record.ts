import type { Attempt, AttemptCause } from '../../../shared/entities';
import type { OperatorErrorShape } from '../../../shared/errors';
import type { Ledger } from '../../ledger/ledger';
import type { Logger } from '../../platform/log';
import type { AttemptEnd, AttemptParties, RunEventBus, RunEventMap } from '../../events/run-events';

export type { AttemptEnd } from '../../events/run-events';

export type AttemptStatus = Attempt['status'];

/**
 * An attempt's lifecycle, as the one table every end of an attempt is checked against:
 *
 *   running → succeeded | failed | cancelled | stranded
 *
 * An attempt is created `running` (runs-repository `insertAttempt`) and ends once: nothing leaves an
 * ended attempt (a second ending, a late exit after a Stop, recovery finding one already ended).
 */
export const allowedAttemptMoves: Readonly<Record<AttemptStatus, readonly AttemptStatus[]>> = {
  running: ['succeeded', 'failed', 'cancelled', 'stranded'],
  succeeded: [],
  failed: [],
  cancelled: [],
  stranded: [],
};

export function isAllowedAttemptMove(from: AttemptStatus, to: string): boolean {
  return (allowedAttemptMoves[from] as readonly string[]).includes(to);
}

/**
 * The one way an attempt ends. An illegal move (ending an attempt twice, ending one that recovery
 * stranded, a status that is no attempt status) is refused and logged, and the row is left as it
 * was: false tells the caller the attempt is not where it thought.
 */
export function endAttempt(context: { ledger: Ledger; log: Logger }, attemptId: string, end: AttemptEnd): boolean {
  const from = context.ledger.runs.attempt(attemptId)?.status;
  if (from === undefined) {
    context.log.error('attempt end refused: no such attempt', { attemptId, to: end.status });
    return false;
  }
  if (!isAllowedAttemptMove(from, end.status)) {
    context.log.error('attempt end refused: not a lifecycle step', { attemptId, from, to: end.status });
    return false;
  }
  // Compare and set: a writer that read the same `from` a moment ago loses, and is told so.
  if (!context.ledger.runs.endAttempt(attemptId, from, end)) {
    context.log.error('attempt end refused: the attempt moved meanwhile', { attemptId, from, to: end.status });
    return false;
  }
  return true;
}

/** What an attempt's end means beyond its row: the run's failure when it is the last, and whether the owner must act. */
export interface AttemptOutcomeNote {
  failure?: OperatorErrorShape | null;
  ownerAction?: boolean;
}

/**
 * One attempt of a run, from its row's creation to its one end. Its start and its end are told on the
 * run lifecycle's bus (run-events.ts) once the ledger holds them: reactions hear what happened, not
 * what was about to.
 */
export class RunAttempt {
  private ended = false;

  private constructor(
    private readonly context: { ledger: Ledger; log: Logger; lifecycle: RunEventBus },
    readonly parties: AttemptParties,
  ) {}

  /** Records a new attempt, `running`, with why it starts (recorded now, never worked out later). */
  static start(
    context: { ledger: Ledger; log: Logger; lifecycle: RunEventBus },
    parties: AttemptParties,
    attempt: { cause: AttemptCause; startedAt: number },
    launch: Pick<RunEventMap['attemptStarted'], 'admission' | 'provider' | 'resumed'>,
  ): RunAttempt {
    context.ledger.runs.insertAttempt({ id: parties.attemptId, runId: parties.runId, number: parties.attemptNumber, ...attempt });
    context.lifecycle.emit('attemptStarted', { ...parties, cause: attempt.cause, ...launch });
    return new RunAttempt(context, parties);
  }

  /** An attempt a previous console started and left running (a run on an SSH host, taken up again at start). */
  static adopt(context: { ledger: Ledger; log: Logger; lifecycle: RunEventBus }, parties: AttemptParties): RunAttempt {
    return new RunAttempt(context, parties);
  }

  get id(): string {
    return this.parties.attemptId;
  }

  /** True until this attempt's end has been recorded (through `finish`). */
  get running(): boolean {
    return !this.ended;
  }

  /**
   * Ends the attempt through the table (see endAttempt), then tells the bus. False (and nothing told)
   * when the move was refused. A ledger that cannot be written throws.
   */
  finish(end: AttemptEnd, note: AttemptOutcomeNote = {}): boolean {
    if (!endAttempt(this.context, this.id, end)) return false;
    this.ended = true;
    this.context.lifecycle.emit('attemptEnded', { ...this.parties, end, failure: note.failure ?? null, ownerAction: note.ownerAction ?? false });
    return true;
  }
}
