import type http from 'node:http';
import { asArray, isObject } from './json-values';
import type { FailurePlan, ModelServer, ProtocolContext } from './recording-server';
import { makeId, pieces, sendJson, sendTruncatedJson, sseStream } from './replies';
import { scriptedUsage } from './reported-usage';
import { decideTurn, pickTool, type ConversationHistory, type ConversationView, type ScriptOptions } from './scripted-conversation';
import { openAiContentText, openAiModelRequest, startOpenAiServer } from './openai-errors';

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`) — what Pi speaks through a custom
 * OpenAI-compatible provider (`"api": "openai-completions"` in its models.json), and what
 * OpenRouter-style gateways serve. Streaming sends `data:` chunks (`chat.completion.chunk`) with
 * `delta.content` and `delta.tool_calls` (the call's id and name first, then its arguments in
 * pieces), a chunk with `finish_reason`, a usage chunk with empty `choices` when the client asked
 * for `stream_options.include_usage`, and `data: [DONE]`. Also `GET /v1/models`.
 */

export interface ChatServerOptions {
  script?: Partial<ScriptOptions>;
  failure?: FailurePlan | null;
  /** Force the file-writing tool; by default the first offered of write, write_file, Write. */
  fileTool?: string;
  models?: string[];
}

export const chatFileTools = ['write', 'write_file', 'Write'] as const;

export function startChatCompletionsServer(options: ChatServerOptions = {}): Promise<ModelServer> {
  return startOpenAiServer({
    protocol: 'openai-chat',
    modelPath: '/v1/chat/completions',
    script: options.script,
    failure: options.failure,
    models: options.models,
    respond: (req, res, ctx) => respond(req, res, ctx, options.fileTool),
  });
}

function toolNames(body: Record<string, unknown>): string[] {
  return asArray(body.tools)
    .filter(isObject)
    .map((tool) => (isObject(tool.function) && typeof tool.function.name === 'string' ? tool.function.name : ''))
    .filter((name) => name !== '');
}

export function chatView(body: Record<string, unknown>): ConversationView {
  const messages = asArray(body.messages).filter(isObject);
  let latestUserText = '';
  for (const message of messages) {
    if (message.role === 'user') latestUserText = openAiContentText(message.content);
  }
  const lastMessage = messages.at(-1);
  const last: ConversationView['last'] = lastMessage?.role === 'tool' ? 'tool_result' : lastMessage?.role === 'user' ? 'user' : 'other';
  return { toolNames: toolNames(body), last, latestUserText };
}

function respond(req: http.IncomingMessage, res: http.ServerResponse, ctx: ProtocolContext, forcedTool: string | undefined): void {
  const { record, script } = ctx;
  const request = openAiModelRequest(req, res, ctx);
  if (!request) return;
  const { body, model, failure } = request;

  const view = chatView(body);
  const toolName = forcedTool && view.toolNames.includes(forcedTool) ? forcedTool : pickTool(view.toolNames, chatFileTools);
  const decision = decideTurn(view, toolName, script);
  const text = decision.type === 'tool_call' ? script.leadText : decision.type === 'final' ? script.finalText : script.sideText;
  const toolCall =
    decision.type === 'tool_call' && toolName
      ? { id: makeId('call_'), type: 'function', function: { name: toolName, arguments: JSON.stringify(writeArgs(toolName, decision.fileName, script.fileContent)) } }
      : null;
  record.outcome = decision.type === 'tool_call' ? { type: 'tool_call', tool: toolName ?? '', fileName: decision.fileName } : { type: decision.type };

  const id = makeId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const finishReason = toolCall ? 'tool_calls' : 'stop';
  // Chat Completions usage: prompt_tokens includes the cached ones, completion_tokens the reasoning ones.
  const reported = scriptedUsage(record, { baseInput: 900, visibleOutput: toolCall ? 48 : 16, reasoning: true, cacheWrite: false });
  const usage = {
    prompt_tokens: reported.input,
    completion_tokens: reported.output,
    total_tokens: reported.input + reported.output,
    prompt_tokens_details: { cached_tokens: reported.cachedInput, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reported.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };

  if (body.stream !== true) {
    const answer = {
      id,
      object: 'chat.completion',
      created,
      model,
      system_fingerprint: 'fp_e2e',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null, ...(toolCall ? { tool_calls: [toolCall] } : {}) },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage,
    };
    if (failure?.mode === 'drop_stream') {
      record.outcome = { type: 'failure', mode: 'drop_stream', status: 200 };
      sendTruncatedJson(res, answer);
    } else {
      record.usage = reported;
      sendJson(res, 200, answer);
    }
    return;
  }

  const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
  const stream = sseStream(res, { 'x-request-id': makeId('req_') });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: 'fp_e2e',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });

  stream.write(chunk({ role: 'assistant', content: '', refusal: null }));
  const textPieces = pieces(text);
  if (failure?.mode === 'drop_stream') {
    stream.write(chunk({ content: textPieces[0] ?? '' }));
    record.outcome = { type: 'failure', mode: 'drop_stream', status: 200 };
    stream.drop();
    return;
  }
  for (const piece of textPieces) stream.write(chunk({ content: piece }));
  if (toolCall) {
    stream.write(chunk({ tool_calls: [{ index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.function.name, arguments: '' } }] }));
    for (const piece of pieces(toolCall.function.arguments)) stream.write(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  stream.write(chunk({}, finishReason));
  if (includeUsage) {
    record.usage = reported;
    stream.write({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_e2e', choices: [], usage });
  }
  stream.write('[DONE]');
  stream.end();
}

function writeArgs(toolName: string, fileName: string, content: string): Record<string, unknown> {
  if (toolName === 'write') return { path: fileName, content };
  return { file_path: fileName, content };
}

export function chatHistory(body: Record<string, unknown>): ConversationHistory {
  const history: ConversationHistory = { userTexts: [], assistantTexts: [], toolResults: [] };
  for (const message of asArray(body.messages).filter(isObject)) {
    if (message.role === 'user') history.userTexts.push(openAiContentText(message.content));
    else if (message.role === 'assistant') history.assistantTexts.push(openAiContentText(message.content));
    else if (message.role === 'tool') history.toolResults.push(openAiContentText(message.content));
  }
  return history;
}
