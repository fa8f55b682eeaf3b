import { describe, expect, it } from 'vitest';
import { fixtureLines } from './fixture-lines';
import { createEventParser, parseEventLine } from './parse-event-line';

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
      { kind: 'usage', inputTokens: 1800, outputTokens: 52, cachedInputTokens: 200 },
    ]);
  });

  it('reports an invalid key as an error with the code, then a fatal error with the status', () => {
    const events = parseAll(fixtureLines('claude-401.stdout.jsonl'));
    expect(events).toEqual([
      { kind: 'session', sessionId: '3f0c6f0e-5b7a-4c55-9a55-0c6f3a1d2b11' },
      { kind: 'error', message: 'Invalid API key · Fix external API key', fatal: false, code: 'authentication_failed', httpStatus: null, resetAt: null },
      { kind: 'usage', inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
      { kind: 'error', message: 'Invalid API key · Fix external API key', fatal: true, code: null, httpStatus: 401, resetAt: null },
    ]);
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
