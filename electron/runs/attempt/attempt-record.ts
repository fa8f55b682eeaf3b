import type { Attempt, AttemptCause } from '../../../shared/entities';
import type { Ledger } from '../../ledger/ledger';
import type { Logger } from '../../log';

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

/** How an attempt ended, as its ledger row records it. */
export interface AttemptEnd {
  status: Exclude<AttemptStatus, 'running'>;
  failureCode: string | null;
  exitCode: number | null;
  signal: string | null;
  /** When the next attempt starts (epoch ms), for a failed attempt the retry policy gives another go. */
  retryAt: number | null;
  endedAt: number;
}

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

/** One attempt of a run, from its row's creation to its one end. */
export class RunAttempt {
  private ended = false;

  private constructor(
    private readonly context: { ledger: Ledger; log: Logger },
    readonly id: string,
    readonly runId: string,
    readonly number: number,
  ) {}

  /** Records a new attempt, `running`, with why it starts (recorded now, never worked out later). */
  static start(
    context: { ledger: Ledger; log: Logger },
    attempt: { id: string; runId: string; number: number; cause: AttemptCause; startedAt: number },
  ): RunAttempt {
    context.ledger.runs.insertAttempt(attempt);
    return new RunAttempt(context, attempt.id, attempt.runId, attempt.number);
  }

  /** True until this attempt's end has been recorded (through `finish`). */
  get running(): boolean {
    return !this.ended;
  }

  /** Ends the attempt through the table (see endAttempt). A ledger that cannot be written throws. */
  finish(end: AttemptEnd): boolean {
    const finished = endAttempt(this.context, this.id, end);
    if (finished) this.ended = true;
    return finished;
  }
}
