import { describe, expect, it } from 'vitest';
import { describeHomeAndVersion } from '../definition.fixture';
import { deliver, file, json, key, throughBaseUrl } from '../delivery.fixture';
import { fixtureLines, reportedByServer, type FixtureTokens } from '../events/fixture-lines';
import { createEventParser, parseEventLine } from '../events/parse-event-line';
import { catalog, launchFor, launchRequest } from '../launch-request.fixture';
import { geminiCliDefinition } from './definition';

const gemini = launchFor('gemini-cli');
const profile = catalog.getProfile('gemini-cli', 'default');
const prompt = 'Fix the flaky test\n\nMake test X deterministic.';

describe('gemini cli launch', () => {
  it('launches headless stream-json with a session id chosen up front, trust skipped and yolo', () => {
    const launch = gemini.build(launchRequest(profile, 'gemini-2.5-pro'));
    expect(launch.executable).toBe('gemini');
    expect(launch.args).toEqual([
      `--prompt=${prompt}`,
      '-o',
      'stream-json',
      '--model',
      'gemini-2.5-pro',
      '--skip-trust',
      '--session-id',
      '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      '--approval-mode',
      'yolo',
    ]);
    expect(launch.env).toEqual({ GEMINI_CLI_HOME: '/data/tasks/run_1/cache/gemini-home' });
    expect(launch.cwd).toBe('/data/tasks/run_1/view');
    expect(launch.session).toEqual({
      id: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11',
      dir: '/data/tasks/run_1/cache/gemini-home/.gemini/tmp',
      source: 'argv',
    });
  });

  it('resumes with --resume <uuid> (a --session-id that exists is refused by the CLI)', () => {
    const launch = gemini.build(
      launchRequest(profile, 'gemini-2.5-pro', {
        prompt: 'Continue.',
        session: { mode: 'resume', sessionId: '7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f' },
      }),
    );
    expect(launch.args).toEqual([
      '--prompt=Continue.',
      '-o',
      'stream-json',
      '--model',
      'gemini-2.5-pro',
      '--skip-trust',
      '--resume',
      '7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
      '--approval-mode',
      'yolo',
    ]);
    expect(launch.session?.id).toBe('7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f');
  });

  it('passes a prompt that starts with a dash as the prompt value', () => {
    const launch = gemini.build(launchRequest(profile, 'gemini-2.5-pro', { prompt: '-x dash prompt' }));
    expect(launch.args[0]).toBe('--prompt=-x dash prompt');
  });

  it('lets a profile choose the approval mode', () => {
    const launch = gemini.build(launchRequest(catalog.getProfile('gemini-cli', 'auto-edit'), 'gemini-3-pro-preview'));
    expect(launch.args.slice(-2)).toEqual(['--approval-mode', 'auto_edit']);
    expect(launch.args.filter((arg) => arg === '--approval-mode')).toHaveLength(1);
  });
});

const parseAll = (lines: string[]) => {
  const parser = createEventParser('gemini-stream-json');
  return lines.flatMap((line) => parser.parseLine(line));
};

describe('gemini -o stream-json events', () => {
  it('turns a captured successful run into session, messages, tool call, result, file change and usage', () => {
    expect(parseAll(fixtureLines('gemini-ok.stdout.jsonl'))).toEqual([
      { kind: 'session', sessionId: '7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f' },
      { kind: 'message', role: 'user', text: 'write hello' },
      { kind: 'message', role: 'assistant', text: 'Writing the file.' },
      {
        kind: 'tool_call',
        callId: 'write_file__write_file_1795980284858_0',
        name: 'write_file',
        input: '{"file_path":"hello.txt","content":"hi\\n"}',
      },
      { kind: 'tool_result', callId: 'write_file__write_file_1795980284858_0', name: 'write_file', ok: true, output: '' },
      { kind: 'file_change', path: 'hello.txt', change: 'write' },
      { kind: 'message', role: 'assistant', text: 'Done: wrote hello.txt.' },
      { kind: 'usage', inputTokens: 1600, outputTokens: 40, cachedInputTokens: 0, reasoningTokens: 0, counting: 'per_invocation' },
    ]);
  });

  it('reports each invocation\'s calls once, thoughts counted as output: a resumed turn reports only its own', () => {
    const usage = (name: string) => parseAll(fixtureLines(name)).filter((event) => event.kind === 'usage');
    const asReported = (tokens: FixtureTokens) => ({
      kind: 'usage',
      inputTokens: tokens.input,
      outputTokens: tokens.output,
      cachedInputTokens: tokens.cachedInput,
      reasoningTokens: tokens.reasoning,
      counting: 'per_invocation',
    });
    expect(usage('gemini-turn-1.stdout.jsonl')).toEqual([asReported(reportedByServer('gemini', [1]))]);
    expect(usage('gemini-turn-2.stdout.jsonl')).toEqual([asReported(reportedByServer('gemini', [2]))]);
  });

  it('reports an invalid key as a fatal error with the embedded status', () => {
    expect(parseAll(fixtureLines('gemini-401.stdout.jsonl')).at(-1)).toEqual({
      kind: 'error',
      message:
        '[API Error: {"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}]',
      fatal: true,
      code: 'unknown',
      httpStatus: 400,
      resetAt: null,
    });
  });

  it('turns the stderr noise a PTY mixes in into raw events', () => {
    expect(parseEventLine('gemini-stream-json', 'YOLO mode is enabled. All tool calls will be automatically approved.')).toEqual([
      { kind: 'raw', text: 'YOLO mode is enabled. All tool calls will be automatically approved.' },
    ]);
  });

  it('maps a failed tool and a warning', () => {
    const parser = createEventParser('gemini-stream-json');
    parser.parseLine('{"type":"tool_use","tool_name":"replace","tool_id":"r1","parameters":{"file_path":"a.ts","old_string":"x","new_string":"y"}}');
    expect(
      parser.parseLine('{"type":"tool_result","tool_id":"r1","status":"error","output":"","error":{"type":"EDIT_NO_OCCURRENCE_FOUND","message":"Failed to edit, 0 occurrences found"}}'),
    ).toEqual([{ kind: 'tool_result', callId: 'r1', name: 'replace', ok: false, output: 'Failed to edit, 0 occurrences found' }]);
    expect(parser.parseLine('{"type":"error","severity":"warning","message":"Loop detected, stopping execution"}')).toEqual([
      { kind: 'error', message: 'Loop detected, stopping execution', fatal: false, code: 'warning', httpStatus: null, resetAt: null },
    ]);
  });

  it('joins streamed pieces of assistant text into one message, completed by the next line or the end', () => {
    const parser = createEventParser('gemini-stream-json');
    const piece = (content: string) => parser.parseLine(JSON.stringify({ type: 'message', role: 'assistant', content, delta: true }));
    expect(piece('I will cr')).toEqual([]);
    expect(piece('eate the ')).toEqual([]);
    // PTY noise between the pieces does not cut the message.
    expect(parser.parseLine('Ripgrep is not available. Falling back to GrepTool.')).toEqual([
      { kind: 'raw', text: 'Ripgrep is not available. Falling back to GrepTool.' },
    ]);
    expect(piece('file now.')).toEqual([]);
    expect(parser.parseLine('{"type":"tool_use","tool_name":"write_file","tool_id":"w1","parameters":{"file_path":"a.txt","content":"x"}}')).toEqual([
      { kind: 'message', role: 'assistant', text: 'I will create the file now.' },
      { kind: 'tool_call', callId: 'w1', name: 'write_file', input: '{"file_path":"a.txt","content":"x"}' },
    ]);
    expect(piece('Done: the')).toEqual([]);
    expect(piece(' file is written.')).toEqual([]);
    expect(parser.flush()).toEqual([{ kind: 'message', role: 'assistant', text: 'Done: the file is written.' }]);
    expect(parser.flush()).toEqual([]);
  });
});

describe('gemini-cli delivery', () => {
  it('Gemini CLI: GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL and settings.json selecting API-key auth', () => {
    const delivery = deliver(geminiCliDefinition, { provider: 'google', method: 'api_key', baseUrl: 'http://127.0.0.1:7' });
    expect(delivery.secretEnv).toEqual({ GEMINI_API_KEY: key });
    expect(delivery.plainEnv).toEqual({ GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:7' });
    const settings = JSON.parse(file(delivery, '.gemini/settings.json')) as { security: { auth: { selectedType: string } } };
    expect(settings.security.auth.selectedType).toBe('gemini-api-key');
  });

  it('Gemini CLI: the key, the origin, and .gemini/settings.json selecting API-key auth with one attempt', () => {
    expect(throughBaseUrl(geminiCliDefinition, 'custom', 'http://127.0.0.1:8080/')).toEqual({
      secretEnv: { GEMINI_API_KEY: key },
      plainEnv: { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:8080' },
      files: [
        {
          relativePath: '.gemini/settings.json',
          content: json({
            security: { auth: { selectedType: 'gemini-api-key' } },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: 1 },
          }),
        },
      ],
      secrets: [key],
      modelArgument: 'm-1',
    });
  });
});

describeHomeAndVersion(geminiCliDefinition, { variable: 'GEMINI_CLI_HOME', folder: 'gemini-home', versionOutput: '\u001b[32m0.61.0\u001b[0m\n', version: '0.61.0' });
