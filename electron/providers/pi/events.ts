import type { JsonObject, ParserState, TimelineEvent } from '../events/timeline-event';
import { clip, describeInput, errorEvent, isObject, num, raw, str, tokenCount, usageEvent } from '../events/timeline-event';

/**
 * `pi --mode json` (pi 0.73.1, docs/json.md). Observed lines:
 *   {"type":"session","version":3,"id":"01a228c1-...","timestamp":"...","cwd":"/.../view"}
 *   {"type":"agent_start"} {"type":"turn_start"} {"type":"message_start",...} {"type":"message_update",...}
 *   {"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"..."},{"type":"toolCall",...}],
 *    "usage":{"input":900,"output":40,"cacheRead":100,"cacheWrite":0,...},"stopReason":"toolUse"}}
 *   {"type":"tool_execution_start","toolCallId":"toolu_01","toolName":"write","args":{"path":"hello.txt","content":"hi\n"}}
 *   {"type":"tool_execution_end","toolCallId":"toolu_01","toolName":"write","result":{"content":[{"type":"text","text":"Successfully wrote 3 bytes to hello.txt"}]},"isError":false}
 *   {"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"401 {\"type\":\"error\",...}"}}
 *   {"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"429 {...}"}
 * Pi exits 0 even when the model call failed, so the failed message_end is reported as a fatal error.
 */
const quiet = new Set([
  'agent_start',
  'agent_end',
  'turn_start',
  'turn_end',
  'message_start',
  'message_update',
  'tool_execution_update',
  'queue_update',
  'compaction_start',
]);

export function parsePiEvent(event: JsonObject, line: string, state: ParserState): TimelineEvent[] {
  const type = str(event.type);
  if (type !== null && quiet.has(type)) return [];
  switch (type) {
    case 'session': {
      const sessionId = str(event.id);
      return sessionId ? [{ kind: 'session', sessionId }] : [raw(line)];
    }
    case 'message_end':
      return isObject(event.message) ? parseMessageEnd(event.message) : [raw(line)];
    case 'tool_execution_start': {
      const callId = str(event.toolCallId);
      const name = str(event.toolName) ?? 'tool';
      if (callId) state.toolCalls.set(callId, { name, input: event.args });
      return [{ kind: 'tool_call', callId, name, input: describeInput(event.args ?? null) }];
    }
    case 'tool_execution_end':
      return parseToolEnd(event, state);
    case 'auto_retry_start': {
      const message = str(event.errorMessage) ?? 'The model call failed.';
      const text = `${message} (retry ${num(event.attempt) ?? '?'} of ${num(event.maxAttempts) ?? '?'})`;
      return [errorEvent(text, false, { httpStatus: leadingStatus(message) })];
    }
    case 'auto_retry_end': {
      if (event.success === true) return [];
      const message = str(event.finalError) ?? 'The model call failed after retries.';
      return [errorEvent(message, true, { httpStatus: leadingStatus(message) })];
    }
    case 'compaction_end':
      return str(event.errorMessage) ? [errorEvent(str(event.errorMessage) ?? '', false)] : [];
    default:
      return [raw(line)];
  }
}

function parseMessageEnd(message: JsonObject): TimelineEvent[] {
  const content = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  if (message.role === 'user') {
    const text = content.map((block) => str(block.text) ?? '').join('\n');
    return text ? [{ kind: 'message', role: 'user', text: clip(text) }] : [];
  }
  if (message.role !== 'assistant') return []; // toolResult and friends: tool_execution_end says it
  const events: TimelineEvent[] = [];
  for (const block of content) {
    if (block.type === 'text' && str(block.text)) events.push({ kind: 'message', role: 'assistant', text: clip(str(block.text) ?? '') });
    if (block.type === 'thinking' && str(block.thinking)) {
      events.push({ kind: 'message', role: 'reasoning', text: clip(str(block.thinking) ?? '') });
    }
  }
  // One model call's usage (a resumed session prints only its new calls: seen with pi 0.73.1). Pi's
  // `input` leaves out the cache reads and writes (its totalTokens is input + output + cacheRead +
  // cacheWrite); `output` includes any reasoning, with no count of its own. A failed call reports zeros.
  const usage = isObject(message.usage) ? message.usage : null;
  if (usage) {
    const input = tokenCount(usage.input) ?? 0;
    const output = tokenCount(usage.output) ?? 0;
    const cacheRead = tokenCount(usage.cacheRead);
    const cacheWrite = tokenCount(usage.cacheWrite) ?? 0;
    if (input + output + (cacheRead ?? 0) + cacheWrite > 0) {
      events.push(usageEvent('per_call', { input: input + (cacheRead ?? 0) + cacheWrite, output, cachedInput: cacheRead, reasoning: null }));
    }
  }
  if (message.stopReason === 'error' || message.stopReason === 'aborted') {
    const text = str(message.errorMessage) ?? (message.stopReason === 'aborted' ? 'The request was aborted.' : 'The model call failed.');
    events.push(errorEvent(text, true, { httpStatus: leadingStatus(text), code: embeddedErrorType(text) }));
  }
  return events;
}

function parseToolEnd(event: JsonObject, state: ParserState): TimelineEvent[] {
  const callId = str(event.toolCallId);
  const call = callId ? state.toolCalls.get(callId) : undefined;
  if (callId) state.toolCalls.delete(callId);
  const name = str(event.toolName) ?? call?.name ?? null;
  const ok = event.isError !== true;
  const result = isObject(event.result) ? event.result : {};
  const output = Array.isArray(result.content)
    ? result.content
        .filter(isObject)
        .map((block) => str(block.text) ?? '')
        .join('\n')
    : describeInput(event.result ?? '');
  const events: TimelineEvent[] = [{ kind: 'tool_result', callId, name, ok, output: clip(output) }];
  const filePath = isObject(call?.input) ? str(call.input.path) : null;
  if (ok && filePath && (name === 'write' || name === 'edit')) {
    events.push({ kind: 'file_change', path: filePath, change: name === 'write' ? 'write' : 'update' });
  }
  return events;
}

/** Pi's error messages start with the HTTP status: "429 {...}". */
function leadingStatus(message: string): number | null {
  const match = message.match(/^(\d{3})\b/);
  return match?.[1] ? Number(match[1]) : null;
}

/** "401 {"type":"error","error":{"type":"authentication_error",...}}" → authentication_error. */
function embeddedErrorType(message: string): string | null {
  const start = message.indexOf('{');
  if (start === -1) return null;
  try {
    const body: unknown = JSON.parse(message.slice(start));
    if (!isObject(body)) return null;
    const error = isObject(body.error) ? body.error : null;
    return str(error?.type) ?? str(error?.code) ?? str(error?.status) ?? null;
  } catch {
    return null;
  }
}
