import { describe, expect, it } from 'vitest';
import { fixtureLines } from './fixture-lines';
import { createEventParser, parseEventLine } from './parse-event-line';

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
      { kind: 'usage', inputTokens: 2400, outputTokens: 68, cachedInputTokens: 400 },
    ]);
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
