import { describe, expect, it } from 'vitest';
import { describeHomeAndVersion } from '../definition.fixture';
import { deliver, key, throughBaseUrl } from '../delivery.fixture';
import { fixtureLines, reportedByServer, type FixtureTokens } from '../events/fixture-lines';
import { createEventParser, parseEventLine } from '../events/parse-event-line';
import { catalog, launchFor, launchRequest } from '../launch-request.fixture';
import { claudeCodeDefinition } from './definition';

const claude = launchFor('claude-code');
const profile = catalog.getProfile('claude-code', 'default');
const prompt = 'Fix the flaky test\n\nMake test X deterministic.';

describe('claude code launch', () => {
  it('launches print mode with stream-json, a session id chosen up front and acceptEdits', () => {
    const launch = claude.build(launchRequest(profile, 'claude-sonnet-4-6'));
    expect(launch.executable).toBe('claude');
    expect(launch.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      '--model',
      'claude-sonnet-4-6',
      '--permission-mode',
      'acceptEdits',
      '--',
      prompt,
    ]);
    expect(launch.cwd).toBe('/data/tasks/run_1/view');
    expect(launch.env).toEqual({
      CLAUDE_CONFIG_DIR: '/data/tasks/run_1/cache/claude-config',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    expect(launch.session).toEqual({
      id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      dir: '/data/tasks/run_1/cache/claude-config/projects',
      source: 'argv',
    });
  });

  it('draws a fresh UUID per launch when no id source is given', () => {
    const request = launchRequest(profile, 'claude-sonnet-4-6', { newSessionId: undefined });
    const first = claude.build(request).session?.id;
    const second = claude.build(request).session?.id;
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).not.toBe(first);
  });

  it('resumes with --resume <uuid>', () => {
    const launch = claude.build(
      launchRequest(profile, 'claude-sonnet-4-6', {
        prompt: 'Continue.',
        session: { mode: 'resume', sessionId: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', sessionDir: '/saved/projects' },
      }),
    );
    expect(launch.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      '--model',
      'claude-sonnet-4-6',
      '--permission-mode',
      'acceptEdits',
      '--',
      'Continue.',
    ]);
    expect(launch.session).toEqual({ id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', dir: '/saved/projects', source: 'argv' });
  });

  it("lets a profile choose the permission mode instead of the launch's", () => {
    const bypass = catalog.getProfile('claude-code', 'bypass-permissions');
    const launch = claude.build(launchRequest(bypass, 'claude-opus-4-8'));
    expect(launch.args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      '--model',
      'claude-opus-4-8',
      '--permission-mode',
      'bypassPermissions',
      '--',
      prompt,
    ]);
    // Claude refuses to skip permissions as root unless told it is in a sandbox.
    expect(launch.env.IS_SANDBOX).toBe('1');
  });

  it('ends the options before the prompt so variadic profile flags cannot swallow it', () => {
    const launch = claude.build(launchRequest({ ...profile, args: ['--allowedTools', 'Bash(npm test)', 'Edit'] }, 'claude-sonnet-4-6'));
    expect(launch.args.slice(-5)).toEqual(['--allowedTools', 'Bash(npm test)', 'Edit', '--', prompt]);
  });
});

const parseAll = (lines: string[]) => {
  const parser = createEventParser('claude-stream-json');
  return lines.flatMap((line) => parser.parseLine(line));
};

describe('claude stream-json events', () => {
  it('turns a captured successful run into session, messages, tool call, result, file change and usage', () => {
    expect(parseAll(fixtureLines('claude-ok.stdout.jsonl'))).toEqual([
      { kind: 'session', sessionId: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11' },
      { kind: 'message', role: 'assistant', text: 'Writing the file.' },
      {
        kind: 'tool_call',
        callId: 'toolu_01',
        name: 'Write',
        input: '{"file_path":"/data/tasks/run_1/view/hello.txt","content":"hi\\n"}',
      },
      {
        kind: 'tool_result',
        callId: 'toolu_01',
        name: 'Write',
        ok: true,
        output: 'File created successfully at: /data/tasks/run_1/view/hello.txt (file state is current in your context — no need to Read it back)',
      },
      { kind: 'file_change', path: '/data/tasks/run_1/view/hello.txt', change: 'add' },
      { kind: 'message', role: 'assistant', text: 'Done: wrote hello.txt.' },
      // input_tokens 1800 leaves the 200 cache reads out; the console counts them in.
      { kind: 'usage', inputTokens: 2000, outputTokens: 52, cachedInputTokens: 200, reasoningTokens: null, counting: 'per_invocation' },
    ]);
  });

  it('reports an invalid key as an error with the code, then a fatal error with the status', () => {
    const events = parseAll(fixtureLines('claude-401.stdout.jsonl'));
    expect(events).toEqual([
      { kind: 'session', sessionId: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11' },
      { kind: 'error', message: 'Invalid API key · Fix external API key', fatal: false, code: 'authentication_failed', httpStatus: null, resetAt: null },
      { kind: 'usage', inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: null, counting: 'per_invocation' },
      { kind: 'error', message: 'Invalid API key · Fix external API key', fatal: true, code: null, httpStatus: 401, resetAt: null },
    ]);
  });

  it('reports each invocation\'s calls once, cache reads and writes counted as input: a resumed turn reports only its own', () => {
    const usage = (name: string) => parseAll(fixtureLines(name)).filter((event) => event.kind === 'usage');
    // Anthropic reports reasoning inside output_tokens with no count of its own: the console says it does not know.
    const asReported = (tokens: FixtureTokens) => ({
      kind: 'usage',
      inputTokens: tokens.input,
      outputTokens: tokens.output,
      cachedInputTokens: tokens.cachedInput,
      reasoningTokens: null,
      counting: 'per_invocation',
    });
    expect(usage('claude-turn-1.stdout.jsonl')).toEqual([asReported(reportedByServer('claude', [1]))]);
    expect(usage('claude-turn-2.stdout.jsonl')).toEqual([asReported(reportedByServer('claude', [2]))]);
  });

  it('reports a rate limit with status 429', () => {
    expect(parseAll(fixtureLines('claude-429.stdout.jsonl')).at(-1)).toMatchObject({
      kind: 'error',
      fatal: true,
      httpStatus: 429,
      message: expect.stringContaining('API Error: Request rejected (429)'),
    });
  });

  it('reports API retries as non-fatal errors', () => {
    const line =
      '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":548.5448525027855,"error_status":401,"error":"authentication_failed","session_id":"3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11","uuid":"2a798294-3464-44a6-8456-1060c7609048"}';
    expect(parseEventLine('claude-stream-json', line)).toEqual([
      {
        kind: 'error',
        message: 'API request failed (401 authentication_failed); retry 1 of 10 in 0.5s.',
        fatal: false,
        code: 'authentication_failed',
        httpStatus: 401,
        resetAt: null,
      },
    ]);
  });

  it('carries the reset time of a rejected subscription limit', () => {
    const line =
      '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1893456000,"rateLimitType":"five_hour"},"uuid":"u","session_id":"s"}';
    expect(parseEventLine('claude-stream-json', line)).toEqual([
      {
        kind: 'error',
        message: 'Claude usage limit reached (five_hour); resets at 2030-01-01T00:00:00.000Z.',
        fatal: false,
        code: 'rate_limit_rejected',
        httpStatus: null,
        resetAt: '2030-01-01T00:00:00.000Z',
      },
    ]);
    expect(parseEventLine('claude-stream-json', '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","utilization":0.9}}')).toEqual([]);
  });

  it('maps an Edit result to an updated file and a failed tool to ok: false', () => {
    const parser = createEventParser('claude-stream-json');
    parser.parseLine(
      '{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"Look at the test first."},{"type":"tool_use","id":"toolu_02","name":"Edit","input":{"file_path":"/v/a.ts","old_string":"1","new_string":"2"}}]}}',
    );
    expect(
      parser.parseLine(
        '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_02","type":"tool_result","content":[{"type":"text","text":"The file /v/a.ts has been updated."}]}]},"tool_use_result":{"filePath":"/v/a.ts","oldString":"1","newString":"2","structuredPatch":[]}}',
      ),
    ).toEqual([
      { kind: 'tool_result', callId: 'toolu_02', name: 'Edit', ok: true, output: 'The file /v/a.ts has been updated.' },
      { kind: 'file_change', path: '/v/a.ts', change: 'update' },
    ]);
    expect(
      parser.parseLine('{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_03","type":"tool_result","content":"Exit code 1","is_error":true}]}}'),
    ).toEqual([{ kind: 'tool_result', callId: 'toolu_03', name: null, ok: false, output: 'Exit code 1' }]);
  });

  it('shows thinking as reasoning', () => {
    expect(parseEventLine('claude-stream-json', '{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"Hmm."}]}}')).toEqual([
      { kind: 'message', role: 'reasoning', text: 'Hmm.' },
    ]);
  });

  it('returns unknown system subtypes and types as raw', () => {
    const line = '{"type":"system","subtype":"hook_started","hook":"x"}';
    expect(parseEventLine('claude-stream-json', line)).toEqual([{ kind: 'raw', text: line }]);
    expect(parseEventLine('claude-stream-json', '{"type":"prompt_suggestion","text":"next"}')).toEqual([
      { kind: 'raw', text: '{"type":"prompt_suggestion","text":"next"}' },
    ]);
  });
});

describe('claude-code delivery', () => {
  it('Claude Code: ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN, ANTHROPIC_BASE_URL, no files', () => {
    const api = deliver(claudeCodeDefinition, { provider: 'anthropic', method: 'api_key', baseUrl: 'http://127.0.0.1:9/' });
    expect(api.secretEnv).toEqual({ ANTHROPIC_API_KEY: key });
    expect(api.plainEnv).toMatchObject({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(api.files).toEqual([]);
    const token = deliver(claudeCodeDefinition, { provider: 'anthropic', method: 'subscription_token', baseUrl: null });
    expect(token.secretEnv).toEqual({ CLAUDE_CODE_OAUTH_TOKEN: key });
    expect(token.plainEnv.ANTHROPIC_BASE_URL).toBeUndefined();
  });

  it('Claude Code: the key, the origin without a trailing slash, no updater, its retries off; no file', () => {
    expect(throughBaseUrl(claudeCodeDefinition, 'anthropic', 'http://127.0.0.1:8080/')).toEqual({
      secretEnv: { ANTHROPIC_API_KEY: key },
      plainEnv: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080', DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_MAX_RETRIES: '0' },
      files: [],
      secrets: [key],
      modelArgument: 'm-1',
    });
  });
});

describeHomeAndVersion(claudeCodeDefinition, { variable: 'CLAUDE_CONFIG_DIR', folder: 'claude-config', versionOutput: '2.1.197 (Claude Code)\n', version: '2.1.197' });
