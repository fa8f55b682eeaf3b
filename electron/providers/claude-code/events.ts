import type { JsonObject, ParserState, TimelineEvent } from '../events/timeline-event';
import { clip, describeInput, errorEvent, isObject, num, raw, str, tokenCount, usageEvent } from '../events/timeline-event';

/**
 * `claude -p --output-format stream-json --verbose` (Claude Code 2.1.197). Observed lines:
 *   {"type":"system","subtype":"init","cwd":"...","session_id":"3f0c...","tools":[...],"model":"...","permissionMode":"acceptEdits",...}
 *   {"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":548.5,"error_status":401,"error":"authentication_failed",...}
 *   {"type":"assistant","message":{"id":"msg_2","content":[{"type":"text","text":"..."}],"usage":{...}},"session_id":"..."}
 *   {"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_01","name":"Write","input":{"file_path":"...","content":"hi\n"}}]},...}
 *   {"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"File created successfully at: ..."}]},
 *    "tool_use_result":{"type":"create","filePath":"/.../hello.txt","content":"hi\n",...}}
 *   {"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"Invalid API key · Fix external API key"}]},"error":"authentication_failed"}
 *   {"type":"result","subtype":"success","is_error":true,"api_error_status":401,"result":"Invalid API key · Fix external API key","usage":{...},...}
 *   {"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1893456000,"rateLimitType":"five_hour"},...}
 */
export function parseClaudeCodeEvent(event: JsonObject, line: string, state: ParserState): TimelineEvent[] {
  switch (event.type) {
    case 'system':
      return parseSystem(event, line);
    case 'assistant':
      return parseAssistant(event, line, state);
    case 'user':
      return parseUser(event, line, state);
    case 'result':
      return parseResult(event);
    case 'rate_limit_event':
      return parseRateLimit(event, line);
    case 'stream_event':
      // Partial chunks (--include-partial-messages); the complete message follows as `assistant`.
      return [];
    default:
      return [raw(line)];
  }
}

function parseSystem(event: JsonObject, line: string): TimelineEvent[] {
  if (event.subtype === 'init') {
    const sessionId = str(event.session_id);
    return sessionId ? [{ kind: 'session', sessionId }] : [raw(line)];
  }
  if (event.subtype === 'api_retry') {
    const status = num(event.error_status);
    const code = str(event.error);
    const delay = num(event.retry_delay_ms);
    const what = [status, code].filter((part) => part !== null).join(' ');
    const when = delay === null ? '' : ` in ${(delay / 1000).toFixed(1)}s`;
    const message = `API request failed (${what || 'error'}); retry ${num(event.attempt) ?? '?'} of ${num(event.max_retries) ?? '?'}${when}.`;
    return [errorEvent(message, false, { code, httpStatus: status })];
  }
  return [raw(line)];
}

function parseAssistant(event: JsonObject, line: string, state: ParserState): TimelineEvent[] {
  const message = isObject(event.message) ? event.message : null;
  if (!message) return [raw(line)];
  const content = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  const errorCode = str(event.error);
  if (errorCode) {
    // A synthetic assistant message that carries an API error: an error, not something the model said.
    const text = content.map((block) => str(block.text) ?? '').join('\n').trim();
    return [errorEvent(text || errorCode, false, { code: errorCode })];
  }
  return content.flatMap((block): TimelineEvent[] => {
    if (block.type === 'text') return [{ kind: 'message', role: 'assistant', text: clip(str(block.text) ?? '') }];
    if (block.type === 'thinking') return [{ kind: 'message', role: 'reasoning', text: clip(str(block.thinking) ?? '') }];
    if (block.type === 'tool_use') {
      const callId = str(block.id);
      const name = str(block.name) ?? 'tool';
      if (callId) state.toolCalls.set(callId, { name, input: block.input });
      return [{ kind: 'tool_call', callId, name, input: describeInput(block.input ?? null) }];
    }
    return [];
  });
}

function parseUser(event: JsonObject, line: string, state: ParserState): TimelineEvent[] {
  const message = isObject(event.message) ? event.message : null;
  if (!message) return [raw(line)];
  if (typeof message.content === 'string') return [{ kind: 'message', role: 'user', text: clip(message.content) }];
  const content = Array.isArray(message.content) ? message.content.filter(isObject) : [];
  const events: TimelineEvent[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      events.push({ kind: 'message', role: 'user', text: clip(str(block.text) ?? '') });
      continue;
    }
    if (block.type !== 'tool_result') continue;
    const callId = str(block.tool_use_id);
    const call = callId ? state.toolCalls.get(callId) : undefined;
    if (callId) state.toolCalls.delete(callId);
    const ok = block.is_error !== true;
    events.push({ kind: 'tool_result', callId, name: call?.name ?? null, ok, output: clip(resultText(block.content)) });
    if (ok) events.push(...fileChange(event.tool_use_result, call));
  }
  return events;
}

/** Claude reports the file a Write/Edit touched in `tool_use_result` beside the tool result. */
function fileChange(toolUseResult: unknown, call: { name: string; input: unknown } | undefined): TimelineEvent[] {
  if (!isObject(toolUseResult)) return [];
  const filePath = str(toolUseResult.filePath);
  if (!filePath) return [];
  if (toolUseResult.type === 'create') return [{ kind: 'file_change', path: filePath, change: 'add' }];
  const edited =
    toolUseResult.type === 'update' ||
    'structuredPatch' in toolUseResult ||
    call?.name === 'Edit' ||
    call?.name === 'MultiEdit' ||
    call?.name === 'Write';
  return edited ? [{ kind: 'file_change', path: filePath, change: 'update' }] : [];
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .filter(isObject)
      .map((block) => str(block.text) ?? '')
      .join('\n');
  }
  return '';
}

function parseResult(event: JsonObject): TimelineEvent[] {
  const events: TimelineEvent[] = [];
  // The whole invocation's calls summed (a resumed session's earlier turns are not in it: seen with
  // Claude Code 2.1.197). Anthropic's input_tokens leaves out the cache reads and the cache writes,
  // which come apart; output_tokens includes any thinking, with no count of its own.
  const usage = isObject(event.usage) ? event.usage : null;
  if (usage) {
    const cacheRead = tokenCount(usage.cache_read_input_tokens);
    const cacheWrite = tokenCount(usage.cache_creation_input_tokens) ?? 0;
    events.push(
      usageEvent('per_invocation', {
        input: (tokenCount(usage.input_tokens) ?? 0) + (cacheRead ?? 0) + cacheWrite,
        output: tokenCount(usage.output_tokens) ?? 0,
        cachedInput: cacheRead,
        reasoning: null,
      }),
    );
  }
  if (event.is_error === true || (typeof event.subtype === 'string' && event.subtype.startsWith('error'))) {
    const message = str(event.result) ?? (Array.isArray(event.errors) ? event.errors.map(String).join('; ') : null);
    events.push(
      errorEvent(message || `Claude Code stopped: ${str(event.subtype) ?? 'error'}.`, true, {
        code: str(event.subtype) === 'success' ? null : str(event.subtype),
        httpStatus: num(event.api_error_status),
      }),
    );
  }
  return events;
}

function parseRateLimit(event: JsonObject, line: string): TimelineEvent[] {
  const info = isObject(event.rate_limit_info) ? event.rate_limit_info : null;
  if (!info) return [raw(line)];
  // `allowed` and `allowed_warning` are informational; only a rejection stops the run.
  if (info.status !== 'rejected') return [];
  const resetsAt = num(info.resetsAt);
  const resetAt = resetsAt === null ? null : new Date(resetsAt * 1000).toISOString();
  const limit = str(info.rateLimitType) ?? 'usage';
  const message = `Claude usage limit reached (${limit})${resetAt ? `; resets at ${resetAt}` : ''}.`;
  return [errorEvent(message, false, { code: 'rate_limit_rejected', resetAt })];
}
