/**
 * What each agent CLI needs, in an isolated provider home, to reach a model server at a base URL with
 * an API key: environment variables, and files inside the provider home (CODEX_HOME,
 * CLAUDE_CONFIG_DIR, PI_CODING_AGENT_DIR, GEMINI_CLI_HOME). Verified against the real CLIs by
 * e2e/agents/agents.test.ts (codex-cli 0.171.0, Claude Code 2.1.197, pi 0.73.1, Gemini CLI 0.61.0).
 *
 * Pure and dependency-free, so the console's AI-connections code can move it into electron/connections/
 * unchanged: the caller writes `files` into the provider home (creating directories, with `mode`),
 * adds `env` to the confined environment, passes `modelArgument` as the agent's model, and removes
 * the files when the run ends. See README.md for the same contract in prose.
 */

export type DeliveryProviderId = 'codex' | 'claude-code' | 'pi' | 'gemini-cli';

export interface DeliveryOptions {
  /** The AI connection's secret. */
  apiKey: string;
  /**
   * The AI connection's base URL, in the form the provider's SDKs take it: OpenAI-compatible ones end
   * in /v1 (`http://127.0.0.1:8080/v1`, `https://openrouter.ai/api/v1`); Anthropic and Gemini ones
   * are the origin (`https://api.anthropic.com`, `https://generativelanguage.googleapis.com`).
   */
  baseUrl: string;
  /** The model id the server knows (what the agent's model is). */
  model: string;
  /**
   * How often the CLI itself retries a failed model request. The console retries attempts itself
   * (with the failure classifier's delays), so a small number keeps a 401 or 429 from hiding inside
   * minutes of the CLI's own backoff. Undefined keeps the CLI's default.
   */
  maxRetries?: number | undefined;
}

export interface DeliveredFile {
  /** Relative to the provider home (the directory the provider's home variable names). */
  relativePath: string;
  content: string;
  /** File mode; credential-bearing files are 0o600. */
  mode: number;
}

export interface CredentialDelivery {
  /** Additions to the confined environment (never the whole environment). */
  env: Record<string, string>;
  files: DeliveredFile[];
  /**
   * The model argument the CLI must be launched with (`--model`). Equal to `options.model` except for
   * Pi, where a custom provider's models are addressed as `<provider>/<model>`.
   */
  modelArgument: string;
  /** Env names whose values are secrets (for redaction and for tests that look for leaks). */
  secretEnv: string[];
}

/** The name of the custom provider the console defines for Codex and Pi. */
export const consoleProviderName = 'operator-console';

/** Pi reads a custom provider's key from this variable (models.json names it). */
export const piApiKeyEnv = 'OPERATOR_CONSOLE_API_KEY';

export function credentialDeliveryFor(providerId: DeliveryProviderId, options: DeliveryOptions): CredentialDelivery {
  assertUsable(options);
  switch (providerId) {
    case 'codex':
      return codexDelivery(options);
    case 'claude-code':
      return claudeDelivery(options);
    case 'pi':
      return piDelivery(options);
    case 'gemini-cli':
      return geminiDelivery(options);
    default:
      throw new Error(`No credential delivery for provider "${String(providerId)}".`);
  }
}

/**
 * Codex: a custom model provider in CODEX_HOME/config.toml that speaks the Responses API at the base
 * URL and reads its key from CODEX_API_KEY (`env_key`), which Codex sends as `Authorization: Bearer`.
 * No auth.json is needed for a custom provider; `cli_auth_credentials_store = "file"` keeps Codex
 * from reaching for the OS keyring. Analytics and the update check are off (no traffic but the model's).
 */
function codexDelivery(options: DeliveryOptions): CredentialDelivery {
  const retries = options.maxRetries === undefined ? '' : `request_max_retries = ${int(options.maxRetries)}\nstream_max_retries = ${int(options.maxRetries)}\n`;
  const config = [
    '# Written by Operator Console for one run (AI connection delivery); removed when the run ends.',
    `model = ${tomlString(options.model)}`,
    `model_provider = ${tomlString(consoleProviderName)}`,
    'cli_auth_credentials_store = "file"',
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '# The curated plugins marketplace is synced from github.com at start; a run reaches only its model.',
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    '',
    `[model_providers.${consoleProviderName}]`,
    'name = "Operator Console AI connection"',
    `base_url = ${tomlString(options.baseUrl)}`,
    'wire_api = "responses"',
    'env_key = "CODEX_API_KEY"',
    `${retries}`,
  ].join('\n');
  return {
    env: { CODEX_API_KEY: options.apiKey },
    files: [{ relativePath: 'config.toml', content: config, mode: 0o600 }],
    modelArgument: options.model,
    secretEnv: ['CODEX_API_KEY'],
  };
}

/**
 * Claude Code: ANTHROPIC_API_KEY (sent as `x-api-key`) and ANTHROPIC_BASE_URL (the origin; the SDK
 * appends /v1/messages). No file. CLAUDE_CODE_MAX_RETRIES bounds its own retries (default 10, with
 * exponential backoff: a 429 or 5xx can keep a run busy for minutes).
 */
function claudeDelivery(options: DeliveryOptions): CredentialDelivery {
  const env: Record<string, string> = {
    ANTHROPIC_API_KEY: options.apiKey,
    ANTHROPIC_BASE_URL: stripTrailingSlash(options.baseUrl),
    DISABLE_AUTOUPDATER: '1',
  };
  if (options.maxRetries !== undefined) env.CLAUDE_CODE_MAX_RETRIES = String(int(options.maxRetries));
  return { env, files: [], modelArgument: options.model, secretEnv: ['ANTHROPIC_API_KEY'] };
}

/**
 * Pi: a custom OpenAI-compatible provider in PI_CODING_AGENT_DIR/models.json (`api:
 * "openai-completions"`, the base URL, the model), whose `apiKey` names the environment variable that
 * holds the key (Pi sends it as `Authorization: Bearer`). The model is `operator-console/<model>`.
 * settings.json sets Pi's own retries. Note Pi resolves `apiKey` as "the variable of that name if it
 * is set, else the literal text", so a missing variable sends the variable's name as the key (401).
 */
function piDelivery(options: DeliveryOptions): CredentialDelivery {
  const models = {
    providers: {
      [consoleProviderName]: {
        baseUrl: stripTrailingSlash(options.baseUrl),
        api: 'openai-completions',
        apiKey: piApiKeyEnv,
        models: [{ id: options.model, name: options.model, reasoning: false, input: ['text'], contextWindow: 200_000, maxTokens: 32_000 }],
      },
    },
  };
  const files: DeliveredFile[] = [{ relativePath: 'models.json', content: `${JSON.stringify(models, null, 2)}\n`, mode: 0o600 }];
  if (options.maxRetries !== undefined) {
    const retries = int(options.maxRetries);
    const settings = { retry: { enabled: retries > 0, maxRetries: retries, provider: { maxRetries: 0 } } };
    files.push({ relativePath: 'settings.json', content: `${JSON.stringify(settings, null, 2)}\n`, mode: 0o600 });
  }
  return {
    env: { [piApiKeyEnv]: options.apiKey },
    files,
    modelArgument: `${consoleProviderName}/${options.model}`,
    secretEnv: [piApiKeyEnv],
  };
}

/**
 * Gemini CLI: GEMINI_API_KEY (sent as `x-goog-api-key`) and GOOGLE_GEMINI_BASE_URL (the origin), plus
 * GEMINI_CLI_HOME/.gemini/settings.json selecting API-key auth (without it a headless run stops at
 * "Please set an Auth method"), with usage statistics and update checks off. `general.maxAttempts`
 * (at most 10, the default) counts attempts, so it is retries + 1.
 */
function geminiDelivery(options: DeliveryOptions): CredentialDelivery {
  const general: Record<string, unknown> = { enableAutoUpdate: false, enableAutoUpdateNotification: false };
  if (options.maxRetries !== undefined) general.maxAttempts = Math.min(10, int(options.maxRetries) + 1);
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general,
  };
  return {
    env: { GEMINI_API_KEY: options.apiKey, GOOGLE_GEMINI_BASE_URL: stripTrailingSlash(options.baseUrl) },
    files: [{ relativePath: '.gemini/settings.json', content: `${JSON.stringify(settings, null, 2)}\n`, mode: 0o600 }],
    modelArgument: options.model,
    secretEnv: ['GEMINI_API_KEY'],
  };
}

function assertUsable(options: DeliveryOptions): void {
  if (options.apiKey.trim() === '') throw new Error('The AI connection has no API key.');
  if (/[\r\n]/.test(options.apiKey)) throw new Error('The API key contains a line break.');
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new Error(`The base URL "${options.baseUrl}" is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`The base URL must be http or https, not ${url.protocol}`);
  if (options.model.trim() === '') throw new Error('No model given.');
}

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function int(value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new Error(`maxRetries must be a whole number ≥ 0, not ${value}.`);
  return value;
}

/** A TOML basic string. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}
