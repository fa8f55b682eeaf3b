import type http from 'node:http';
import { asArray, isObject, textOf } from './json-values';
import type { FailurePlan, ModelServer, ProtocolContext } from './recording-server';
import { makeId, pieces, sendJson, sendTruncatedJson, sseStream } from './replies';
import { scriptedUsage } from './reported-usage';
import { decideTurn, pickTool, type ConversationHistory, type ConversationView, type ScriptOptions } from './scripted-conversation';
import { openAiContentText, openAiModelRequest, startOpenAiServer } from './openai-errors';

/**
 * OpenAI Responses API (`POST /v1/responses`, streamed as SSE) — what Codex CLI speaks, through a
 * custom model provider with `wire_api = "responses"`. Also `GET /v1/models`.
 *
 * The stream uses the real event types and shapes: response.created, response.in_progress,
 * response.output_item.added, response.content_part.added, response.output_text.delta/done,
 * response.content_part.done, response.function_call_arguments.delta/done (function tools),
 * response.custom_tool_call_input.delta/done (freeform tools such as Codex's `apply_patch`),
 * response.output_item.done and response.completed with usage.
 */

export interface ResponsesServerOptions {
  script?: Partial<ScriptOptions>;
  failure?: FailurePlan | null;
  /** Force the file-writing tool; by default the first offered of apply_patch, exec_command, shell. */
  fileTool?: string;
  models?: string[];
}

/**
 * File-writing tools in order of preference. `exec` is Codex's "code mode" tool (the only top-level
 * tool for the gpt-6 models): freeform JavaScript that calls the nested tools, e.g.
 * `await tools.apply_patch("*** Begin Patch ...")`.
 */
export const responsesFileTools = ['apply_patch', 'exec_command', 'shell', 'exec'] as const;

export function startResponsesServer(options: ResponsesServerOptions = {}): Promise<ModelServer> {
  return startOpenAiServer({
    protocol: 'openai-responses',
    modelPath: '/v1/responses',
    script: options.script,
    failure: options.failure,
    models: options.models,
    respond: (req, res, ctx) => respond(req, res, ctx, options.fileTool),
  });
}

interface ToolSpec {
  name: string;
  type: string;
}

/**
 * The tools the client offered: the top-level `tools`, plus those Codex sends in an `additional_tools`
 * input item (newer models), with `namespace` groups flattened.
 */
export function offeredTools(body: Record<string, unknown>): ToolSpec[] {
  const found: ToolSpec[] = [];
  const visit = (tools: unknown) => {
    for (const tool of asArray(tools).filter(isObject)) {
      if (tool.type === 'namespace') {
        visit(tool.tools);
        continue;
      }
      const name = typeof tool.name === 'string' ? tool.name : '';
      if (name !== '') found.push({ name, type: typeof tool.type === 'string' ? tool.type : 'function' });
    }
  };
  visit(body.tools);
  for (const item of asArray(body.input).filter(isObject)) {
    if (item.type === 'additional_tools') visit(item.tools);
  }
  return found;
}

/** Reads the Responses `input` array: the last item, and the latest user message's text. */
export function responsesView(body: Record<string, unknown>): ConversationView {
  const input = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : asArray(body.input).filter(isObject);
  const toolNames = offeredTools(body).map((tool) => tool.name);
  let latestUserText = '';
  for (const item of input) {
    if ((item.type === 'message' || item.type === undefined) && item.role === 'user') latestUserText = openAiContentText(item.content);
  }
  // Reasoning items (and Codex's tool list) are not turns; the last other item decides.
  const meaningful = input.filter((item) => item.type !== 'reasoning' && item.type !== 'additional_tools');
  const lastItem = meaningful.at(-1);
  let last: ConversationView['last'] = 'other';
  if (lastItem && typeof lastItem.type === 'string' && lastItem.type.endsWith('_output')) last = 'tool_result';
  else if (lastItem && lastItem.role === 'user') last = 'user';
  return { toolNames, last, latestUserText };
}

function respond(req: http.IncomingMessage, res: http.ServerResponse, ctx: ProtocolContext, forcedTool: string | undefined): void {
  const { record, script } = ctx;
  const request = openAiModelRequest(req, res, ctx);
  if (!request) return;
  const { body, model, failure } = request;

  const tools = offeredTools(body);
  const view = responsesView(body);
  const toolName = forcedTool && view.toolNames.includes(forcedTool) ? forcedTool : pickTool(view.toolNames, responsesFileTools);
  const decision = decideTurn(view, toolName, script);
  const streaming = body.stream === true;

  const responseId = makeId('resp_');
  const createdAt = Math.floor(Date.now() / 1000);
  // Responses usage: input_tokens includes the cached ones, output_tokens the reasoning ones.
  const reported = scriptedUsage(record, { baseInput: 1200, visibleOutput: decision.type === 'tool_call' ? 64 : 24, reasoning: true, cacheWrite: false });
  const usage = {
    input_tokens: reported.input,
    input_tokens_details: { cached_tokens: reported.cachedInput },
    output_tokens: reported.output,
    output_tokens_details: { reasoning_tokens: reported.reasoning },
    total_tokens: reported.input + reported.output,
  };
  const baseResponse = {
    id: responseId,
    object: 'response',
    created_at: createdAt,
    model,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    store: false,
    text: { format: { type: 'text' } },
  };

  const output: Array<Record<string, unknown>> = [];
  const text = decision.type === 'tool_call' ? script.leadText : decision.type === 'final' ? script.finalText : script.sideText;
  const messageItem = {
    id: makeId('msg_'),
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  };
  output.push(messageItem);
  let toolItem: Record<string, unknown> | null = null;
  if (decision.type === 'tool_call' && toolName) {
    const spec = tools.find((tool) => tool.name === toolName);
    toolItem = toolCallItem(toolName, spec?.type ?? 'function', decision.fileName, script.fileContent);
    output.push(toolItem);
  }
  record.outcome = decision.type === 'tool_call' ? { type: 'tool_call', tool: toolName ?? '', fileName: decision.fileName } : { type: decision.type };

  if (!streaming) {
    const answer = { ...baseResponse, status: 'completed', output, usage };
    if (failure?.mode === 'drop_stream') {
      record.outcome = { type: 'failure', mode: 'drop_stream', status: 200 };
      sendTruncatedJson(res, answer);
    } else {
      record.usage = reported;
      sendJson(res, 200, answer, { 'x-request-id': makeId('req_') });
    }
    return;
  }

  const stream = sseStream(res, { 'x-request-id': makeId('req_'), 'openai-processing-ms': '42' });
  let sequence = 0;
  const emit = (event: Record<string, unknown> & { type: string }) => stream.write({ ...event, sequence_number: sequence++ }, event.type);

  emit({ type: 'response.created', response: { ...baseResponse, status: 'in_progress', output: [], usage: null } });
  emit({ type: 'response.in_progress', response: { ...baseResponse, status: 'in_progress', output: [], usage: null } });

  // The assistant's text, streamed in pieces.
  const messageId = messageItem.id;
  emit({ type: 'response.output_item.added', output_index: 0, item: { id: messageId, type: 'message', status: 'in_progress', role: 'assistant', content: [] } });
  emit({ type: 'response.content_part.added', item_id: messageId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
  const textPieces = pieces(text);
  if (failure?.mode === 'drop_stream') {
    emit({ type: 'response.output_text.delta', item_id: messageId, output_index: 0, content_index: 0, delta: textPieces[0] ?? '', logprobs: [] });
    record.outcome = { type: 'failure', mode: 'drop_stream', status: 200 };
    stream.drop();
    return;
  }
  for (const delta of textPieces) {
    emit({ type: 'response.output_text.delta', item_id: messageId, output_index: 0, content_index: 0, delta, logprobs: [] });
  }
  emit({ type: 'response.output_text.done', item_id: messageId, output_index: 0, content_index: 0, text, logprobs: [] });
  emit({ type: 'response.content_part.done', item_id: messageId, output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [], logprobs: [] } });
  emit({ type: 'response.output_item.done', output_index: 0, item: messageItem });

  if (toolItem) {
    const itemId = String(toolItem.id);
    if (toolItem.type === 'custom_tool_call') {
      const input = String(toolItem.input);
      emit({ type: 'response.output_item.added', output_index: 1, item: { ...toolItem, status: 'in_progress', input: '' } });
      for (const delta of pieces(input)) emit({ type: 'response.custom_tool_call_input.delta', item_id: itemId, output_index: 1, delta });
      emit({ type: 'response.custom_tool_call_input.done', item_id: itemId, output_index: 1, input });
    } else {
      const args = String(toolItem.arguments);
      emit({ type: 'response.output_item.added', output_index: 1, item: { ...toolItem, status: 'in_progress', arguments: '' } });
      for (const delta of pieces(args)) emit({ type: 'response.function_call_arguments.delta', item_id: itemId, output_index: 1, delta });
      emit({ type: 'response.function_call_arguments.done', item_id: itemId, output_index: 1, arguments: args });
    }
    emit({ type: 'response.output_item.done', output_index: 1, item: toolItem });
  }

  record.usage = reported;
  emit({ type: 'response.completed', response: { ...baseResponse, status: 'completed', output, usage } });
  stream.end();
}

/** The tool call that creates the file, in the argument schema of the tool Codex offered. */
function toolCallItem(toolName: string, toolType: string, fileName: string, content: string): Record<string, unknown> {
  const callId = makeId('call_');
  const patch = addFilePatch(fileName, content);
  if (toolName === 'apply_patch' && toolType === 'custom') {
    return { id: makeId('ctc_'), type: 'custom_tool_call', status: 'completed', call_id: callId, name: toolName, input: patch };
  }
  if (toolName === 'exec' && toolType === 'custom') {
    const code = `const result = await tools.apply_patch(${JSON.stringify(patch)});\ntext(result);\n`;
    return { id: makeId('ctc_'), type: 'custom_tool_call', status: 'completed', call_id: callId, name: toolName, input: code };
  }
  let args: Record<string, unknown>;
  if (toolName === 'apply_patch') args = { input: patch };
  else if (toolName === 'exec_command') args = { cmd: heredocCommand(fileName, content), yield_time_ms: 2000 };
  else args = { command: ['bash', '-lc', heredocCommand(fileName, content)], timeout_ms: 10_000 };
  return { id: makeId('fc_'), type: 'function_call', status: 'completed', call_id: callId, name: toolName, arguments: JSON.stringify(args) };
}

/** Codex's patch format: `*** Add File: <path>` with every line prefixed by `+`. */
export function addFilePatch(fileName: string, content: string): string {
  const lines = content.endsWith('\n') ? content.slice(0, -1).split('\n') : content.split('\n');
  return `*** Begin Patch\n*** Add File: ${fileName}\n${lines.map((line) => `+${line}`).join('\n')}\n*** End Patch\n`;
}

function heredocCommand(fileName: string, content: string): string {
  const body = content.endsWith('\n') ? content : `${content}\n`;
  return `cat > '${fileName.replaceAll("'", "'\\''")}' <<'SCRIPTED_EOF'\n${body}SCRIPTED_EOF`;
}

export function responsesHistory(body: Record<string, unknown>): ConversationHistory {
  const history: ConversationHistory = { userTexts: [], assistantTexts: [], toolResults: [] };
  for (const item of asArray(body.input).filter(isObject)) {
    if (item.type === 'message' && item.role === 'user') history.userTexts.push(openAiContentText(item.content));
    else if (item.type === 'message' && item.role === 'assistant') history.assistantTexts.push(openAiContentText(item.content));
    else if (typeof item.type === 'string' && item.type.endsWith('_output')) history.toolResults.push(textOf(item.output));
  }
  return history;
}
