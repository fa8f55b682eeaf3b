import { describe, expect, it } from 'vitest';
import { describeHomeAndVersion } from '../definition.fixture';
import { deliver, file, key, throughBaseUrl } from '../delivery.fixture';
import { fixtureLines, reportedByServer, type FixtureTokens } from '../events/fixture-lines';
import { createEventParser, parseEventLine } from '../events/parse-event-line';
import { catalog, launchFor, launchRequest } from '../launch-request.fixture';
import { codexDefinition } from './definition';

const codex = launchFor('codex');
const profile = catalog.getProfile('codex', 'default');
const prompt = 'Fix the flaky test\n\nMake test X deterministic.';

describe('codex launch', () => {
  it('launches `codex exec --json` in the view with the console sandbox bypassing its own', () => {
    const launch = codex.build(launchRequest(profile, 'gpt-6.2-sol', { environmentKind: 'sandboxed' }));
    expect(launch.executable).toBe('codex');
    expect(launch.args).toEqual([
      'exec',
      '--json',
      '-C',
      '/data/tasks/run_1/view',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--model',
      'gpt-6.2-sol',
      '--',
      prompt,
    ]);
    expect(launch.cwd).toBe('/data/tasks/run_1/view');
    expect(launch.env).toEqual({ CODEX_HOME: '/data/tasks/run_1/cache/codex-home' });
  });

  it("keeps Codex's own workspace-write sandbox when the run is not OS-sandboxed", () => {
    const launch = codex.build(launchRequest(profile, 'gpt-5.5'));
    expect(launch.args).toEqual([
      'exec',
      '--json',
      '-C',
      '/data/tasks/run_1/view',
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
      '--model',
      'gpt-5.5',
      '--',
      prompt,
    ]);
  });

  it('learns the thread id from the stream, and knows where rollouts are kept', () => {
    const launch = codex.build(launchRequest(profile, 'gpt-6.2-sol', { session: { mode: 'new' } }));
    expect(launch.session).toEqual({ id: null, dir: '/data/tasks/run_1/cache/codex-home/sessions', source: 'stream' });
  });

  it('resumes with `exec ... resume <thread_id> -- <prompt>`, options before the subcommand', () => {
    const launch = codex.build(
      launchRequest(profile, 'gpt-6.2-sol', {
        environmentKind: 'sandboxed',
        prompt: 'Continue where you stopped.',
        session: { mode: 'resume', sessionId: '01a228be-81c0-72d0-8b00-72f53bfa6709' },
      }),
    );
    expect(launch.args).toEqual([
      'exec',
      '--json',
      '-C',
      '/data/tasks/run_1/view',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--model',
      'gpt-6.2-sol',
      'resume',
      '01a228be-81c0-72d0-8b00-72f53bfa6709',
      '--',
      'Continue where you stopped.',
    ]);
    expect(launch.session).toEqual({
      id: '01a228be-81c0-72d0-8b00-72f53bfa6709',
      dir: '/data/tasks/run_1/cache/codex-home/sessions',
      source: 'argv',
    });
  });

  it('puts profile args after the model, and lets a profile choose the sandbox policy', () => {
    const launch = codex.build(
      launchRequest({ ...profile, args: ['--sandbox', 'read-only', '-c', 'model_reasoning_effort="high"'] }, 'gpt-6.2-sol', {
        environmentKind: 'sandboxed',
      }),
    );
    expect(launch.args).toEqual([
      'exec',
      '--json',
      '-C',
      '/data/tasks/run_1/view',
      '--skip-git-repo-check',
      '--model',
      'gpt-6.2-sol',
      '--sandbox',
      'read-only',
      '-c',
      'model_reasoning_effort="high"',
      '--',
      prompt,
    ]);
  });

  it('keeps a prompt that starts with a dash a prompt', () => {
    const launch = codex.build(launchRequest(profile, 'gpt-6.2-sol', { prompt: '--help me' }));
    expect(launch.args.slice(-2)).toEqual(['--', '--help me']);
  });

  it('has no session to resume for an ephemeral profile', () => {
    const launch = codex.build(launchRequest(catalog.getProfile('codex', 'ephemeral'), 'gpt-6.2-sol'));
    expect(launch.args).toContain('--ephemeral');
    expect(launch.session).toBeNull();
  });

  it('adds the profile env after the provider home', () => {
    const launch = codex.build(launchRequest({ ...profile, env: { RUST_LOG: 'warn' } }, 'gpt-6.2-sol'));
    expect(launch.env).toEqual({ CODEX_HOME: '/data/tasks/run_1/cache/codex-home', RUST_LOG: 'warn' });
  });

  it('refuses to resume without a thread id', () => {
    expect(() => codex.build(launchRequest(profile, 'gpt-6.2-sol', { session: { mode: 'resume', sessionId: '' } }))).toThrow(
      expect.objectContaining({ code: 'invalid_request', reason: 'session_id_missing' }),
    );
  });
});

const parseAll = (lines: string[]) => {
  const parser = createEventParser('codex-jsonl');
  return lines.flatMap((line) => parser.parseLine(line));
};

describe('codex exec --json events', () => {
  it('turns a captured successful run into session, tool call, result, answer and usage', () => {
    expect(parseAll(fixtureLines('codex-ok.stdout.jsonl'))).toEqual([
      { kind: 'session', sessionId: '01a228be-81c0-72d0-8b00-72f53bfa6709' },
      {
        kind: 'error',
        message: 'Model metadata for `gpt-5` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.',
        fatal: false,
        code: null,
        httpStatus: null,
        resetAt: null,
      },
      { kind: 'tool_call', callId: 'item_1', name: 'shell', input: "/bin/bash -lc 'echo hi > hello.txt && cat hello.txt'" },
      { kind: 'tool_result', callId: 'item_1', name: 'shell', ok: true, output: 'hi\n' },
      { kind: 'message', role: 'assistant', text: 'Wrote hello.txt.' },
      { kind: 'usage', inputTokens: 2400, outputTokens: 68, cachedInputTokens: 400, reasoningTokens: 0, counting: 'per_session' },
    ]);
  });

  it('reports the session\'s running total: a resumed turn\'s report includes the first turn\'s calls', () => {
    const usage = (name: string) => parseAll(fixtureLines(name)).filter((event) => event.kind === 'usage');
    const asReported = (tokens: FixtureTokens) => ({
      kind: 'usage',
      inputTokens: tokens.input,
      outputTokens: tokens.output,
      cachedInputTokens: tokens.cachedInput,
      reasoningTokens: tokens.reasoning,
      counting: 'per_session',
    });
    // One report per turn, each the sum of every call of the session so far, as the server reported them.
    expect(usage('codex-turn-1.stdout.jsonl')).toEqual([asReported(reportedByServer('codex', [1]))]);
    expect(usage('codex-turn-2.stdout.jsonl')).toEqual([asReported(reportedByServer('codex', [1, 2]))]);
  });

  it('reports a failed turn as a fatal error with the HTTP status', () => {
    const events = parseAll(fixtureLines('codex-401.stdout.jsonl'));
    expect(events.at(-1)).toEqual({
      kind: 'error',
      message:
        'unexpected status 401 Unauthorized: Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys., url: http://127.0.0.1:18401/v1/responses',
      fatal: true,
      code: null,
      httpStatus: 401,
      resetAt: null,
    });
    expect(events.at(-2)).toMatchObject({ kind: 'error', fatal: false, httpStatus: 401 });
  });

  it('reads the 429 status out of "exceeded retry limit"', () => {
    expect(parseAll(fixtureLines('codex-429.stdout.jsonl')).at(-1)).toMatchObject({
      kind: 'error',
      fatal: true,
      httpStatus: 429,
      message: 'exceeded retry limit, last status: 429 Too Many Requests',
    });
  });

  it('maps file changes from an applied patch', () => {
    const line =
      '{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"/data/tasks/run_1/view/src/a.ts","kind":"update"},{"path":"/data/tasks/run_1/view/src/b.ts","kind":"add"},{"path":"/data/tasks/run_1/view/old.ts","kind":"delete"}],"status":"completed"}}';
    expect(parseEventLine('codex-jsonl', line)).toEqual([
      { kind: 'file_change', path: '/data/tasks/run_1/view/src/a.ts', change: 'update' },
      { kind: 'file_change', path: '/data/tasks/run_1/view/src/b.ts', change: 'add' },
      { kind: 'file_change', path: '/data/tasks/run_1/view/old.ts', change: 'delete' },
    ]);
    const failed = '{"type":"item.completed","item":{"id":"item_4","type":"file_change","changes":[{"path":"a.ts","kind":"update"}],"status":"failed"}}';
    expect(parseEventLine('codex-jsonl', failed)).toEqual([
      { kind: 'error', message: 'Codex could not apply a patch to a.ts.', fatal: false, code: null, httpStatus: null, resetAt: null },
    ]);
  });

  it('maps MCP tool calls, web searches, reasoning and plans', () => {
    const parser = createEventParser('codex-jsonl');
    expect(
      parser.parseLine(
        '{"type":"item.started","item":{"id":"item_5","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"pty"},"result":null,"error":null,"status":"in_progress"}}',
      ),
    ).toEqual([{ kind: 'tool_call', callId: 'item_5', name: 'docs.search', input: '{"q":"pty"}' }]);
    expect(
      parser.parseLine(
        '{"type":"item.completed","item":{"id":"item_5","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"pty"},"result":{"content":[{"type":"text","text":"found"}]},"error":null,"status":"completed"}}',
      ),
    ).toEqual([{ kind: 'tool_result', callId: 'item_5', name: 'docs.search', ok: true, output: '{"content":[{"type":"text","text":"found"}]}' }]);
    // A web search seen only on completion still shows as a call and its result.
    expect(parser.parseLine('{"type":"item.completed","item":{"id":"item_6","type":"web_search","query":"node-pty resize"}}')).toEqual([
      { kind: 'tool_call', callId: 'item_6', name: 'web_search', input: 'node-pty resize' },
      { kind: 'tool_result', callId: 'item_6', name: 'web_search', ok: true, output: '' },
    ]);
    expect(parser.parseLine('{"type":"item.completed","item":{"id":"item_7","type":"reasoning","text":"**Planning the fix**"}}')).toEqual([
      { kind: 'message', role: 'reasoning', text: '**Planning the fix**' },
    ]);
    expect(
      parser.parseLine(
        '{"type":"item.started","item":{"id":"item_8","type":"todo_list","items":[{"text":"Read the test","completed":true},{"text":"Fix it","completed":false}]}}',
      ),
    ).toEqual([{ kind: 'message', role: 'system', text: 'Plan:\n[x] Read the test\n[ ] Fix it' }]);
  });

  it('marks a failed command as a failed tool result', () => {
    const parser = createEventParser('codex-jsonl');
    parser.parseLine('{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"npm test","aggregated_output":"","exit_code":null,"status":"in_progress"}}');
    expect(
      parser.parseLine(
        '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"npm test","aggregated_output":"1 failed","exit_code":1,"status":"failed"}}',
      ),
    ).toEqual([{ kind: 'tool_result', callId: 'item_1', name: 'shell', ok: false, output: '1 failed' }]);
  });

  it('returns unknown types and items as raw', () => {
    const line = '{"type":"item.completed","item":{"id":"item_9","type":"hologram"}}';
    expect(parseEventLine('codex-jsonl', line)).toEqual([{ kind: 'raw', text: line }]);
    expect(parseEventLine('codex-jsonl', '{"type":"thread.paused"}')).toEqual([{ kind: 'raw', text: '{"type":"thread.paused"}' }]);
  });
});

describe('codex delivery', () => {
  it('Codex to OpenAI: auth.json with the key, CODEX_API_KEY, and file-based credentials', () => {
    const delivery = deliver(codexDefinition, { provider: 'openai', method: 'api_key', baseUrl: null }, 'gpt-5.5');
    expect(delivery.secretEnv).toEqual({ CODEX_API_KEY: key });
    expect(JSON.parse(file(delivery, 'auth.json'))).toEqual({ OPENAI_API_KEY: key });
    expect(file(delivery, 'config.toml')).toContain('cli_auth_credentials_store = "file"');
    expect(file(delivery, 'config.toml')).not.toContain('model_providers');
    expect(file(delivery, 'config.toml')).not.toContain(key);
    expect(delivery.secrets).toEqual([key]);
  });

  it('Codex through a base URL: a custom Responses provider reading CODEX_API_KEY, no auth.json', () => {
    const delivery = deliver(codexDefinition, { provider: 'custom', method: 'api_key', baseUrl: 'http://127.0.0.1:8080/v1/' });
    const config = file(delivery, 'config.toml');
    expect(config).toContain('model_provider = "operator-console"');
    expect(config).toContain('[model_providers.operator-console]');
    expect(config).toContain('base_url = "http://127.0.0.1:8080/v1"');
    expect(config).toContain('wire_api = "responses"');
    expect(config).toContain('env_key = "CODEX_API_KEY"');
    expect(file(delivery, 'auth.json')).toBeUndefined();
    // OpenRouter without a base URL of its own goes through its public endpoint the same way.
    expect(file(deliver(codexDefinition, { provider: 'openrouter', method: 'api_key', baseUrl: null }), 'config.toml')).toContain(
      'base_url = "https://openrouter.ai/api/v1"',
    );
  });

  it('Codex: config.toml with a custom Responses provider reading CODEX_API_KEY, its retries off', () => {
    expect(throughBaseUrl(codexDefinition, 'custom', 'http://127.0.0.1:8080/v1/')).toEqual({
      secretEnv: { CODEX_API_KEY: key },
      plainEnv: {},
      files: [
        {
          relativePath: 'config.toml',
          content: [
            '# Written by Operator Console for one run (AI connection delivery); removed when the run ends.',
            'model = "m-1"',
            'model_provider = "operator-console"',
            'cli_auth_credentials_store = "file"',
            'check_for_update_on_startup = false',
            '',
            '[analytics]',
            'enabled = false',
            '',
            '# The curated plugins marketplace is synced from github.com at start; a run reaches only its model.',
            '[features]',
            'plugins = false',
            'remote_plugin = false',
            '',
            '[model_providers.operator-console]',
            'name = "Operator Console AI connection"',
            'base_url = "http://127.0.0.1:8080/v1"',
            'wire_api = "responses"',
            'env_key = "CODEX_API_KEY"',
            'request_max_retries = 0',
            'stream_max_retries = 0',
            '',
          ].join('\n'),
        },
      ],
      secrets: [key],
      modelArgument: 'm-1',
    });
    // TOML strings are escaped.
    expect(file(throughBaseUrl(codexDefinition, 'custom', 'http://h/v1?a="b"'), 'config.toml')).toContain('base_url = "http://h/v1?a=\\"b\\""');
  });
});

describeHomeAndVersion(codexDefinition, { variable: 'CODEX_HOME', folder: 'codex-home', versionOutput: 'codex-cli 0.171.0\n', version: '0.171.0' });
