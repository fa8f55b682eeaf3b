import type { JsonObject, ParserState, TimelineEvent } from '../events/timeline-event';
import { clip, describeInput, errorEvent, isObject, num, raw, str, tokenCount, usageEvent } from '../events/timeline-event';

/**
 * `codex exec --json` (codex-cli 0.171.0). Observed lines:
 *   {"type":"thread.started","thread_id":"01a228be-..."}
 *   {"type":"turn.started"}
 *   {"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc '...'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
 *   {"type":"item.completed","item":{"id":"item_1","type":"command_execution",...,"aggregated_output":"hi\n","exit_code":0,"status":"completed"}}
 *   {"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"..."}}
 *   {"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `gpt-5` not found. ..."}}
 *   {"type":"turn.completed","usage":{"input_tokens":2400,"cached_input_tokens":400,"cache_write_input_tokens":0,"output_tokens":68,"reasoning_output_tokens":0}}
 *     (the session's total so far: a resumed turn's report includes the earlier turns')
 *   {"type":"error","message":"unexpected status 401 Unauthorized: ..."}
 *   {"type":"turn.failed","error":{"message":"..."}}
 * file_change, mcp_tool_call, web_search, todo_list and reasoning items follow codex's exec event
 * schema (exec_events.rs); they were not produced by the local stand-in server.
 */
export function parseCodexEvent(event: JsonObject, line: string, state: ParserState): TimelineEvent[] {
  switch (event.type) {
    case 'thread.started': {
      const threadId = str(event.thread_id);
      return threadId ? [{ kind: 'session', sessionId: threadId }] : [raw(line)];
    }
    case 'turn.started':
      return [];
    case 'turn.completed': {
      // The session's running total, earlier turns and a resumed session's restored ones included
      // (seen with codex-cli 0.171.0: each turn.completed is the previous one plus the turn's calls).
      // input_tokens includes the cached ones and output_tokens the reasoning ones, as OpenAI counts.
      const usage = isObject(event.usage) ? event.usage : {};
      return [
        usageEvent('per_session', {
          input: tokenCount(usage.input_tokens) ?? 0,
          output: tokenCount(usage.output_tokens) ?? 0,
          cachedInput: tokenCount(usage.cached_input_tokens),
          reasoning: tokenCount(usage.reasoning_output_tokens),
        }),
      ];
    }
    case 'turn.failed': {
      const error = isObject(event.error) ? event.error : {};
      return [errorEvent(str(error.message) ?? 'The turn failed.', true, { httpStatus: statusIn(str(error.message)) })];
    }
    case 'error': {
      // A stream error Codex reports before it retries or fails the turn; turn.failed is the verdict.
      const message = str(event.message) ?? 'Codex reported an error.';
      return [errorEvent(message, false, { httpStatus: statusIn(message) })];
    }
    case 'item.started':
    case 'item.updated':
    case 'item.completed':
      return isObject(event.item) ? parseItem(event.type, event.item, line, state) : [raw(line)];
    default:
      return [raw(line)];
  }
}

type ItemPhase = 'item.started' | 'item.updated' | 'item.completed';

function parseItem(phase: ItemPhase, item: JsonObject, line: string, state: ParserState): TimelineEvent[] {
  const id = str(item.id);
  switch (item.type) {
    case 'agent_message':
      return phase === 'item.completed' ? [{ kind: 'message', role: 'assistant', text: clip(str(item.text) ?? '') }] : [];
    case 'reasoning':
      return phase === 'item.completed' ? [{ kind: 'message', role: 'reasoning', text: clip(str(item.text) ?? '') }] : [];
    case 'command_execution':
      return toolItem(phase, id, 'shell', str(item.command) ?? '', state, () => ({
        ok: item.status === 'completed' && (num(item.exit_code) ?? 0) === 0,
        output: str(item.aggregated_output) ?? '',
      }));
    case 'mcp_tool_call': {
      const name = [str(item.server), str(item.tool)].filter(Boolean).join('.') || 'mcp';
      return toolItem(phase, id, name, describeInput(item.arguments ?? null), state, () => {
        const error = isObject(item.error) ? str(item.error.message) : str(item.error);
        return { ok: item.status === 'completed' && !error, output: error ?? describeInput(item.result ?? '') };
      });
    }
    case 'web_search':
      return toolItem(phase, id, 'web_search', str(item.query) ?? '', state, () => ({ ok: true, output: '' }));
    case 'file_change': {
      if (phase !== 'item.completed') return [];
      const changes = Array.isArray(item.changes) ? item.changes.filter(isObject) : [];
      if (item.status === 'failed') {
        const paths = changes.map((change) => str(change.path)).filter(Boolean);
        return [errorEvent(`Codex could not apply a patch to ${paths.join(', ') || 'the working tree'}.`, false)];
      }
      return changes.flatMap((change): TimelineEvent[] => {
        const filePath = str(change.path);
        if (!filePath) return [];
        const kind = change.kind === 'add' || change.kind === 'delete' ? change.kind : 'update';
        return [{ kind: 'file_change', path: filePath, change: kind }];
      });
    }
    case 'todo_list': {
      const items = Array.isArray(item.items) ? item.items.filter(isObject) : [];
      const text = items.map((entry) => `${entry.completed === true ? '[x]' : '[ ]'} ${str(entry.text) ?? ''}`).join('\n');
      return phase === 'item.updated' || phase === 'item.started' ? [{ kind: 'message', role: 'system', text: clip(`Plan:\n${text}`) }] : [];
    }
    case 'error':
      // Item-level errors are warnings (the turn goes on), e.g. missing model metadata.
      return [errorEvent(str(item.message) ?? 'Codex reported a warning.', false)];
    default:
      return [raw(line)];
  }
}

/** A tool-like item: a call when it starts, a result when it completes (both if only completion is seen). */
function toolItem(
  phase: ItemPhase,
  id: string | null,
  name: string,
  input: string,
  state: ParserState,
  result: () => { ok: boolean; output: string },
): TimelineEvent[] {
  const call: TimelineEvent = { kind: 'tool_call', callId: id, name, input: clip(input) };
  if (phase === 'item.started') {
    if (id) state.toolCalls.set(id, { name, input });
    return [call];
  }
  if (phase === 'item.updated') return [];
  const seen = id !== null && state.toolCalls.has(id);
  if (id) state.toolCalls.delete(id);
  const { ok, output } = result();
  const done: TimelineEvent = { kind: 'tool_result', callId: id, name, ok, output: clip(output) };
  return seen ? [done] : [call, done];
}

/** "unexpected status 401 Unauthorized: ..." → 401. */
function statusIn(message: string | null): number | null {
  const match = message?.match(/\bstatus:? (\d{3})\b/);
  return match?.[1] ? Number(match[1]) : null;
}
