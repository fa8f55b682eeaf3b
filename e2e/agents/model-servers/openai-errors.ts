import type { FailureMode } from './recording-server';
import { makeId } from './recording-server';

/** OpenAI's error responses (the same for the Responses and Chat Completions APIs). */

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
