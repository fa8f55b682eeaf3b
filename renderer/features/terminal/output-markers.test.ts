import { describe, expect, it } from 'vitest';
import type { Attempt, AttemptStart } from '../../../shared/entities';
import { attemptSeparator, attemptSeparatorText } from './output-markers';

function attempt(patch: Partial<Attempt>): Attempt {
  return {
    number: 1,
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

function start(number: number, previous: Partial<Attempt> | null, startedAt: string, maxAttempts: number | null = 3): AttemptStart {
  return {
    attempt: attempt({ number, status: 'running', failureCode: null, exitCode: null, startedAt, endedAt: null, outputOffset: null }),
    previous: previous && attempt({ number: number - 1, ...previous }),
    maxAttempts,
  };
}

describe('the separator between attempts', () => {
  it('names the attempt, how the one before ended, and how long after', () => {
    expect(attemptSeparatorText(start(2, {}, '2025-01-01T10:00:08.000Z'))).toBe('── attempt 2 of 3 · after process_exit (exit code 1) · 3 s later ──');
    expect(attemptSeparatorText(start(3, { exitCode: null, signal: 'SIGKILL' }, '2025-01-01T10:02:10.000Z'))).toBe(
      '── attempt 3 of 3 · after process_exit (signal SIGKILL) · 2m 05s later ──',
    );
    expect(attemptSeparatorText(start(2, { failureCode: 'rate_limited', exitCode: null }, '2025-01-01T10:00:05.300Z'))).toBe(
      '── attempt 2 of 3 · after rate_limited · < 1 s later ──',
    );
  });

  it('leaves out what it does not know, and the limit a resumed run has gone past', () => {
    // A resume after a run that succeeded: attempt numbers go on, past the profile's limit.
    expect(attemptSeparatorText(start(4, { status: 'succeeded', failureCode: null, exitCode: 0 }, '2025-01-01T11:00:05.000Z'))).toBe(
      '── attempt 4 · after success · 1h 00m later ──',
    );
    expect(attemptSeparatorText(start(2, { status: 'stranded', failureCode: 'stranded', exitCode: null }, '2025-01-01T10:00:09.000Z', null))).toBe(
      '── attempt 2 · after stranded · 4 s later ──',
    );
    // No end time (or a clock that went backwards): no gap rather than a wrong one.
    expect(attemptSeparatorText(start(2, { endedAt: null }, '2025-01-01T10:00:09.000Z'))).toBe('── attempt 2 of 3 · after process_exit (exit code 1) ──');
    expect(attemptSeparatorText(start(2, {}, '2025-01-01T09:00:00.000Z'))).toBe('── attempt 2 of 3 · after process_exit (exit code 1) ──');
    expect(attemptSeparatorText(start(2, null, '2025-01-01T10:00:09.000Z'))).toBe('── attempt 2 of 3 ──');
  });

  it('is a dimmed line of its own, like the console’s other marks', () => {
    expect(attemptSeparator(start(2, {}, '2025-01-01T10:00:08.000Z'))).toBe(
      '\r\n\x1b[2m── attempt 2 of 3 · after process_exit (exit code 1) · 3 s later ──\x1b[0m\r\n',
    );
  });
});
