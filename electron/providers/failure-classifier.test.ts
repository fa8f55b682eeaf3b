import { describe, expect, it } from 'vitest';
import { commandDefinition } from './command/definition';
import { failurePatternsFor, getDefinition, type EventFormat } from './definitions';
import { fixtureLines, fixtureText } from './events/fixture-lines';
import { LineSplitter } from './events/line-splitter';
import { createEventParser } from './events/parse-event-line';
import type { TimelineEvent } from './events/timeline-event';
import type { AttemptExit, AttemptFailure } from './failure-classifier';
import { classifyAttempt, failurePolicies, retryDelayMs } from './failure-classifier';

const observedAt = new Date('2029-12-31T12:00:00.000Z');
const later = (ms: number) => new Date(observedAt.getTime() + ms).toISOString();

function eventsOf(format: EventFormat, lines: string[]): TimelineEvent[] {
  const parser = createEventParser(format);
  return lines.flatMap((line) => parser.parseLine(line));
}

/** An attempt as the run service sees it: stdout and stderr interleaved by the PTY. */
function captured(name: string, format: EventFormat, exitCode: number, providerId: string, model: string): AttemptExit {
  const stdout = fixtureLines(`${name}.stdout.jsonl`);
  let stderr = '';
  try {
    stderr = fixtureText(`${name}.stderr.txt`);
  } catch {
    // Not every capture wrote to stderr.
  }
  return {
    providerId,
    model,
    exitCode,
    signal: null,
    outputTail: `${stderr}\n${stdout.join('\n')}`,
    events: eventsOf(format, [...stderr.split('\n'), ...stdout]),
    observedAt,
    timeZone: 'UTC',
    cliPatterns: cliPatterns(providerId),
  };
}

/** What a run of that definition is classified with (the run service passes the same). */
function cliPatterns(definitionId: string) {
  return failurePatternsFor(getDefinition(definitionId));
}

/** Text a command printed: a command may wrap any CLI, so it is read with every CLI's patterns. */
function textAttempt(tail: string, exitCode: number | null = 1, overrides: Partial<AttemptExit> = {}): AttemptExit {
  return {
    providerId: 'command',
    model: '',
    exitCode,
    signal: null,
    outputTail: tail,
    events: [],
    observedAt,
    timeZone: 'UTC',
    cliPatterns: failurePatternsFor(commandDefinition),
    ...overrides,
  };
}

describe('classifyAttempt on captured CLI runs', () => {
  it('treats clean exits of successful runs as success', () => {
    expect(classifyAttempt(captured('codex-ok', 'codex-jsonl', 0, 'codex', 'gpt-6.2-sol'))).toBeNull();
    expect(classifyAttempt(captured('claude-ok', 'claude-stream-json', 0, 'claude-code', 'claude-sonnet-4-6'))).toBeNull();
    expect(classifyAttempt(captured('pi-ok', 'pi-json', 0, 'pi', 'anthropic/claude-sonnet-4-6'))).toBeNull();
    expect(classifyAttempt(captured('gemini-ok', 'gemini-stream-json', 0, 'gemini-cli', 'gemini-2.5-pro'))).toBeNull();
  });

  it('Codex 401 → auth_required, an owner action that is not retried', () => {
    const failure = classifyAttempt({ ...captured('codex-401', 'codex-jsonl', 1, 'codex', 'gpt-6.2-sol'), providerName: 'Codex CLI' });
    expect(failure).toMatchObject({ code: 'auth_required', retryable: false, ownerAction: true, quota: null });
    expect(failure?.evidence).toContain('unexpected status 401 Unauthorized');
    expect(failure?.message).toContain("Check the agent's AI connection");
    expect(failure?.message.startsWith('Codex CLI was refused')).toBe(true);
  });

  it('Codex 429 after its own retries → rate_limited with a short assumed window', () => {
    const failure = classifyAttempt(captured('codex-429', 'codex-jsonl', 1, 'codex', 'gpt-6.2-sol'));
    expect(failure).toMatchObject({ code: 'rate_limited', retryable: true, ownerAction: false });
    expect(failure?.quota).toEqual({
      provider: 'codex',
      target: 'gpt-6.2-sol',
      resetAt: null,
      observedAt: observedAt.toISOString(),
      validUntil: later(60_000),
    });
  });

  it('OpenAI insufficient_quota → quota_exhausted without a known reset', () => {
    const failure = classifyAttempt(captured('codex-quota', 'codex-jsonl', 1, 'codex', 'gpt-6.2-sol'));
    expect(failure).toMatchObject({ code: 'quota_exhausted', evidence: 'Quota exceeded. Check your plan and billing details.' });
    expect(failure?.quota).toMatchObject({ resetAt: null, validUntil: later(15 * 60_000) });
  });

  it('ChatGPT usage limit → quota_exhausted until the stated reset', () => {
    const failure = classifyAttempt(captured('codex-usage', 'codex-jsonl', 1, 'codex', 'gpt-6.2-sol'));
    expect(failure?.code).toBe('quota_exhausted');
    expect(failure?.quota).toEqual({
      provider: 'codex',
      target: 'gpt-6.2-sol',
      resetAt: '2030-01-01T00:00:00.000Z',
      observedAt: observedAt.toISOString(),
      validUntil: '2030-01-01T00:00:00.000Z',
    });
    expect(failure?.message).toContain('resets at 2030-01-01T00:00:00.000Z');
  });

  it('Claude invalid key → auth_required; Claude 429 → rate_limited', () => {
    expect(classifyAttempt(captured('claude-401', 'claude-stream-json', 1, 'claude-code', 'claude-sonnet-4-6'))?.code).toBe('auth_required');
    expect(classifyAttempt(captured('claude-429', 'claude-stream-json', 1, 'claude-code', 'claude-sonnet-4-6'))?.code).toBe('rate_limited');
  });

  it('Pi exits 0 on an invalid key, and is still auth_required', () => {
    const failure = classifyAttempt(captured('pi-401', 'pi-json', 0, 'pi', 'anthropic/claude-sonnet-4-6'));
    expect(failure?.code).toBe('auth_required');
  });

  it('Gemini invalid key (exit 144 = HTTP 400 & 0xff) → auth_required', () => {
    expect(classifyAttempt(captured('gemini-401', 'gemini-stream-json', 144, 'gemini-cli', 'gemini-2.5-pro'))?.code).toBe('auth_required');
  });

  it("Gemini's per-minute \"exceeded your current quota ... retry in 32.5s\" → rate_limited with that reset", () => {
    const failure = classifyAttempt(captured('gemini-429', 'gemini-stream-json', 173, 'gemini-cli', 'gemini-2.5-pro'));
    expect(failure?.code).toBe('rate_limited');
    expect(failure?.quota).toMatchObject({ resetAt: later(32_500), validUntil: later(32_500), target: 'gemini-2.5-pro' });
  });
});

describe('classifyAttempt on messages the CLIs print', () => {
  it('Claude subscription limit → quota_exhausted with the reset from its rate_limit_event', () => {
    const events = eventsOf('claude-stream-json', [
      '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1893463200,"rateLimitType":"five_hour"}}',
      '{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"You\'ve hit your session limit · resets 2am (UTC)"}]},"error":"rate_limit"}',
      '{"type":"result","subtype":"success","is_error":true,"api_error_status":429,"result":"You\'ve hit your session limit · resets 2am (UTC)"}',
    ]);
    const failure = classifyAttempt({ providerId: 'claude-code', model: 'claude-opus-4-8', exitCode: 1, events, observedAt, cliPatterns: cliPatterns('claude-code') });
    expect(failure?.code).toBe('quota_exhausted');
    expect(failure?.quota?.resetAt).toBe('2030-01-01T02:00:00.000Z');
  });

  it('Claude subscription limit with only the text → reset read from "resets 3pm (America/New_York)"', () => {
    const failure = classifyAttempt(
      textAttempt("You've hit your session limit · resets 3pm (America/New_York)", 1, { providerId: 'claude-code', model: 'claude-sonnet-4-6', cliPatterns: cliPatterns('claude-code') }),
    );
    expect(failure?.code).toBe('quota_exhausted');
    expect(failure?.quota?.resetAt).toBe('2029-12-31T20:00:00.000Z');
  });

  it('expired OAuth login → auth_expired, not auth_required', () => {
    const failure = classifyAttempt(
      textAttempt(
        'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired. Please obtain a new token or refresh your existing token."}} · Please run /login',
      ),
    );
    expect(failure).toMatchObject({ code: 'auth_expired', ownerAction: true, retryable: false });
    expect(classifyAttempt(textAttempt('Token refresh failed with invalid_grant: refresh token revoked'))?.code).toBe('auth_expired');
    expect(classifyAttempt(textAttempt('Your access token could not be refreshed because your refresh token was already used.'))?.code).toBe('auth_expired');
  });

  it('missing credentials → auth_required', () => {
    expect(classifyAttempt(textAttempt('Not logged in · Please run /login'))?.code).toBe('auth_required');
    expect(classifyAttempt(textAttempt('When using Gemini API, you must specify the GEMINI_API_KEY environment variable. Please set an Auth method in your settings.json'))?.code).toBe(
      'auth_required',
    );
    // What Gemini CLI 0.61 prints (exit 41) when API-key auth is selected and no key is set.
    const geminiNoKey = classifyAttempt({
      providerId: 'gemini-cli',
      model: 'gemini-2.5-pro',
      exitCode: 41,
      cliPatterns: cliPatterns('gemini-cli'),
      outputTail:
        'YOLO mode is enabled. All tool calls will be automatically approved.\r\nWhen using Gemini API, you must specify the GEMINI_API_KEY environment variable.\r\nUpdate your environment and try again (no reload needed if using .env)!\r\n',
    });
    expect(geminiNoKey).toMatchObject({ code: 'auth_required', retryable: false, ownerAction: true });
  });

  it('Gemini daily quota → quota_exhausted even with a short retry hint', () => {
    expect(classifyAttempt(textAttempt('You have exhausted your daily quota on this model. Please retry in 20s.'))?.code).toBe('quota_exhausted');
  });

  it('a spawn error → spawn_failed, an owner action', () => {
    const failure = classifyAttempt({
      providerId: 'codex',
      providerName: 'Codex CLI',
      model: 'gpt-6.2-sol',
      exitCode: null,
      spawnError: { code: 'ENOENT', message: 'spawn codex ENOENT' },
      observedAt,
    });
    expect(failure).toMatchObject({ code: 'spawn_failed', retryable: false, ownerAction: true, evidence: 'ENOENT: spawn codex ENOENT' });
    expect(failure?.message).toContain('Install the CLI');
  });

  it('a CLI missing inside the sandbox (bwrap execvp, exit 127) → spawn_failed', () => {
    expect(classifyAttempt(textAttempt('bwrap: execvp codex: No such file or directory', 1))?.code).toBe('spawn_failed');
    expect(classifyAttempt(textAttempt('', 127))?.code).toBe('spawn_failed');
  });

  it('bubblewrap refusing to create namespaces → sandbox_unavailable', () => {
    const failure = classifyAttempt(textAttempt('bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.'));
    expect(failure).toMatchObject({ code: 'sandbox_unavailable', ownerAction: true });
  });

  it('an untrusted folder or a model that does not exist → configuration_incomplete', () => {
    expect(classifyAttempt(textAttempt('Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, ...', 55))?.code).toBe(
      'configuration_incomplete',
    );
    expect(classifyAttempt(textAttempt('API Error: 404 {"type":"error","error":{"type":"not_found_error","message":"model: claude-opus-9"}}'))?.code).toBe(
      'configuration_incomplete',
    );
    expect(classifyAttempt(textAttempt('--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons'))?.code).toBe(
      'configuration_incomplete',
    );
  });

  it('a Codex metadata warning does not make a crash a configuration problem', () => {
    const events = eventsOf('codex-jsonl', [
      '{"type":"thread.started","thread_id":"t"}',
      '{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `gpt-5` not found. Defaulting to fallback metadata; this can degrade performance and cause issues."}}',
    ]);
    expect(classifyAttempt({ providerId: 'codex', model: 'gpt-5', exitCode: 101, events, observedAt, cliPatterns: cliPatterns('codex') })?.code).toBe('process_exit');
  });

  it("is not fooled by the model's own words about rate limits", () => {
    const lines = [
      '{"type":"thread.started","thread_id":"t"}',
      '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"I added a limiter that answers 429 Too Many Requests when the rate limit is exceeded."}}',
    ];
    const failure = classifyAttempt({
      providerId: 'codex',
      model: 'gpt-6.2-sol',
      exitCode: 1,
      outputTail: lines.join('\n'),
      events: eventsOf('codex-jsonl', lines),
      observedAt,
    });
    expect(failure?.code).toBe('process_exit');
  });

  it('an operator stop → cancelled, whatever the output says', () => {
    const failure = classifyAttempt(textAttempt('429 Too Many Requests', 143, { signal: 'SIGTERM', stoppedByOperator: true }));
    expect(failure).toMatchObject({ code: 'cancelled', retryable: false, ownerAction: false });
  });

  it('an unexplained exit or kill → process_exit, retryable', () => {
    expect(classifyAttempt(textAttempt('Segmentation fault', 139))).toMatchObject({ code: 'process_exit', retryable: true, ownerAction: false });
    expect(classifyAttempt(textAttempt('', null, { signal: 'SIGKILL' }))?.message).toContain('was killed by signal SIGKILL');
    expect(classifyAttempt(textAttempt('', 2))?.message).toContain('exited with code 2');
  });

  it('reads evidence from a PTY stream with colours and \\r\\n', () => {
    const splitter = new LineSplitter();
    const lines = splitter.push(new TextEncoder().encode('\u001b[31mError: 401 Unauthorized\u001b[0m\r\n'));
    expect(classifyAttempt(textAttempt(lines.join('\n')))?.code).toBe('auth_required');
  });
});

describe('retryDelayMs', () => {
  const profile = { maxAttempts: 3, retryBackoffBaseMs: 5000 };
  const now = observedAt.getTime();
  const withCode = (code: AttemptFailure['code'], quota: AttemptFailure['quota'] = null) => ({ code, quota });

  it('backs off exponentially after a process exit, up to maxAttempts', () => {
    expect(retryDelayMs(withCode('process_exit'), 1, profile, now)).toBe(5000);
    expect(retryDelayMs(withCode('process_exit'), 2, profile, now)).toBe(10_000);
    expect(retryDelayMs(withCode('process_exit'), 3, profile, now)).toBeNull();
    expect(retryDelayMs(withCode('process_exit'), 5, { maxAttempts: 10, retryBackoffBaseMs: 60_000 }, now, { maxBackoffMs: 120_000 })).toBe(120_000);
  });

  it('waits until the observed reset (plus a margin) for quota and rate limits', () => {
    const quota = { provider: 'gemini-cli', target: 'gemini-2.5-pro', resetAt: later(32_500), observedAt: later(0), validUntil: later(32_500) };
    expect(retryDelayMs(withCode('rate_limited', quota), 1, profile, now)).toBe(33_500);
    expect(retryDelayMs(withCode('quota_exhausted', { ...quota, validUntil: later(-5000) }), 1, profile, now)).toBe(1000);
    expect(retryDelayMs(withCode('rate_limited', quota), 3, profile, now)).toBeNull();
    expect(retryDelayMs(withCode('rate_limited'), 2, profile, now)).toBe(10_000);
  });

  it('never retries owner actions, cancellations or stranded runs', () => {
    for (const code of ['spawn_failed', 'auth_required', 'auth_expired', 'sandbox_unavailable', 'configuration_incomplete', 'setup_failed', 'cancelled', 'stranded'] as const) {
      expect(retryDelayMs(withCode(code), 1, profile, now)).toBeNull();
      expect(failurePolicies[code].retryable).toBe(false);
    }
    expect(retryDelayMs(withCode('ai_connection_busy'), 1, profile, now)).toBe(5000);
  });
});
