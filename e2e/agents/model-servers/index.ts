import { anthropicHistory, startAnthropicServer } from './anthropic-messages';
import { geminiHistory, startGeminiServer } from './gemini';
import { chatHistory, startChatCompletionsServer } from './openai-chat';
import { responsesHistory, startResponsesServer } from './openai-responses';
import { isObject } from './json-values';
import type { FailurePlan, ModelServer, WireProtocol } from './recording-server';
import type { ConversationHistory, ScriptOptions } from './scripted-conversation';

export * from './json-values';
export * from './recording-server';
export * from './replies';
export * from './reported-usage';
export * from './scripted-conversation';
export { startAnthropicServer } from './anthropic-messages';
export { startGeminiServer } from './gemini';
export { startChatCompletionsServer } from './openai-chat';
export { startResponsesServer } from './openai-responses';
export { startEgressCanary, type EgressAttempt, type EgressCanary } from './egress-canary';

export interface StartModelServerOptions {
  script?: Partial<ScriptOptions>;
  failure?: FailurePlan | null;
  fileTool?: string;
  models?: string[];
}

/** A scripted model server for one wire protocol, on 127.0.0.1 and a free port. */
export function startModelServer(protocol: WireProtocol, options: StartModelServerOptions = {}): Promise<ModelServer> {
  switch (protocol) {
    case 'openai-responses':
      return startResponsesServer(options);
    case 'openai-chat':
      return startChatCompletionsServer(options);
    case 'anthropic-messages':
      return startAnthropicServer(options);
    case 'gemini':
      return startGeminiServer(options);
  }
}

/** The protocol each agent CLI speaks to an AI connection's base URL. */
export const protocolFor = {
  codex: 'openai-responses',
  'claude-code': 'anthropic-messages',
  pi: 'openai-chat',
  'gemini-cli': 'gemini',
} as const satisfies Record<string, WireProtocol>;

/** The conversation history a recorded model request carried, read in its protocol. */
export function conversationOf(protocol: WireProtocol, body: unknown): ConversationHistory {
  const object = isObject(body) ? body : {};
  switch (protocol) {
    case 'openai-responses':
      return responsesHistory(object);
    case 'openai-chat':
      return chatHistory(object);
    case 'anthropic-messages':
      return anthropicHistory(object);
    case 'gemini':
      return geminiHistory(object);
  }
}

/** The model a recorded request asked for: the body's `model` (OpenAI, Anthropic APIs) or the URL's (Gemini). */
export function requestedModel(request: { body: unknown; path: string }): string | null {
  if (isObject(request.body) && typeof request.body.model === 'string') return request.body.model;
  return request.path.match(/\/models\/([^/:]+):/)?.[1] ?? null;
}
