import type { AiConnection } from '../../shared/entities';

/**
 * How a managed AI connection reaches a CLI in an isolated provider home (DESIGN.md section 4): the
 * environment variables it reads a key from, the files it needs to use that key (and a base URL, for
 * gateways and local servers), and the model argument to launch it with. What each CLI needs is in its
 * definition's `delivery` (electron/providers/<cli>/delivery.ts); this is the part they share. Pure:
 * the task root's provider home (task-root/provider-home.ts) gets the files (0600) and loses them when
 * the attempt ends, and the run service redacts every secret value from the run's output.
 *
 * The base-URL layouts are proven against the real CLIs (codex-cli 0.171.0, Claude Code 2.1.197,
 * pi 0.73.1, Gemini CLI 0.61.0) and model servers on 127.0.0.1 by e2e/agents, which delivers with this
 * module; without a base URL each CLI talks to its provider's own API with the key in the variable
 * (or file) it reads by default.
 */

/** How a managed AI connection reaches the CLI in an isolated home (DESIGN.md section 4). */
export interface CredentialDeliveryPlan {
  /**
   * Every file a delivery may leave in the provider home, relative to it. Recovery removes these from
   * the homes of runs a previous console left behind, without trusting anything the run could write.
   */
  readonly files: readonly string[];
  /** The OpenRouter endpoint this CLI speaks to, for a connection to it without a base URL; null if none. */
  readonly openRouterBaseUrl: string | null;
  /** The variables and files for one attempt. `baseUrl` is the effective one (effectiveBaseUrl). */
  deliver(input: DeliveryRequest): CredentialDeliveryParts;
  /** The `--model` argument for the agent's model through this connection (the model id unchanged, or addressed through the console's provider entry). */
  modelArgument(model: string, baseUrl: string | null): string;
}

export interface DeliveryRequest {
  connection: DeliverableConnection;
  /** The decrypted key or token: only ever in memory, in the delivered files and in the child's env. */
  secret: string;
  /** The agent's model, exactly as the operator chose it. */
  model: string;
  /** The connection's base URL, or the gateway's (OpenRouter); null: the CLI's provider's own API. */
  baseUrl: string | null;
}

/** What of a CLI's definition (provider-definition.ts) delivery reads: its plan. */
export interface DeliveringDefinition {
  readonly delivery: CredentialDeliveryPlan;
}

export interface DeliverableConnection {
  provider: AiConnection['provider'];
  method: AiConnection['method'];
  baseUrl: string | null;
}

export interface CredentialDeliveryInput {
  /** Which CLI: the definition the agent's catalog entry names. */
  definition: DeliveringDefinition;
  connection: DeliverableConnection;
  /** The decrypted key or token: only ever in memory, in the delivered files and in the child's env. */
  secret: string;
  /** The agent's model. */
  model: string;
}

/** A file a CLI needs to use the key, written into its provider home (task-root/provider-home.ts). */
export interface DeliveredFile {
  /** Relative to the provider home, e.g. `auth.json`. */
  relativePath: string;
  content: string | Uint8Array;
}

/** What a definition's delivery makes for one attempt. */
export interface CredentialDeliveryParts {
  /** Variables that carry the secret (passed through confinement's `deliveredSecrets`). */
  secretEnv: Record<string, string>;
  /** Variables that do not (base URLs, switches). */
  plainEnv: Record<string, string>;
  /** Files relative to the provider home, written 0600 and removed when the attempt ends. */
  files: DeliveredFile[];
}

export interface CredentialDelivery extends CredentialDeliveryParts {
  /** Every value to redact from the run's output and timeline. */
  secrets: string[];
}

/** The name of the custom provider the console defines for CLIs that need one (Codex, Pi). */
export const consoleProviderName = 'operator-console';

/**
 * The CLIs' own retries of a failed model request. The console retries attempts itself, with the
 * failure classifier's delays, so a CLI's own backoff must not hide a 401 or 429 for minutes.
 */
export const cliMaxRetries = 0;

/** OpenRouter's endpoints, for a connection to it without a base URL of its own. */
export const openRouterOpenAiBase = 'https://openrouter.ai/api/v1';
export const openRouterAnthropicBase = 'https://openrouter.ai/api';

/**
 * The base URL the CLI is pointed at: the connection's own, or OpenRouter's public one (which no CLI
 * knows by itself). Null: the CLI's provider's own API.
 */
export function effectiveBaseUrl(definition: DeliveringDefinition, connection: DeliverableConnection): string | null {
  if (connection.baseUrl) return stripTrailingSlash(connection.baseUrl);
  if (connection.provider !== 'openrouter') return null;
  return definition.delivery.openRouterBaseUrl;
}

/** The `--model` argument for the agent's model, through this connection (or none). */
export function modelArgumentFor(definition: DeliveringDefinition, connection: DeliverableConnection | null, model: string): string {
  return definition.delivery.modelArgument(model, connection ? effectiveBaseUrl(definition, connection) : null);
}

export function credentialDelivery(input: CredentialDeliveryInput): CredentialDelivery {
  const { definition, connection, secret, model } = input;
  if (secret.trim() === '' || /[\r\n]/.test(secret)) throw new Error('The AI connection’s key is empty or contains a line break.');
  const parts = definition.delivery.deliver({ connection, secret, model, baseUrl: effectiveBaseUrl(definition, connection) });
  return { ...parts, secrets: [secret] };
}

export function emptyDelivery(): CredentialDeliveryParts {
  return { secretEnv: {}, plainEnv: {}, files: [] };
}

export function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** A TOML basic string. JSON's escapes are TOML's (\", \\, \n, \uXXXX). */
export function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** A delivered JSON file, as the CLIs' own tools write them. */
export function jsonFile(relativePath: string, value: unknown): DeliveredFile {
  return { relativePath, content: `${JSON.stringify(value, null, 2)}\n` };
}
