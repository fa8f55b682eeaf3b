import { describe, expect, it } from 'vitest';
import { fixtureLines } from './fixture-lines';
import { createEventParser, parseEventLine } from './parse-event-line';

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
      { kind: 'usage', inputTokens: 1600, outputTokens: 40, cachedInputTokens: 0 },
    ]);
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
