import { describe, expect, it } from 'vitest';
import { modelArgumentFor } from '../credential-delivery';
import { describeHomeAndVersion } from '../definition.fixture';
import { deliver, file, json, key, throughBaseUrl } from '../delivery.fixture';
import { fixtureLines, reportedByServer } from '../events/fixture-lines';
import { createEventParser, parseEventLine } from '../events/parse-event-line';
import { catalog, launchFor, launchRequest } from '../launch-request.fixture';
import { codexDefinition } from '../codex/definition';
import { piDefinition } from './definition';
import { guardPiMessage } from './launch';

const pi = launchFor('pi');
const profile = catalog.getProfile('pi', 'default');
const prompt = 'Fix the flaky test\n\nMake test X deterministic.';
const sessionDir = '/data/tasks/run_1/cache/pi-agent/sessions';

describe('pi launch', () => {
  it('launches json print mode with a session file chosen before launch', () => {
    const launch = pi.build(launchRequest(profile, 'anthropic/claude-sonnet-4-6'));
    expect(launch.executable).toBe('pi');
    expect(launch.args).toEqual([
      '--mode',
      'json',
      '-p',
      '--session-dir',
      sessionDir,
      '--session',
      `${sessionDir}/3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11.jsonl`,
      '--model',
      'anthropic/claude-sonnet-4-6',
      prompt,
    ]);
    expect(launch.env).toEqual({ PI_CODING_AGENT_DIR: '/data/tasks/run_1/cache/pi-agent', PI_OFFLINE: '1' });
    expect(launch.cwd).toBe('/data/tasks/run_1/view');
    // Known from the argv, so it can be persisted before the run is awaited.
    expect(launch.session).toEqual({ id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', dir: sessionDir, source: 'argv' });
  });

  it('resumes by opening the same session file', () => {
    const launch = pi.build(
      launchRequest(profile, 'anthropic/claude-sonnet-4-6', {
        prompt: 'Continue.',
        session: { mode: 'resume', sessionId: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', sessionDir: '/saved/pi-sessions' },
      }),
    );
    expect(launch.args).toEqual([
      '--mode',
      'json',
      '-p',
      '--session-dir',
      '/saved/pi-sessions',
      '--session',
      '/saved/pi-sessions/3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11.jsonl',
      '--model',
      'anthropic/claude-sonnet-4-6',
      'Continue.',
    ]);
    expect(launch.session).toEqual({ id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11', dir: '/saved/pi-sessions', source: 'argv' });
  });

  it('resumes in the task cache when no session directory was recorded', () => {
    const launch = pi.build(
      launchRequest(profile, 'openai/gpt-5.5', { session: { mode: 'resume', sessionId: 'abc' } }),
    );
    expect(launch.args.slice(3, 7)).toEqual(['--session-dir', sessionDir, '--session', `${sessionDir}/abc.jsonl`]);
  });

  it('keeps a prompt that starts with a dash or @ from being read as a flag or a file', () => {
    expect(guardPiMessage('--version please')).toBe(' --version please');
    expect(guardPiMessage('@README.md summarise')).toBe(' @README.md summarise');
    expect(guardPiMessage('plain')).toBe('plain');
    const launch = pi.build(launchRequest(profile, 'openai/gpt-5.5', { prompt: '-x' }));
    expect(launch.args.at(-1)).toBe(' -x');
  });

  it('puts profile args before the prompt', () => {
    const launch = pi.build(launchRequest({ ...profile, args: ['--thinking', 'high'] }, 'openai/gpt-5.5'));
    expect(launch.args.slice(-3)).toEqual(['--thinking', 'high', prompt]);
  });
});

const parseAll = (lines: string[]) => {
  const parser = createEventParser('pi-json');
  return lines.flatMap((line) => parser.parseLine(line));
};

describe('pi --mode json events', () => {
  it('turns a captured successful run into session, messages, tool call, result, file change and usage', () => {
    expect(parseAll(fixtureLines('pi-ok.stdout.jsonl'))).toEqual([
      { kind: 'session', sessionId: '01a228c1-eefe-7138-86e7-8626799ff2d3' },
      { kind: 'message', role: 'user', text: 'write hello' },
      { kind: 'message', role: 'assistant', text: 'Writing the file.' },
      // Pi's input 900 leaves the 100 cache reads out; the console counts them in.
      { kind: 'usage', inputTokens: 1000, outputTokens: 40, cachedInputTokens: 100, reasoningTokens: null, counting: 'per_call' },
      { kind: 'tool_call', callId: 'toolu_01', name: 'write', input: '{"path":"hello.txt","content":"hi\\n"}' },
      { kind: 'tool_result', callId: 'toolu_01', name: 'write', ok: true, output: 'Successfully wrote 3 bytes to hello.txt' },
      { kind: 'file_change', path: 'hello.txt', change: 'write' },
      { kind: 'message', role: 'assistant', text: 'Done: wrote hello.txt.' },
      { kind: 'usage', inputTokens: 1000, outputTokens: 12, cachedInputTokens: 100, reasoningTokens: null, counting: 'per_call' },
    ]);
  });

  it('reports each model call once: the calls of a resumed turn are its own, cache reads counted as input', () => {
    const usage = (name: string) => parseAll(fixtureLines(name)).filter((event) => event.kind === 'usage');
    const sum = (events: ReturnType<typeof usage>) =>
      events.reduce(
        (total, event) =>
          event.kind === 'usage'
            ? { input: total.input + event.inputTokens, output: total.output + event.outputTokens, cachedInput: total.cachedInput + (event.cachedInputTokens ?? 0) }
            : total,
        { input: 0, output: 0, cachedInput: 0 },
      );
    for (const turn of [1, 2]) {
      const events = usage(`pi-turn-${turn}.stdout.jsonl`);
      // Two calls a turn (the tool call, the answer), each reported once, none repeated from the first turn.
      expect(events.map((event) => event.kind === 'usage' && [event.counting, event.reasoningTokens])).toEqual([
        ['per_call', null],
        ['per_call', null],
      ]);
      // Pi keeps no reasoning count; the chat completion's reasoning is in its output.
      const { reasoning: _reasoning, ...server } = reportedByServer('pi', [turn]);
      expect(sum(events)).toEqual(server);
    }
  });

  it('reports a failed model call as a fatal error, although Pi exits 0', () => {
    expect(parseAll(fixtureLines('pi-401.stdout.jsonl'))).toEqual([
      { kind: 'session', sessionId: '01a228c2-0735-77ac-adf1-05be1075ab7f' },
      { kind: 'message', role: 'user', text: 'hi' },
      {
        kind: 'error',
        message: '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
        fatal: true,
        code: 'authentication_error',
        httpStatus: 401,
        resetAt: null,
      },
    ]);
  });

  it('reports an automatic retry as a non-fatal error', () => {
    const events = parseAll(fixtureLines('pi-429.stdout.jsonl'));
    expect(events.at(-1)).toMatchObject({ kind: 'error', fatal: false, httpStatus: 429, message: expect.stringContaining('(retry 1 of 3)') });
    expect(parseEventLine('pi-json', '{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"429 rate limited"}')).toEqual([
      { kind: 'error', message: '429 rate limited', fatal: true, code: null, httpStatus: 429, resetAt: null },
    ]);
    expect(parseEventLine('pi-json', '{"type":"auto_retry_end","success":true,"attempt":2}')).toEqual([]);
  });

  it('maps an edit to an updated file and a failed tool to ok: false', () => {
    const parser = createEventParser('pi-json');
    parser.parseLine('{"type":"tool_execution_start","toolCallId":"c1","toolName":"edit","args":{"path":"src/a.ts","oldText":"a","newText":"b"}}');
    expect(
      parser.parseLine('{"type":"tool_execution_end","toolCallId":"c1","toolName":"edit","result":{"content":[{"type":"text","text":"Edited src/a.ts"}]},"isError":false}'),
    ).toEqual([
      { kind: 'tool_result', callId: 'c1', name: 'edit', ok: true, output: 'Edited src/a.ts' },
      { kind: 'file_change', path: 'src/a.ts', change: 'update' },
    ]);
    parser.parseLine('{"type":"tool_execution_start","toolCallId":"c2","toolName":"bash","args":{"command":"false"}}');
    expect(
      parser.parseLine('{"type":"tool_execution_end","toolCallId":"c2","toolName":"bash","result":{"content":[{"type":"text","text":"exit 1"}]},"isError":true}'),
    ).toEqual([{ kind: 'tool_result', callId: 'c2', name: 'bash', ok: false, output: 'exit 1' }]);
  });

  it('ignores lifecycle markers and streaming deltas, and keeps unknown types as raw', () => {
    for (const type of ['agent_start', 'turn_start', 'turn_end', 'message_start', 'message_update', 'agent_end', 'queue_update']) {
      expect(parseEventLine('pi-json', `{"type":"${type}"}`)).toEqual([]);
    }
    expect(parseEventLine('pi-json', '{"type":"extension_ui_request","id":"x"}')).toEqual([{ kind: 'raw', text: '{"type":"extension_ui_request","id":"x"}' }]);
  });
});

describe('pi delivery', () => {
  it('Pi: the provider’s key variable, or a custom provider in models.json naming the variable (never the key)', () => {
    const direct = deliver(piDefinition, { provider: 'anthropic', method: 'api_key', baseUrl: null }, 'anthropic/claude-sonnet-4-6');
    expect(direct.secretEnv).toEqual({ ANTHROPIC_API_KEY: key });
    expect(file(direct, 'models.json')).toBeUndefined();
    const connection = { provider: 'custom' as const, method: 'api_key' as const, baseUrl: 'http://127.0.0.1:8080/v1' };
    const custom = deliver(piDefinition, connection, 'openai/gpt-5.5');
    expect(custom.secretEnv).toEqual({ OPERATOR_CONSOLE_API_KEY: key });
    const models = JSON.parse(file(custom, 'models.json')) as { providers: Record<string, unknown> };
    // The model id is the one the operator chose, whole: the gateway names it `openai/gpt-5.5`.
    expect(models.providers['operator-console']).toMatchObject({
      baseUrl: 'http://127.0.0.1:8080/v1',
      api: 'openai-completions',
      apiKey: 'OPERATOR_CONSOLE_API_KEY',
      models: [{ id: 'openai/gpt-5.5', name: 'openai/gpt-5.5' }],
    });
    expect(file(custom, 'models.json')).not.toContain(key);
    expect(modelArgumentFor(piDefinition, connection, 'openai/gpt-5.5')).toBe('operator-console/openai/gpt-5.5');
    expect(modelArgumentFor(piDefinition, connection, 'llama3.1:8b')).toBe('operator-console/llama3.1:8b');
    expect(modelArgumentFor(piDefinition, { ...connection, provider: 'openai', baseUrl: null }, 'openai/gpt-5.5')).toBe('openai/gpt-5.5');
    expect(modelArgumentFor(codexDefinition, connection, 'gpt-5.5')).toBe('gpt-5.5');
  });

  it('Pi: models.json naming the key variable (never the key), settings.json with its retries off, the model as operator-console/<model>', () => {
    expect(throughBaseUrl(piDefinition, 'custom', 'http://127.0.0.1:8080/v1/')).toEqual({
      secretEnv: { OPERATOR_CONSOLE_API_KEY: key },
      plainEnv: {},
      files: [
        {
          relativePath: 'models.json',
          content: json({
            providers: {
              'operator-console': {
                baseUrl: 'http://127.0.0.1:8080/v1',
                api: 'openai-completions',
                apiKey: 'OPERATOR_CONSOLE_API_KEY',
                models: [{ id: 'm-1', name: 'm-1', reasoning: false, input: ['text'], contextWindow: 200_000, maxTokens: 32_000 }],
              },
            },
          }),
        },
        { relativePath: 'settings.json', content: json({ retry: { enabled: false, maxRetries: 0, provider: { maxRetries: 0 } } }) },
      ],
      secrets: [key],
      modelArgument: 'operator-console/m-1',
    });
  });
});

describeHomeAndVersion(piDefinition, { variable: 'PI_CODING_AGENT_DIR', folder: 'pi-agent', versionOutput: '0.73.1\n', version: '0.73.1' });
