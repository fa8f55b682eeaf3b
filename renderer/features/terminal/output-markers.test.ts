import { describe, expect, it } from 'vitest';
import type { Attempt, AttemptStart } from '../../../shared/entities';
import { attemptSeparator, attemptSeparatorText } from './output-markers';

function attempt(patch: Partial<Attempt>): Attempt {
  return {
    number: 1,
    cause: 'first',
    status: 'failed',
    failureCode: 'process_exit',
    exitCode: 1,
    signal: null,
    retryAt: null,
    startedAt: '2025-01-01T10:00:00.000Z',
    endedAt: '2025-01-01T10:00:05.000Z',
    outputOffset: 0,
    ...patch,
  };
}

/** Attempt `number`, started at `startedAt` for `cause` (as the ledger recorded it), after `previous`. */
function start(number: number, cause: Attempt['cause'], previous: Partial<Attempt> | null, startedAt: string, maxAttempts: number | null = 3): AttemptStart {
  return {
    attempt: attempt({ number, cause, status: 'running', failureCode: null, exitCode: null, startedAt, endedAt: null, outputOffset: null }),
    previous: previous && attempt({ number: number - 1, cause: number - 1 === 1 ? 'first' : 'retry', ...previous }),
    maxAttempts,
  };
}

describe('the separator between attempts', () => {
  it('a retry: what it retries after, the policy’s count, and how long after', () => {
    expect(attemptSeparatorText(start(2, 'retry', {}, '2025-01-01T10:00:08.000Z'))).toBe('── retry after process_exit (exit code 1) · attempt 2 of 3 · 3 s later ──');
    expect(attemptSeparatorText(start(3, 'retry', { exitCode: null, signal: 'SIGKILL' }, '2025-01-01T10:02:10.000Z'))).toBe(
      '── retry after process_exit (signal SIGKILL) · attempt 3 of 3 · 2m 05s later ──',
    );
    expect(attemptSeparatorText(start(2, 'retry', { failureCode: 'rate_limited', exitCode: null }, '2025-01-01T10:00:05.300Z'))).toBe(
      '── retry after rate_limited · attempt 2 of 3 · < 1 s later ──',
    );
  });

  it('a resume is the operator’s: said so, with no retry count and never “after success”', () => {
    // Resumed after a run that succeeded, past the profile's three attempts.
    const resumed = attemptSeparatorText(start(4, 'resume', { status: 'succeeded', failureCode: null, exitCode: 0 }, '2025-01-01T11:00:05.000Z'));
    expect(resumed).toBe('── resumed by you · attempt 4 · 1h 00m later ──');
    // Resumed as attempt 2 of a profile that allows 3: still not "of 3", not "after success".
    expect(attemptSeparatorText(start(2, 'resume', { status: 'succeeded', failureCode: null, exitCode: 0 }, '2025-01-01T10:00:09.000Z'))).toBe(
      '── resumed by you · attempt 2 · 4 s later ──',
    );
    // A stranded run's resume says the console had stopped it.
    expect(attemptSeparatorText(start(2, 'resume', { status: 'stranded', failureCode: 'stranded', exitCode: null }, '2025-01-01T10:00:09.000Z', null))).toBe(
      '── resumed by you after the console stopped · attempt 2 · 4 s later ──',
    );
    expect(attemptSeparatorText(start(3, 'follow_up', { status: 'succeeded', failureCode: null, exitCode: 0 }, '2025-01-01T10:01:07.000Z'))).toBe(
      '── follow-up from you · attempt 3 · 1m 02s later ──',
    );
  });

  it('leaves out what it does not know: a cause never recorded, a missing end, the count past the limit', () => {
    // An attempt from before causes were recorded: its number alone, no guessed count or outcome.
    expect(attemptSeparatorText(start(2, null, {}, '2025-01-01T10:00:08.000Z'))).toBe('── attempt 2 · 3 s later ──');
    // No end time (or a clock that went backwards): no gap rather than a wrong one.
    expect(attemptSeparatorText(start(2, 'retry', { endedAt: null }, '2025-01-01T10:00:09.000Z'))).toBe('── retry after process_exit (exit code 1) · attempt 2 of 3 ──');
    expect(attemptSeparatorText(start(2, 'retry', {}, '2025-01-01T09:00:00.000Z'))).toBe('── retry after process_exit (exit code 1) · attempt 2 of 3 ──');
    expect(attemptSeparatorText(start(2, 'retry', null, '2025-01-01T10:00:09.000Z'))).toBe('── retry · attempt 2 of 3 ──');
    // Past the profile's count (its limit lowered since the run began): no "of N" it would contradict.
    expect(attemptSeparatorText(start(5, 'retry', {}, '2025-01-01T10:00:08.000Z'))).toBe('── retry after process_exit (exit code 1) · attempt 5 · 3 s later ──');
  });

  it('is a dimmed line of its own, like the console’s other marks', () => {
    expect(attemptSeparator(start(2, 'retry', {}, '2025-01-01T10:00:08.000Z'))).toBe(
      '\r\n\x1b[2m── retry after process_exit (exit code 1) · attempt 2 of 3 · 3 s later ──\x1b[0m\r\n',
    );
  });
});
