import type { JsonObject, ParserState, TimelineEvent } from '../events/timeline-event';
import { appendMessagePiece, clip, describeInput, errorEvent, isObject, raw, str, takePendingMessage, tokenCount, usageEvent } from '../events/timeline-event';

/**
 * `gemini -o stream-json` (Gemini CLI 0.61.0). Observed lines:
 *   {"type":"init","timestamp":"...","session_id":"7d1e2f30-...","model":"gemini-2.5-pro"}
 *   {"type":"message","timestamp":"...","role":"user","content":"write hello"}
 *   {"type":"message","timestamp":"...","role":"assistant","content":"Writing the file.","delta":true}
 *   {"type":"tool_use","timestamp":"...","tool_name":"write_file","tool_id":"write_file__...","parameters":{"file_path":"hello.txt","content":"hi\n"}}
 *   {"type":"tool_result","timestamp":"...","tool_id":"write_file__...","status":"success"}
 *   {"type":"error","timestamp":"...","severity":"warning","message":"..."}
 *   {"type":"result","timestamp":"...","status":"success","stats":{"total_tokens":1640,"input_tokens":1600,"output_tokens":40,"cached":0,...}}
 *   {"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":400,\"message\":\"API key not valid. ...\"}}]"},"stats":{...}}
 * Assistant text arrives in streamed pieces (delta: true, a few words each): they are joined into one
 * message event, emitted when the next line is something else (or by the parser's flush at the end).
 */
const fileTools: Record<string, 'write' | 'update'> = { write_file: 'write', replace: 'update', edit: 'update' };

export function parseGeminiCliEvent(event: JsonObject, line: string, state: ParserState): TimelineEvent[] {
  if (event.type === 'message' && event.delta === true) {
    const role = event.role === 'assistant' ? 'assistant' : event.role === 'user' ? 'user' : null;
    const text = str(event.content);
    if (role !== null && text !== null) return appendMessagePiece(state, role, text);
  }
  // Anything else completes the message being streamed, which comes first.
  return [...takePendingMessage(state), ...parseWholeEvent(event, line, state)];
}

function parseWholeEvent(event: JsonObject, line: string, state: ParserState): TimelineEvent[] {
  switch (event.type) {
    case 'init': {
      const sessionId = str(event.session_id);
      return sessionId ? [{ kind: 'session', sessionId }] : [raw(line)];
    }
    case 'message': {
      const role = event.role === 'user' ? 'user' : event.role === 'assistant' ? 'assistant' : null;
      const text = str(event.content);
      if (role === null || text === null) return [raw(line)];
      return text === '' ? [] : [{ kind: 'message', role, text: clip(text) }];
    }
    case 'tool_use': {
      const callId = str(event.tool_id);
      const name = str(event.tool_name) ?? 'tool';
      if (callId) state.toolCalls.set(callId, { name, input: event.parameters });
      return [{ kind: 'tool_call', callId, name, input: describeInput(event.parameters ?? null) }];
    }
    case 'tool_result': {
      const callId = str(event.tool_id);
      const call = callId ? state.toolCalls.get(callId) : undefined;
      if (callId) state.toolCalls.delete(callId);
      const ok = event.status === 'success';
      const error = isObject(event.error) ? str(event.error.message) : null;
      const events: TimelineEvent[] = [
        { kind: 'tool_result', callId, name: call?.name ?? null, ok, output: clip(str(event.output) || error || '') },
      ];
      const change = call ? fileTools[call.name] : undefined;
      const filePath = isObject(call?.input) ? str(call.input.file_path) : null;
      if (ok && change && filePath) events.push({ kind: 'file_change', path: filePath, change });
      return events;
    }
    case 'error': {
      const message = str(event.message) ?? 'Gemini CLI reported an error.';
      return [errorEvent(message, false, { code: str(event.severity) })];
    }
    case 'result': {
      const events: TimelineEvent[] = [];
      const stats = isObject(event.stats) ? event.stats : null;
      if (stats) events.push(statsUsage(stats));
      if (event.status === 'error') {
        const error = isObject(event.error) ? event.error : {};
        const message = str(error.message) ?? 'Gemini CLI stopped with an error.';
        events.push(errorEvent(message, true, { code: str(error.type), httpStatus: embeddedCode(message) }));
      }
      return events;
    }
    default:
      return [raw(line)];
  }
}

/**
 * `result.stats`: the invocation's calls summed, every model's (a resumed session's earlier turns
 * are not in it: seen with Gemini CLI 0.61.0, whose headless resume does not restore the session's
 * metrics). `input_tokens` is Gemini's promptTokenCount, cached tokens included; `output_tokens` its
 * candidatesTokenCount, which leaves the thoughts out; `total_tokens` has them in, so the thoughts are
 * what total has beyond input and output (tool-use prompt tokens, where a tool has them, land there too).
 */
function statsUsage(stats: JsonObject): TimelineEvent {
  const input = tokenCount(stats.input_tokens) ?? 0;
  const candidates = tokenCount(stats.output_tokens) ?? 0;
  const total = tokenCount(stats.total_tokens);
  const thoughts = total === null ? null : Math.max(0, total - input - candidates);
  return usageEvent('per_invocation', { input, output: candidates + (thoughts ?? 0), cachedInput: tokenCount(stats.cached), reasoning: thoughts });
}

/** "[API Error: {"error":{"code":400,...}}]" → 400. */
function embeddedCode(message: string): number | null {
  const match = message.match(/"code"\s*:\s*(\d{3})\b/);
  return match?.[1] ? Number(match[1]) : null;
}
