import path from 'node:path';
import { asArray, isObject, textOf } from './json-values';
import { startRecordingServer, type FailureMode, type FailurePlan, type ModelServer, type ProtocolContext } from './recording-server';
import { makeId, pieces, resetDate, sendJson, sendTruncatedJson, sseStream } from './replies';
import { scriptedUsage } from './reported-usage';
import { decideTurn, pickTool, type ConversationHistory, type ConversationView, type ScriptOptions } from './scripted-conversation';
import type { HttpError } from './openai-errors';

/**
 * Anthropic Messages API (`POST /v1/messages`, SSE) — what Claude Code speaks with
 * ANTHROPIC_BASE_URL. The stream is message_start, ping, content_block_start / content_block_delta
 * (text_delta, input_json_delta) / content_block_stop per block, message_delta (stop_reason, usage)
 * and message_stop. Also answered: `POST /v1/messages/count_tokens`, `GET /v1/models`, and the
 * `HEAD /` reachability probe Claude Code sends at start. A connection's base URL is the origin
 * (the SDK appends /v1/messages).
 */

export interface AnthropicServerOptions {
  script?: Partial<ScriptOptions>;
  failure?: FailurePlan | null;
  /** Force the file-writing tool; by default the first offered of Write, write. */
  fileTool?: string;
  models?: string[];
}

export const anthropicFileTools = ['Write', 'write', 'write_file'] as const;

export function startAnthropicServer(options: AnthropicServerOptions = {}): Promise<ModelServer> {
  const models = options.models ?? ['claude-sonnet-4-6'];
  return startRecordingServer({
    protocol: 'anthropic-messages',
    baseUrlPath: '',
    script: options.script,
    failure: options.failure,
    handler: (req, res, ctx) => {
      const { record } = ctx;
      if ((record.method === 'HEAD' || record.method === 'GET') && record.path === '/') {
        record.outcome = { type: 'other', status: 200 };
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(record.method === 'HEAD' ? undefined : 'ok');
        return true;
      }
      if (record.method === 'GET' && record.path === '/v1/models') {
        record.outcome = { type: 'other', status: 200 };
        const data = models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' }));
        sendJson(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
        return true;
      }
      if (record.method === 'POST' && record.path === '/v1/messages/count_tokens') {
        record.outcome = { type: 'other', status: 200 };
        sendJson(res, 200, { input_tokens: Math.max(1, record.rawBody.length >> 2) });
        return true;
      }
      if (record.method === 'POST' && record.path === '/v1/messages') {
        record.kind = 'model';
        respond(res, ctx, options.fileTool);
        return true;
      }
      return false;
    },
  });
}

function toolNames(body: Record<string, unknown>): string[] {
  return asArray(body.tools)
    .filter(isObject)
    .map((tool) => (typeof tool.name === 'string' ? tool.name : ''))
    .filter((name) => name !== '');
}

export function anthropicView(body: Record<string, unknown>): ConversationView {
  const messages = asArray(body.messages).filter(isObject);
  let latestUserText = '';
  let last: ConversationView['last'] = 'other';
  for (const message of messages) {
    if (message.role !== 'user') {
      last = 'other';
      continue;
    }
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : asArray(message.content).filter(isObject);
    const hasToolResult = blocks.some((block) => block.type === 'tool_result');
    const text = blocks
      .filter((block) => block.type === 'text')
      .map((block) => textOf(block.text))
      .join('\n');
    // A user message that carries tool results answers the model's call; one with only text is a prompt.
    if (hasToolResult) last = 'tool_result';
    else {
      last = 'user';
      latestUserText = text;
    }
  }
  return { toolNames: toolNames(body), last, latestUserText };
}

/** Claude Code states its working directory in the system prompt: "Primary working directory: <dir>". */
export function workingDirectoryFrom(body: Record<string, unknown>): string | null {
  const system = typeof body.system === 'string' ? body.system : asArray(body.system).filter(isObject).map((block) => textOf(block.text)).join('\n');
  const match = system.match(/Primary working directory: (.+)/);
  return match?.[1]?.trim() ?? null;
}

function respond(res: import('node:http').ServerResponse, ctx: ProtocolContext, forcedTool: string | undefined): void {
  const { record, script } = ctx;
  const body = isObject(record.body) ? record.body : {};
  const model = typeof body.model === 'string' ? body.model : 'claude-sonnet-4-6';
  const failure = ctx.takeFailure();
  if (failure && failure.mode !== 'drop_stream') {
    const error = anthropicError(failure.mode, failure.retryAfterSeconds);
    record.outcome = { type: 'failure', mode: failure.mode, status: error.status };
    sendJson(res, error.status, error.body, error.headers);
    return;
  }

  const view = anthropicView(body);
  const toolName = forcedTool && view.toolNames.includes(forcedTool) ? forcedTool : pickTool(view.toolNames, anthropicFileTools);
  const decision = decideTurn(view, toolName, script);
  const text = decision.type === 'tool_call' ? script.leadText : decision.type === 'final' ? script.finalText : script.sideText;
  let toolUse: { id: string; name: string; input: Record<string, unknown> } | null = null;
  if (decision.type === 'tool_call' && toolName) {
    const cwd = workingDirectoryFrom(body);
    // Claude Code's Write wants an absolute path; other clients' write tools take a relative one.
    const filePath = toolName === 'Write' && cwd ? path.join(cwd, decision.fileName) : decision.fileName;
    const input = toolName === 'write' ? { path: filePath, content: script.fileContent } : { file_path: filePath, content: script.fileContent };
    toolUse = { id: makeId('toolu_01'), name: toolName, input };
  }
  record.outcome = decision.type === 'tool_call' ? { type: 'tool_call', tool: toolName ?? '', fileName: decision.fileName } : { type: decision.type };

  const messageId = makeId('msg_01');
  // Anthropic usage: input_tokens excludes cache reads and cache writes, which come apart; output_tokens
  // includes thinking, with no count of its own.
  const reported = scriptedUsage(record, { baseInput: 900, visibleOutput: toolUse ? 52 : 18, reasoning: false, cacheWrite: true });
  const cacheUsage = { cache_creation_input_tokens: reported.cacheWrite, cache_read_input_tokens: reported.cachedInput };
  const inputTokens = reported.input - reported.cachedInput - reported.cacheWrite;
  const outputTokens = reported.output;
  const stopReason = toolUse ? 'tool_use' : 'end_turn';
  const requestId = makeId('req_01');
  const content: Array<Record<string, unknown>> = [{ type: 'text', text }];
  if (toolUse) content.push({ type: 'tool_use', ...toolUse });

  if (body.stream !== true) {
    const answer = {
      id: messageId,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, ...cacheUsage, output_tokens: outputTokens },
    };
    if (failure?.mode === 'drop_stream') {
      record.outcome = { type: 'failure', mode: 'drop_stream', status: 200 };
      sendTruncatedJson(res, answer, { 'request-id': requestId });
    } else {
      record.usage = reported;
      sendJson(res, 200, answer, { 'request-id': requestId });
    }
    return;
  }

  const stream = sseStream(res, { 'request-id': requestId });
  const emit = (event: Record<string, unknown> & { type: string }) => stream.write(event, event.type);
  emit({
    type: 'message_start',
    message: {
      id: messageId,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, ...cacheUsage, output_tokens: 1, service_tier: 'standard' },
    },
  });
  emit({ type: 'ping' });
  emit({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  const textPieces = pieces(text);
  if (failure?.mode === 'drop_stream') {
    emit({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: textPieces[0] ?? '' } });
    record.outcome = { type: 'failure', mode: 'drop_stream', status: 200 };
    stream.drop();
    return;
  }
  for (const piece of textPieces) emit({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
  emit({ type: 'content_block_stop', index: 0 });
  if (toolUse) {
    emit({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: toolUse.id, name: toolUse.name, input: {} } });
    for (const piece of pieces(JSON.stringify(toolUse.input))) {
      emit({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    emit({ type: 'content_block_stop', index: 1 });
  }
  record.usage = reported;
  emit({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } });
  emit({ type: 'message_stop' });
  stream.end();
}

/**
 * Anthropic's error responses (body shapes, `request-id`, the rate-limit headers). Anthropic's SDKs and
 * Claude Code honour `x-should-retry`; this server sends `false` with the 401 and `true` with the 429.
 * Without the header Claude Code 2.1.197 retries a 401 (it assumes a stale key), up to
 * CLAUDE_CODE_MAX_RETRIES times (default 10, with backoff: more than a minute).
 */
export function anthropicError(mode: Exclude<FailureMode, 'drop_stream'>, retryAfterSeconds: number): HttpError {
  const requestId = makeId('req_01');
  if (mode === 'unauthorized' || mode === 'invalid_api_key') {
    return {
      status: 401,
      headers: { 'request-id': requestId, 'x-should-retry': 'false' },
      body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: requestId },
    };
  }
  const reset = resetDate(retryAfterSeconds).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    status: 429,
    headers: {
      'request-id': requestId,
      'x-should-retry': 'true',
      'retry-after': String(retryAfterSeconds),
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': reset,
      'anthropic-ratelimit-tokens-limit': '40000',
      'anthropic-ratelimit-tokens-remaining': '40000',
      'anthropic-ratelimit-tokens-reset': reset,
    },
    body: {
      type: 'error',
      error: {
        type: 'rate_limit_error',
        message:
          'This request would exceed the rate limit for your organization (e2e-org) of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.',
      },
      request_id: requestId,
    },
  };
}

export function anthropicHistory(body: Record<string, unknown>): ConversationHistory {
  const history: ConversationHistory = { userTexts: [], assistantTexts: [], toolResults: [] };
  for (const message of asArray(body.messages).filter(isObject)) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : asArray(message.content).filter(isObject);
    for (const block of blocks) {
      if (block.type === 'tool_result') history.toolResults.push(textOf(block.content));
      else if (block.type === 'text') (message.role === 'user' ? history.userTexts : history.assistantTexts).push(textOf(block.text));
    }
  }
  return history;
}
