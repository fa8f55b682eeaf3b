import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../../shared/entities';
import { attemptExit, canRerun, locatorFacts, locatorSummary, pendingRetry, retryWaitLabel } from './run-detail-format';
import { compactJson, describeRunEvent, humanizeKind } from './timeline-entry';

describe('timeline entries', () => {
  it('reads the CLI’s parsed events as what happened', () => {
    expect(describeRunEvent({ kind: 'message', data: { role: 'assistant', text: 'Done.' } })).toMatchObject({ label: 'Message', text: 'Done.' });
    expect(describeRunEvent({ kind: 'tool_call', data: { callId: 'c1', name: 'write_file', input: '{"path":"a.md"}' } })).toMatchObject({
      label: 'Tool call',
      text: 'write_file',
      detail: '{"path":"a.md"}',
    });
    expect(describeRunEvent({ kind: 'file_change', data: { path: 'notes/plan.md', change: 'add' } })).toMatchObject({
      label: 'File added',
      text: 'notes/plan.md',
    });
    expect(describeRunEvent({ kind: 'usage', data: { inputTokens: 1234, outputTokens: 567, cachedInputTokens: null } }).text).toBe(
      '1,234 in · 567 out tokens',
    );
    // Codex reports its session's running total: the entry says so, so it is not read as this turn's cost.
    expect(
      describeRunEvent({ kind: 'usage', data: { inputTokens: 3000, outputTokens: 900, cachedInputTokens: 1000, reasoningTokens: 200, counting: 'per_session' } }).text,
    ).toBe('3,000 in · 900 out · 1,000 cached · 200 reasoning tokens (session so far)');
    expect(describeRunEvent({ kind: 'session', data: { sessionId: 'fixture-session' } }).text).toBe('fixture-session');
  });

  it('tells a fatal error from a warning and keeps its code and reset time', () => {
    const entry = describeRunEvent({
      kind: 'error',
      data: { message: 'Usage limit reached', fatal: true, code: 'rate_limit', httpStatus: 429, resetAt: '2025-01-01T12:00:00Z' },
    });
    expect(entry).toMatchObject({ label: 'Error', tone: 'danger', text: 'Usage limit reached' });
    expect(entry.detail).toBe('rate_limit · HTTP 429 · resets 2025-01-01T12:00:00Z');
    expect(describeRunEvent({ kind: 'error', data: { message: 'retrying', fatal: false } }).label).toBe('Warning');
  });

  it('marks the console’s own notes and says why', () => {
    const retry = describeRunEvent(
      { kind: 'retry_scheduled', data: { code: 'process_exit', retryAt: '2025-01-01T10:00:05Z', message: 'The CLI exited with code 1.' } },
      (iso) => `<${iso.slice(11, 19)}>`,
    );
    expect(retry).toMatchObject({
      label: 'Retry scheduled',
      text: 'Next attempt at <10:00:05>',
      detail: 'process_exit: The CLI exited with code 1.',
      consoleNote: true,
    });
    expect(describeRunEvent({ kind: 'fresh_session', data: { reason: 'The model changed.', previousSessionId: 's1' } })).toMatchObject({
      text: 'The model changed.',
      detail: 'Previous session s1',
    });
    expect(describeRunEvent({ kind: 'quota_observed', data: { provider: 'openai', target: 'gpt-5.5', resetAt: '12:00', validUntil: '12:00' } }).text).toBe(
      'openai · gpt-5.5; resets at 12:00',
    );
    expect(describeRunEvent({ kind: 'egress', data: { host: 'evil.example', port: 443, method: 'CONNECT', allowed: false } })).toMatchObject({
      label: 'Network blocked',
      text: 'CONNECT evil.example:443',
      tone: 'danger',
    });
    expect(describeRunEvent({ kind: 'setup_started', data: { command: 'npm ci' } })).toMatchObject({ label: 'Setup started', text: 'npm ci', consoleNote: true });
    expect(describeRunEvent({ kind: 'setup_failed', data: { exitCode: 7, signal: null } })).toMatchObject({
      label: 'Setup failed',
      text: 'The project’s setup command failed (exit code 7); the agent did not start.',
      tone: 'danger',
    });
  });

  it('shows unknown kinds with their data as compact JSON', () => {
    const entry = describeRunEvent({ kind: 'worktree_ready', data: { path: '/tmp/x', base: 'abc' } });
    expect(entry).toMatchObject({ label: 'Worktree ready', text: '{"path":"/tmp/x","base":"abc"}', consoleNote: true });
    expect(compactJson({ text: 'x'.repeat(1000) }, 20)).toHaveLength(20);
    expect(humanizeKind('')).toBe('Event');
  });
});

describe('run detail facts', () => {
  const attempt = (patch: Partial<Attempt>): Attempt => ({
    number: 1,
    cause: 'first',
    status: 'failed',
    failureCode: 'process_exit',
    exitCode: 1,
    signal: null,
    retryAt: null,
    startedAt: null,
    endedAt: null,
    outputOffset: null,
    ...patch,
  });

  it('finds the attempt waiting for a retry and counts down in words', () => {
    const now = Date.parse('2025-01-01T10:00:00Z');
    const waiting = attempt({ number: 2, retryAt: '2025-01-01T10:00:12Z' });
    expect(pendingRetry([attempt({}), waiting], now)).toBe(waiting);
    expect(pendingRetry([attempt({ retryAt: '2025-01-01T09:59:00Z' })], now)).toBeNull();
    expect(retryWaitLabel('2025-01-01T10:00:12Z', now)).toBe('Waiting to retry in 12 s');
    expect(retryWaitLabel('2025-01-01T10:04:05Z', now)).toBe('Waiting to retry in 4m 05s');
  });

  it('says how an attempt ended', () => {
    expect(attemptExit({ exitCode: 1, signal: null })).toBe('exit 1');
    expect(attemptExit({ exitCode: null, signal: 'SIGKILL' })).toBe('signal SIGKILL');
    expect(attemptExit({ exitCode: null, signal: null })).toBe('—');
  });

  it('puts a locator’s pid and process group, or session id and directory, first', () => {
    expect(locatorFacts({ pgid: 42, pid: 42 })).toEqual([
      { label: 'pid', value: '42' },
      { label: 'pgid', value: '42' },
    ]);
    expect(locatorFacts({ fingerprint: 'ab'.repeat(32), dir: null, id: 'fixture-thread', providerId: 'command' })).toEqual([
      { label: 'id', value: 'fixture-thread' },
      { label: 'fingerprint', value: 'abababababab…' },
      { label: 'providerId', value: 'command' },
    ]);
  });

  it('offers Run again once a run has ended, and a refused run only once its cause is gone', () => {
    expect(canRerun({ status: 'running' })).toBe(false);
    expect(canRerun({ status: 'failed' })).toBe(true);
    // Refused, notice open: nothing is fixed, a new run would be refused too.
    expect(canRerun({ status: 'refused', notice: { status: 'open', canRunAgain: false } }, true)).toBe(false);
    // Resolved: the notice's own Run again leads (it starts every task it stood for once).
    expect(canRerun({ status: 'refused', notice: { status: 'resolved', canRunAgain: true } }, true)).toBe(false);
    // Its Run again was used, or it was dismissed: the agent's check decides.
    expect(canRerun({ status: 'refused', notice: { status: 'resolved', canRunAgain: false } }, true)).toBe(true);
    expect(canRerun({ status: 'refused', notice: { status: 'dismissed', canRunAgain: false } }, false)).toBe(false);
    expect(canRerun({ status: 'refused', notice: null })).toBe(false);
  });

  it('tells a locator in words: pid, process group and start time, or the session and its folder', () => {
    const time = (iso: string) => `at ${iso.slice(11, 19)}`;
    const attempts = [{ number: 2, startedAt: '2026-12-01T10:31:05.000Z' }];
    expect(
      locatorSummary({ kind: 'process', data: { pid: 4242, pgid: 4242, startTime: '47813', attempt: 2 }, updatedAt: '2026-12-01T10:31:06.000Z' }, attempts, time),
    ).toEqual({
      title: 'Process',
      facts: [
        { label: 'Process id', value: '4242' },
        { label: 'Process group', value: '4242 (its own)' },
        { label: 'Started at', value: 'at 10:31:05' },
        { label: 'Attempt', value: '2' },
      ],
    });
    expect(
      locatorSummary({ kind: 'session', data: { id: 'thread-1', dir: '/data/tasks/run_1/cache', fingerprint: 'ab'.repeat(32) }, updatedAt: '2026-12-01T10:31:07.000Z' }, [], time),
    ).toEqual({
      title: 'CLI session',
      facts: [
        { label: 'Session', value: 'thread-1' },
        { label: 'Folder', value: '/data/tasks/run_1/cache' },
        { label: 'Recorded at', value: 'at 10:31:07' },
      ],
    });
  });
});
