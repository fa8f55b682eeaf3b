import type { AiConnection, ConnectionTestResult } from '../../shared/entities';
import { SecretRedactor } from '../platform/secret-redaction';

/**
 * A connection's Test, without running an agent: is the key shaped like one of its provider's, and
 * (when the connection names a base URL) does the provider's models endpoint there accept it? The
 * result names what to fix; it never contains the key (a server that echoes it back is redacted).
 */

export interface ProbeInput {
  provider: AiConnection['provider'];
  method: AiConnection['method'];
  baseUrl: string | null;
  secret: string;
  /** How long the models request may take. */
  timeoutMs?: number;
  now?: () => number;
}

export type ProbeResult = ConnectionTestResult & { status: AiConnection['status'] };

const providerNames: Record<AiConnection['provider'], string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  openrouter: 'OpenRouter',
  custom: 'Custom (OpenAI-compatible)',
};

export function providerName(provider: AiConnection['provider']): string {
  return providerNames[provider];
}

/** What the UI shows instead of the secret: the provider and the last 4 characters. */
export function secretHint(provider: AiConnection['provider'], secret: string): string {
  return `${providerNames[provider]} …${secret.slice(-4)}`;
}

/** Why a key does not look like its provider's, or null when it does. */
export function keyShapeProblem(provider: AiConnection['provider'], method: AiConnection['method'], secret: string): string | null {
  if (/\s/.test(secret)) return 'The key contains spaces or line breaks; paste it again without them.';
  switch (provider) {
    case 'openai':
      return /^sk-[A-Za-z0-9_-]{20,}$/.test(secret) ? null : 'An OpenAI API key starts with “sk-” and is at least 23 characters long.';
    case 'anthropic':
      if (method === 'subscription_token') {
        return /^sk-ant-oat[A-Za-z0-9_-]{20,}$/.test(secret)
          ? null
          : 'A Claude Code subscription token starts with “sk-ant-oat” (make one with `claude setup-token`).';
      }
      return /^sk-ant-[A-Za-z0-9_-]{20,}$/.test(secret) ? null : 'An Anthropic API key starts with “sk-ant-” and is at least 27 characters long.';
    case 'google':
      return /^AIza[A-Za-z0-9_-]{35}$/.test(secret) ? null : 'A Google AI Studio API key starts with “AIza” and is 39 characters long.';
    case 'openrouter':
      return /^sk-or-[A-Za-z0-9_-]{20,}$/.test(secret) ? null : 'An OpenRouter API key starts with “sk-or-”.';
    case 'custom':
      // Gateways and local servers choose their own keys; only an empty-looking one is surely wrong.
      return secret.length >= 4 ? null : 'The key is shorter than 4 characters.';
  }
}

/** The models endpoint at a base URL and how to authenticate to it, per provider. */
export function modelsRequest(input: Pick<ProbeInput, 'provider' | 'method' | 'baseUrl' | 'secret'>): { url: string; headers: Record<string, string> } {
  const base = (input.baseUrl ?? '').replace(/\/+$/, '');
  switch (input.provider) {
    case 'anthropic': {
      // ANTHROPIC_BASE_URL is the API root, without /v1 (Claude Code appends it).
      const url = /\/v1$/.test(base) ? `${base}/models` : `${base}/v1/models`;
      const headers: Record<string, string> = { 'anthropic-version': '2023-06-01' };
      if (input.method === 'subscription_token') {
        headers.authorization = `Bearer ${input.secret}`;
        headers['anthropic-beta'] = 'oauth-2025-04-20';
      } else {
        headers['x-api-key'] = input.secret;
      }
      return { url, headers };
    }
    case 'google':
      // The key goes in a header, not in `?key=`: URLs end up in proxy and server logs.
      return { url: /\/v1(beta)?$/.test(base) ? `${base}/models` : `${base}/v1beta/models`, headers: { 'x-goog-api-key': input.secret } };
    case 'openai':
    case 'openrouter':
    case 'custom':
      // OpenAI-compatible base URLs include their version (…/v1), as OPENAI_BASE_URL does.
      return { url: `${base}/models`, headers: { authorization: `Bearer ${input.secret}` } };
  }
}

export async function probeConnection(input: ProbeInput): Promise<ProbeResult> {
  const now = input.now ?? Date.now;
  const checkedAt = () => new Date(now()).toISOString();
  const shape = keyShapeProblem(input.provider, input.method, input.secret);
  if (shape) return { ok: false, checkedAt: checkedAt(), code: 'invalid_key_shape', message: shape, status: 'needs_attention' };
  if (!input.baseUrl) {
    return {
      ok: true,
      checkedAt: checkedAt(),
      message: `The key looks like a ${providerNames[input.provider]} key. (Without a base URL, the console does not call the provider to check it.)`,
      status: 'connected',
    };
  }

  const { url, headers } = modelsRequest(input);
  const redactor = new SecretRedactor([input.secret]);
  const timeoutMs = input.timeoutMs ?? 5000;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...headers },
      // A redirect could carry the key to another host: report it instead of following it.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      checkedAt: checkedAt(),
      code: 'unreachable',
      message: timedOut
        ? `${url} did not answer within ${Math.round(timeoutMs / 1000)} s. Check the base URL and that the server is running.`
        : `Could not reach ${url} (${redactor.redactText(cause)}). Check the base URL and that the server is running.`,
      status: 'needs_attention',
    };
  }
  const body = await response.text().catch(() => '');
  if (response.status >= 300 && response.status < 400) {
    return {
      ok: false,
      checkedAt: checkedAt(),
      code: 'redirected',
      message: `${url} redirects (HTTP ${response.status}${response.headers.get('location') ? ` to ${response.headers.get('location')}` : ''}). Use the final address as the base URL.`,
      status: 'needs_attention',
    };
  }
  const detail = errorDetail(body, redactor);
  // Gemini answers a bad key with 400 INVALID_ARGUMENT "API key not valid".
  if (response.status === 401 || response.status === 403 || (response.status === 400 && /api key/i.test(detail))) {
    const expired = /expired/i.test(detail);
    return {
      ok: false,
      checkedAt: checkedAt(),
      code: expired ? 'auth_expired' : 'auth_required',
      message: `${providerNames[input.provider]} refused the key (HTTP ${response.status}${detail ? `: ${detail}` : ''}). ${expired ? 'It has expired: enter a new one.' : 'Check the key, or enter a new one.'}`,
      status: expired ? 'expired' : 'needs_attention',
    };
  }
  if (!response.ok) {
    return {
      ok: false,
      checkedAt: checkedAt(),
      code: response.status === 404 ? 'not_found' : 'unexpected_response',
      message:
        response.status === 404
          ? `${url} was not found (HTTP 404). Check the base URL: ${input.provider === 'anthropic' || input.provider === 'google' ? 'it is the API root' : 'it usually ends in /v1'}.`
          : `${url} answered HTTP ${response.status}${detail ? `: ${detail}` : ''}.`,
      status: 'needs_attention',
    };
  }
  const count = countModels(body);
  return {
    ok: true,
    checkedAt: checkedAt(),
    message: `Connected to ${new URL(url).host}: the key was accepted${count === null ? '' : ` and ${count} model${count === 1 ? ' is' : 's are'} available`}.`,
    status: 'connected',
  };
}

/** The provider's own error message, short and without the key. */
function errorDetail(body: string, redactor: SecretRedactor): string {
  let message = '';
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'string') message = parsed.error;
    else if (parsed.error && typeof parsed.error.message === 'string') message = parsed.error.message;
    else if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    message = '';
  }
  message = redactor.redactText(message).replace(/\s+/g, ' ').trim();
  return message.length > 200 ? `${message.slice(0, 197)}…` : message;
}

function countModels(body: string): number | null {
  try {
    const parsed = JSON.parse(body) as { data?: unknown; models?: unknown };
    if (Array.isArray(parsed.data)) return parsed.data.length;
    if (Array.isArray(parsed.models)) return parsed.models.length;
  } catch {
    // Not JSON: the key was accepted, the count is unknown.
  }
  return null;
}
