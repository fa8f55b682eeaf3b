import path from 'node:path';
import type { AiConnection } from '../../shared/entities';
import type { DeliveredFile } from '../confinement/provider-home';
import type { AdapterKind } from '../providers/catalog';

/**
 * How a managed AI connection reaches each CLI in an isolated provider home (DESIGN.md section 4): the
 * environment variables it reads a key from, the files it needs to use that key (and a base URL, for
 * gateways and local servers), and the model argument to launch it with. Pure: confinement writes the
 * files (0600) into the provider home and removes them when the attempt ends, and the run service
 * redacts every secret value from the run's output.
 *
 * The base-URL layouts are proven against the real CLIs (codex-cli 0.171.0, Claude Code 2.1.197,
 * pi 0.73.1, Gemini CLI 0.61.0) and model servers on 127.0.0.1 by e2e/agents, which delivers with this
 * module; without a base URL each CLI talks to its provider's own API with the key in the variable
 * (or file) it reads by default.
 */

export interface DeliverableConnection {
  provider: AiConnection['provider'];
  method: AiConnection['method'];
  baseUrl: string | null;
}

export interface CredentialDeliveryInput {
  /** Which CLI (the catalog's adapter kind). */
  cli: AdapterKind;
  connection: DeliverableConnection;
  /** The decrypted key or token: only ever in memory, in the delivered files and in the child's env. */
  secret: string;
  /** The agent's model. */
  model: string;
}

export interface CredentialDelivery {
  /** Variables that carry the secret (passed through confinement's `deliveredSecrets`). */
  secretEnv: Record<string, string>;
  /** Variables that do not (base URLs, switches). */
  plainEnv: Record<string, string>;
  /** Files relative to the provider home, written 0600 and removed when the attempt ends. */
  files: DeliveredFile[];
  /** Every value to redact from the run's output and timeline. */
  secrets: string[];
}

/** The name of the custom provider the console defines for Codex and Pi. */
export const consoleProviderName = 'operator-console';

/** Pi reads a custom provider's key from this variable (models.json names it). */
export const piApiKeyEnv = 'OPERATOR_CONSOLE_API_KEY';

/**
 * The CLIs' own retries of a failed model request. The console retries attempts itself, with the
 * failure classifier's delays, so a CLI's own backoff must not hide a 401 or 429 for minutes.
 */
const cliMaxRetries = 0;

/** OpenRouter's endpoints, for a connection to it without a base URL of its own. */
const openRouterOpenAiBase = 'https://openrouter.ai/api/v1';
const openRouterAnthropicBase = 'https://openrouter.ai/api';

/**
 * The base URL the CLI is pointed at: the connection's own, or OpenRouter's public one (which no CLI
 * knows by itself). Null: the CLI's provider's own API.
 */
export function effectiveBaseUrl(cli: AdapterKind, connection: DeliverableConnection): string | null {
  if (connection.baseUrl) return stripTrailingSlash(connection.baseUrl);
  if (connection.provider !== 'openrouter') return null;
  return cli === 'claude-code' ? openRouterAnthropicBase : openRouterOpenAiBase;
}

/**
 * The `--model` argument: the agent's model, except for Pi through a base URL, where the console's
 * custom provider addresses it as `operator-console/<model>` (the model's own `provider/` prefix, as the
 * catalog lists Pi's models, is what that server does not know).
 */
export function modelArgumentFor(cli: AdapterKind, connection: DeliverableConnection | null, model: string): string {
  if (cli !== 'pi' || !connection || !effectiveBaseUrl(cli, connection)) return model;
  return `${consoleProviderName}/${serverModelId(model)}`;
}

/**
 * The files a delivery may leave in a provider home, per CLI. Recovery removes these from the homes of
 * runs a previous console left behind, without trusting anything the run could have written.
 */
export function deliveredFilePaths(cli: AdapterKind): string[] {
  switch (cli) {
    case 'codex':
      return ['auth.json', 'config.toml'];
    case 'pi':
      return ['models.json', 'settings.json'];
    case 'gemini-cli':
      return [path.join('.gemini', 'settings.json')];
    case 'claude-code':
    case 'command':
      return [];
  }
}

export function credentialDelivery(input: CredentialDeliveryInput): CredentialDelivery {
  const { connection, secret } = input;
  if (secret.trim() === '' || /[\r\n]/.test(secret)) throw new Error('The AI connection’s key is empty or contains a line break.');
  const delivery: CredentialDelivery = { secretEnv: {}, plainEnv: {}, files: [], secrets: [secret] };
  const baseUrl = effectiveBaseUrl(input.cli, connection);
  switch (input.cli) {
    case 'codex':
      deliverCodex(delivery, secret, baseUrl, input.model);
      break;
    case 'claude-code':
      deliverClaude(delivery, connection, secret, baseUrl);
      break;
    case 'pi':
      deliverPi(delivery, connection, secret, baseUrl, input.model);
      break;
    case 'gemini-cli':
      deliverGemini(delivery, secret, baseUrl);
      break;
    case 'command':
      deliverGeneric(delivery, connection, secret);
      break;
  }
  return delivery;
}

/**
 * Codex. Through a base URL: a custom model provider in CODEX_HOME/config.toml that speaks the
 * Responses API there and reads its key from CODEX_API_KEY (`env_key`); no auth.json is needed. To
 * OpenAI itself: auth.json with the key (what `codex login --with-api-key` writes) and CODEX_API_KEY for
 * `codex exec`. Either way `cli_auth_credentials_store = "file"` keeps Codex from reaching for the OS
 * keyring, and analytics, plugins and the update check are off (no traffic but the model's).
 */
function deliverCodex(delivery: CredentialDelivery, secret: string, baseUrl: string | null, model: string): void {
  delivery.secretEnv.CODEX_API_KEY = secret;
  const lines = [
    '# Written by Operator Console for one run (AI connection delivery); removed when the run ends.',
    ...(baseUrl ? [`model = ${tomlString(model)}`, `model_provider = ${tomlString(consoleProviderName)}`] : []),
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
  ];
  if (baseUrl) {
    lines.push(
      '',
      `[model_providers.${consoleProviderName}]`,
      'name = "Operator Console AI connection"',
      `base_url = ${tomlString(baseUrl)}`,
      'wire_api = "responses"',
      'env_key = "CODEX_API_KEY"',
      `request_max_retries = ${cliMaxRetries}`,
      `stream_max_retries = ${cliMaxRetries}`,
    );
  } else {
    delivery.files.push({ relativePath: 'auth.json', content: `${JSON.stringify({ OPENAI_API_KEY: secret }, null, 2)}\n` });
  }
  delivery.files.push({ relativePath: 'config.toml', content: `${lines.join('\n')}\n` });
}

/**
 * Claude Code: an API key in ANTHROPIC_API_KEY (sent as `x-api-key`), or a long-lived subscription
 * token (`claude setup-token`) in CLAUDE_CODE_OAUTH_TOKEN; ANTHROPIC_BASE_URL for a gateway (the
 * origin; the SDK appends /v1/messages). OpenRouter takes its key as a bearer token
 * (ANTHROPIC_AUTH_TOKEN). No file.
 */
function deliverClaude(delivery: CredentialDelivery, connection: DeliverableConnection, secret: string, baseUrl: string | null): void {
  if (connection.provider === 'openrouter') delivery.secretEnv.ANTHROPIC_AUTH_TOKEN = secret;
  else if (connection.method === 'subscription_token') delivery.secretEnv.CLAUDE_CODE_OAUTH_TOKEN = secret;
  else delivery.secretEnv.ANTHROPIC_API_KEY = secret;
  if (baseUrl) delivery.plainEnv.ANTHROPIC_BASE_URL = baseUrl;
  delivery.plainEnv.DISABLE_AUTOUPDATER = '1';
  delivery.plainEnv.CLAUDE_CODE_MAX_RETRIES = String(cliMaxRetries);
}

/**
 * Pi. Through a base URL: a custom OpenAI-compatible provider in PI_CODING_AGENT_DIR/models.json whose
 * `apiKey` names the variable holding the key (Pi sends it as a bearer token); the model is then
 * `operator-console/<model>` (see modelArgumentFor). Note Pi reads `apiKey` as "the variable of that
 * name if set, else the literal text", so the variable must always be delivered with the file. To a
 * provider's own API: the key in the variable Pi reads for that provider. settings.json sets Pi's retries.
 */
function deliverPi(delivery: CredentialDelivery, connection: DeliverableConnection, secret: string, baseUrl: string | null, model: string): void {
  if (baseUrl) {
    delivery.secretEnv[piApiKeyEnv] = secret;
    const id = serverModelId(model);
    const models = {
      providers: {
        [consoleProviderName]: {
          baseUrl,
          api: 'openai-completions',
          apiKey: piApiKeyEnv, // the variable's name: the file never holds the key
          models: [{ id, name: id, reasoning: false, input: ['text'], contextWindow: 200_000, maxTokens: 32_000 }],
        },
      },
    };
    delivery.files.push({ relativePath: 'models.json', content: `${JSON.stringify(models, null, 2)}\n` });
  } else {
    delivery.secretEnv[piKeyVariable(connection)] = secret;
  }
  const settings = { retry: { enabled: cliMaxRetries > 0, maxRetries: cliMaxRetries, provider: { maxRetries: 0 } } };
  delivery.files.push({ relativePath: 'settings.json', content: `${JSON.stringify(settings, null, 2)}\n` });
}

function piKeyVariable(connection: DeliverableConnection): string {
  switch (connection.provider) {
    case 'anthropic':
      return connection.method === 'subscription_token' ? 'ANTHROPIC_OAUTH_TOKEN' : 'ANTHROPIC_API_KEY';
    case 'google':
      return 'GEMINI_API_KEY';
    case 'openrouter':
      return 'OPENROUTER_API_KEY';
    case 'openai':
    case 'custom':
      return 'OPENAI_API_KEY';
  }
}

/**
 * Gemini CLI: GEMINI_API_KEY (sent as `x-goog-api-key`), GOOGLE_GEMINI_BASE_URL for a base URL (the
 * origin), and GEMINI_CLI_HOME/.gemini/settings.json selecting API-key auth (without it a headless
 * run stops at "Please set an Auth method"), with usage statistics and update checks off.
 * `general.maxAttempts` counts attempts, so it is retries + 1.
 */
function deliverGemini(delivery: CredentialDelivery, secret: string, baseUrl: string | null): void {
  delivery.secretEnv.GEMINI_API_KEY = secret;
  if (baseUrl) delivery.plainEnv.GOOGLE_GEMINI_BASE_URL = baseUrl;
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: Math.min(10, cliMaxRetries + 1) },
  };
  delivery.files.push({ relativePath: path.join('.gemini', 'settings.json'), content: `${JSON.stringify(settings, null, 2)}\n` });
}

/**
 * A command of the operator's own has no provider home: it gets the key in the variable its
 * provider's SDKs read, and the base URL in theirs.
 */
function deliverGeneric(delivery: CredentialDelivery, connection: DeliverableConnection, secret: string): void {
  const baseUrl = connection.baseUrl ? stripTrailingSlash(connection.baseUrl) : null;
  switch (connection.provider) {
    case 'anthropic':
      delivery.secretEnv[connection.method === 'subscription_token' ? 'CLAUDE_CODE_OAUTH_TOKEN' : 'ANTHROPIC_API_KEY'] = secret;
      if (baseUrl) delivery.plainEnv.ANTHROPIC_BASE_URL = baseUrl;
      return;
    case 'google':
      delivery.secretEnv.GEMINI_API_KEY = secret;
      if (baseUrl) delivery.plainEnv.GOOGLE_GEMINI_BASE_URL = baseUrl;
      return;
    case 'openrouter':
      delivery.secretEnv.OPENROUTER_API_KEY = secret;
      delivery.secretEnv.OPENAI_API_KEY = secret;
      delivery.plainEnv.OPENAI_BASE_URL = baseUrl ?? openRouterOpenAiBase;
      return;
    case 'openai':
    case 'custom':
      delivery.secretEnv.OPENAI_API_KEY = secret;
      if (baseUrl) delivery.plainEnv.OPENAI_BASE_URL = baseUrl;
      return;
  }
}

/** `openai/gpt-5.5` → `gpt-5.5`: the catalog's `provider/model` for Pi, as a server knows the model. */
function serverModelId(model: string): string {
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(slash + 1) : model;
}

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A TOML basic string. JSON's escapes are TOML's (\", \\, \n, \uXXXX). */
function tomlString(value: string): string {
  return JSON.stringify(value);
}
