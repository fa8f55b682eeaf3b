import { describe, expect, it } from 'vitest';
import { fixtureLines } from './fixture-lines';
import { createEventParser, parseEventLine } from './parse-event-line';

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
      { kind: 'usage', inputTokens: 900, outputTokens: 40, cachedInputTokens: 100 },
      { kind: 'tool_call', callId: 'toolu_01', name: 'write', input: '{"path":"hello.txt","content":"hi\\n"}' },
      { kind: 'tool_result', callId: 'toolu_01', name: 'write', ok: true, output: 'Successfully wrote 3 bytes to hello.txt' },
      { kind: 'file_change', path: 'hello.txt', change: 'write' },
      { kind: 'message', role: 'assistant', text: 'Done: wrote hello.txt.' },
      { kind: 'usage', inputTokens: 900, outputTokens: 12, cachedInputTokens: 100 },
    ]);
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
