import type { Attempt } from './entities';

/**
 * How an attempt's cause reads, alike in the terminal's separator, the run's attempts list and the
 * desktop notifications. The cause is what the ledger recorded when the attempt started (never worked
 * out from its number or the attempt before it): a resume is the operator's action and reads so,
 * never as a retry "after success".
 */

type PreviousAttempt = Pick<Attempt, 'status' | 'failureCode' | 'exitCode' | 'signal'>;

/** How a failed attempt ended: `process_exit (exit code 1)`, `rate_limited`, `process_exit (signal SIGKILL)`. */
export function attemptFailureText(attempt: PreviousAttempt): string {
  const cause = attempt.failureCode ?? attempt.status;
  const how = attempt.exitCode !== null ? `exit code ${attempt.exitCode}` : attempt.signal ? `signal ${attempt.signal}` : null;
  return how ? `${cause} (${how})` : cause;
}

/**
 * Why the attempt started, in a few words: `retry after process_exit (exit code 1)`, `resumed by
 * you`, `resumed by you after the console stopped`, `follow-up from you`, `first start`; null when the
 * ledger does not know (an attempt recorded before causes were). `previous`: the attempt before it
 * (what a retry answers; a stranded run's resume says the console had stopped it).
 */
export function attemptCauseText(attempt: Pick<Attempt, 'cause'>, previous: PreviousAttempt | null): string | null {
  switch (attempt.cause) {
    case 'first':
      return 'first start';
    case 'retry':
      return previous && previous.status !== 'running' ? `retry after ${attemptFailureText(previous)}` : 'retry';
    case 'resume':
      return previous?.status === 'stranded' ? 'resumed by you after the console stopped' : 'resumed by you';
    case 'follow_up':
      return 'follow-up from you';
    case null:
      return null;
  }
}

/** Whether the operator started this attempt (Resume, a follow-up turn), rather than the run's start or its retry policy. */
export function startedByOperator(attempt: Pick<Attempt, 'cause'>): boolean {
  return attempt.cause === 'resume' || attempt.cause === 'follow_up';
}
