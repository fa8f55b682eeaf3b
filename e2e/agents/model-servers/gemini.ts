import { asArray, isObject } from './json-values';
import { startRecordingServer, type FailureMode, type FailurePlan, type ModelServer, type ProtocolContext } from './recording-server';
import { makeId, pieces, sendJson, sendTruncatedJson, sseStream } from './replies';
import { scriptedUsage } from './reported-usage';
import { decideTurn, pickTool, type ConversationHistory, type ConversationView, type ScriptOptions } from './scripted-conversation';
import type { HttpError } from './openai-errors';

/**
 * Gemini API (generativelanguage v1beta) — what Gemini CLI speaks in API-key mode with
 * GOOGLE_GEMINI_BASE_URL. Routes: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (SSE of
 * GenerateContentResponse chunks: text parts, a functionCall part, finishReason and usageMetadata on
 * the last), `POST …:generateContent` (Gemini CLI's side calls: JSON-schema answers for its
 * next-speaker check, routing and loop detection), `POST …:countTokens`, `GET /v1beta/models`.
 * The key arrives as `x-goog-api-key` (or `?key=`). A connection's base URL is the origin.
 */

export interface GeminiServerOptions {
  script?: Partial<ScriptOptions>;
  failure?: FailurePlan | null;
  /** Force the file-writing tool; by default the first offered of write_file, write. */
  fileTool?: string;
  models?: string[];
}

export const geminiFileTools = ['write_file', 'write'] as const;

const modelPath = /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):([A-Za-z]+)$/;

export function startGeminiServer(options: GeminiServerOptions = {}): Promise<ModelServer> {
  const models = options.models ?? ['gemini-2.5-pro', 'gemini-2.5-flash'];
  return startRecordingServer({
    protocol: 'gemini',
    baseUrlPath: '',
    script: options.script,
    failure: options.failure,
    handler: (_req, res, ctx) => {
      const { record } = ctx;
      if (record.method === 'GET' && /^\/(v1beta|v1)\/models$/.test(record.path)) {
        record.outcome = { type: 'other', status: 200 };
        sendJson(res, 200, {
          models: models.map((id) => ({
            name: `models/${id}`,
            version: '001',
            displayName: id,
            inputTokenLimit: 1_048_576,
            outputTokenLimit: 65_536,
            supportedGenerationMethods: ['generateContent', 'countTokens'],
          })),
        });
        return true;
      }
      const match = record.method === 'POST' ? record.path.match(modelPath) : null;
      if (!match) return false;
      const [, , model = 'gemini-2.5-pro', method] = match;
      if (method === 'countTokens') {
        record.outcome = { type: 'other', status: 200 };
        sendJson(res, 200, { totalTokens: Math.max(1, record.rawBody.length >> 2) });
        return true;
      }
      if (method === 'streamGenerateContent' || method === 'generateContent') {
        record.kind = 'model';
        respond(res, ctx, model, method === 'streamGenerateContent', options.fileTool);
        return true;
      }
      return false;
    },
  });
}

function toolNames(body: Record<string, unknown>): string[] {
  const names: string[] = [];
  for (const tool of asArray(body.tools).filter(isObject)) {
    for (const declaration of asArray(tool.functionDeclarations).filter(isObject)) {
      if (typeof declaration.name === 'string') names.push(declaration.name);
    }
  }
  return names;
}

export function geminiView(body: Record<string, unknown>): ConversationView {
  const contents = asArray(body.contents).filter(isObject);
  let latestUserText = '';
  let last: ConversationView['last'] = 'other';
  for (const content of contents) {
    const parts = asArray(content.parts).filter(isObject);
    if (content.role === 'model') {
      last = 'other';
      continue;
    }
    if (parts.some((part) => isObject(part.functionResponse))) {
      last = 'tool_result';
      continue;
    }
    last = 'user';
    latestUserText = parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('\n');
  }
  return { toolNames: toolNames(body), last, latestUserText };
}

function respond(res: import('node:http').ServerResponse, ctx: ProtocolContext, model: string, streaming: boolean, forcedTool: string | undefined): void {
  const { record, script } = ctx;
  const body = isObject(record.body) ? record.body : {};
  const failure = ctx.takeFailure();
  if (failure && failure.mode !== 'drop_stream') {
    const error = geminiError(failure.mode, failure.retryAfterSeconds, model);
    record.outcome = { type: 'failure', mode: failure.mode, status: error.status };
    sendJson(res, error.status, error.body, error.headers);
    return;
  }

  const view = geminiView(body);
  const toolName = forcedTool && view.toolNames.includes(forcedTool) ? forcedTool : pickTool(view.toolNames, geminiFileTools);
  const decision = decideTurn(view, toolName, script);
  const generationConfig = isObject(body.generationConfig) ? body.generationConfig : {};
  const schema = generationConfig.responseJsonSchema ?? generationConfig.responseSchema;
  const wantsJson = generationConfig.responseMimeType === 'application/json' || schema !== undefined;

  let text = decision.type === 'tool_call' ? script.leadText : decision.type === 'final' ? script.finalText : script.sideText;
  if (decision.type === 'side' && wantsJson) text = JSON.stringify(exampleFor(schema));
  const functionCall =
    decision.type === 'tool_call' && toolName
      ? { name: toolName, args: toolName === 'write' ? { path: decision.fileName, content: script.fileContent } : { file_path: decision.fileName, content: script.fileContent } }
      : null;
  record.outcome = decision.type === 'tool_call' ? { type: 'tool_call', tool: toolName ?? '', fileName: decision.fileName } : { type: decision.type };

  // Gemini usage: promptTokenCount includes the cached tokens; candidatesTokenCount excludes the
  // thoughts, which come apart (totalTokenCount is the three together).
  const reported = scriptedUsage(record, { baseInput: 800, visibleOutput: functionCall ? 40 : 12, reasoning: true, cacheWrite: false });
  const promptTokenCount = reported.input;
  const candidatesTokenCount = reported.output - reported.reasoning;
  const usageMetadata = {
    promptTokenCount,
    candidatesTokenCount,
    thoughtsTokenCount: reported.reasoning,
    totalTokenCount: reported.input + reported.output,
    cachedContentTokenCount: reported.cachedInput,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokenCount }],
  };
  const responseId = makeId('');
  const chunk = (parts: unknown[], last: boolean) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
    usageMetadata: last ? usageMetadata : { promptTokenCount, totalTokenCount: promptTokenCount },
    modelVersion: model,
    responseId,
  });

  const finalParts: unknown[] = functionCall ? [{ functionCall }] : [];
  if (!streaming) {
    if (failure?.mode === 'drop_stream') {
      record.outcome = { type: 'failure', mode: 'drop_stream', status: 200 };
      sendTruncatedJson(res, chunk([{ text }, ...finalParts], true));
    } else {
      record.usage = reported;
      sendJson(res, 200, chunk([{ text }, ...finalParts], true));
    }
    return;
  }
  const stream = sseStream(res);
  const textPieces = pieces(text);
  if (failure?.mode === 'drop_stream') {
    stream.write(chunk([{ text: textPieces[0] ?? '' }], false));
    record.outcome = { type: 'failure', mode: 'drop_stream', status: 200 };
    stream.drop();
    return;
  }
  textPieces.forEach((piece, index) => {
    const last = index === textPieces.length - 1 && finalParts.length === 0;
    stream.write(chunk([{ text: piece }], last));
  });
  if (finalParts.length > 0) stream.write(chunk(finalParts, true));
  record.usage = reported;
  stream.end();
}

/** A value that satisfies a JSON schema well enough for Gemini CLI's side checks (user speaks next). */
function exampleFor(schema: unknown, key = ''): unknown {
  if (!isObject(schema)) return {};
  const type = typeof schema.type === 'string' ? schema.type.toLowerCase() : isObject(schema.properties) ? 'object' : 'string';
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    if (key === 'next_speaker' && schema.enum.includes('user')) return 'user';
    return schema.enum[0];
  }
  switch (type) {
    case 'object': {
      const properties = isObject(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, exampleFor(value, name)]));
    }
    case 'array':
      return [];
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return key === 'next_speaker' ? 'user' : 'scripted';
  }
}

/**
 * Google's error responses. A wrong API key is HTTP 400 INVALID_ARGUMENT with reason API_KEY_INVALID
 * (`invalid_api_key`); `unauthorized` is the HTTP 401 UNAUTHENTICATED a gateway or an OAuth endpoint
 * sends. The 429 carries the quota text with "Please retry in Ns." and a RetryInfo detail; Google
 * sends no Retry-After header, this server adds one so every protocol has the same hint.
 */
export function geminiError(mode: Exclude<FailureMode, 'drop_stream'>, retryAfterSeconds: number, model: string): HttpError {
  if (mode === 'invalid_api_key') {
    return {
      status: 400,
      headers: {},
      body: {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
            { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
          ],
        },
      },
    };
  }
  if (mode === 'unauthorized') {
    return {
      status: 401,
      headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/"' },
      body: {
        error: {
          code: 401,
          message:
            'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
          status: 'UNAUTHENTICATED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_TYPE_UNSUPPORTED', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }],
        },
      },
    };
  }
  return {
    status: 429,
    headers: { 'retry-after': String(retryAfterSeconds) },
    body: {
      error: {
        code: 429,
        message: `You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. \n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 2, model: ${model}\nPlease retry in ${retryAfterSeconds}.5s.`,
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [
              {
                quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
                quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
                quotaDimensions: { location: 'global', model },
                quotaValue: '2',
              },
            ],
          },
          { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterSeconds}s` },
        ],
      },
    },
  };
}

export function geminiHistory(body: Record<string, unknown>): ConversationHistory {
  const history: ConversationHistory = { userTexts: [], assistantTexts: [], toolResults: [] };
  for (const content of asArray(body.contents).filter(isObject)) {
    for (const part of asArray(content.parts).filter(isObject)) {
      if (isObject(part.functionResponse)) history.toolResults.push(JSON.stringify(part.functionResponse.response ?? {}));
      else if (typeof part.text === 'string') (content.role === 'model' ? history.assistantTexts : history.userTexts).push(part.text);
    }
  }
  return history;
}
