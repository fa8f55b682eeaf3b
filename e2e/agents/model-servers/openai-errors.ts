import type http from 'node:http';
import { asArray, isObject } from './json-values';
import { startRecordingServer, type FailureMode, type FailurePlan, type ModelServer, type ProtocolContext } from './recording-server';
import { makeId, sendJson } from './replies';
import type { ScriptOptions } from './scripted-conversation';

/**
 * What the Responses and Chat Completions servers share: OpenAI's error responses, `GET /v1/models`,
 * the routing of the model endpoint, and the reading of a model request up to its planned failure.
 */

export interface OpenAiFailureContext {
  model: string;
  authorization: string | undefined;
}

export interface HttpError {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** OpenAI shows the key it refused masked: the first 8 characters, stars, the last 4. */
export function maskKey(key: string): string {
  if (key.length <= 12) return `${key.slice(0, 3)}***`;
  return `${key.slice(0, 8)}${'*'.repeat(Math.min(key.length - 12, 20))}${key.slice(-4)}`;
}

export function openAiError(mode: Exclude<FailureMode, 'drop_stream'>, retryAfterSeconds: number, context: OpenAiFailureContext): HttpError {
  const requestId = makeId('req_');
  if (mode === 'unauthorized' || mode === 'invalid_api_key') {
    const key = context.authorization?.replace(/^Bearer\s+/i, '') ?? '';
    return {
      status: 401,
      headers: { 'x-request-id': requestId },
      body: {
        error: {
          message: key
            ? `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`
            : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    };
  }
  return {
    status: 429,
    headers: {
      'x-request-id': requestId,
      'retry-after': String(retryAfterSeconds),
      'x-ratelimit-limit-requests': '500',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': `${retryAfterSeconds}s`,
      'x-ratelimit-limit-tokens': '30000',
      'x-ratelimit-remaining-tokens': '29000',
      'x-ratelimit-reset-tokens': '2ms',
    },
    body: {
      error: {
        message: `Rate limit reached for ${context.model} in organization org-e2e on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in ${retryAfterSeconds}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
    },
  };
}

export function openAiModelList(models: readonly string[]) {
  const created = 1_750_000_000;
  return { object: 'list', data: models.map((id) => ({ id, object: 'model', created, owned_by: 'openai' })) };
}

export interface OpenAiServerOptions {
  protocol: 'openai-chat' | 'openai-responses';
  /** The model endpoint, e.g. `/v1/responses`. */
  modelPath: string;
  script?: Partial<ScriptOptions> | undefined;
  failure?: FailurePlan | null | undefined;
  models?: string[] | undefined;
  /** Answers a model request (`POST modelPath`). */
  respond: (req: http.IncomingMessage, res: http.ServerResponse, ctx: ProtocolContext) => void;
}

/** An OpenAI-compatible server under /v1: `GET /v1/models`, and `POST modelPath` as model requests. */
export function startOpenAiServer(options: OpenAiServerOptions): Promise<ModelServer> {
  const models = options.models ?? ['gpt-5.5'];
  return startRecordingServer({
    protocol: options.protocol,
    baseUrlPath: '/v1',
    script: options.script,
    failure: options.failure,
    handler: (req, res, ctx) => {
      const { record } = ctx;
      if (record.method === 'GET' && record.path === '/v1/models') {
        record.outcome = { type: 'other', status: 200 };
        sendJson(res, 200, openAiModelList(models));
        return true;
      }
      if (record.method === 'POST' && record.path === options.modelPath) {
        record.kind = 'model';
        options.respond(req, res, ctx);
        return true;
      }
      return false;
    },
  });
}

export interface OpenAiModelRequest {
  body: Record<string, unknown>;
  model: string;
  /** The planned failure left for the answer to act out: only ever `drop_stream`. */
  failure: (FailurePlan & { retryAfterSeconds: number }) | null;
}

/**
 * Reads a model request's body and model and takes its planned failure. A failure other than
 * `drop_stream` is answered here with OpenAI's error (and null returned): the caller answers nothing.
 */
export function openAiModelRequest(req: http.IncomingMessage, res: http.ServerResponse, ctx: ProtocolContext): OpenAiModelRequest | null {
  const { record } = ctx;
  const body = isObject(record.body) ? record.body : {};
  const model = typeof body.model === 'string' ? body.model : 'gpt-5.5';
  const failure = ctx.takeFailure();
  if (failure && failure.mode !== 'drop_stream') {
    const error = openAiError(failure.mode, failure.retryAfterSeconds, { model, authorization: req.headers.authorization });
    record.outcome = { type: 'failure', mode: failure.mode, status: error.status };
    sendJson(res, error.status, error.body, error.headers);
    return null;
  }
  return { body, model, failure };
}

/** A message's text: its content when a string, else its parts' `text`, one per line. */
export function openAiContentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .filter(isObject)
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join('\n');
}
