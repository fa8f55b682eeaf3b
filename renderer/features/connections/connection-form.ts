import { channels, type ChannelInput } from '../../../shared/contract';
import { connectionProviders, type AiConnection } from '../../../shared/entities';
import { secretNoun } from './connection-labels';

/**
 * What the AI connection form holds. The key or token is deliberately not here: it lives in its
 * password field only, is read once on submit and cleared after, so it never sits in React state,
 * the UI store or the query cache.
 */
export interface ConnectionFormValues {
  name: string;
  provider: AiConnection['provider'];
  method: AiConnection['method'];
  baseUrl: string;
  ownership: AiConnection['ownership'];
  agentScope: AiConnection['agentScope'];
  /** The chosen agents (used when agentScope is `chosen`). */
  agentIds: string[];
  /** Editing only: retired, so no run uses it. */
  revoked: boolean;
}

/** The agent a new connection is made for: from its AI-connection picker, or from New agent (id null). */
export interface ConnectionForAgent {
  id: string | null;
  name: string;
  /** The providers its CLI can use: the only ones offered. */
  connectionProviders: readonly AiConnection['provider'][];
}

export type ConnectionFormField = 'name' | 'provider' | 'method' | 'secret' | 'baseUrl' | 'agentIds';
export type ConnectionFormProblems = Partial<Record<ConnectionFormField, string>>;

/** The order problems are looked at in, so the first one can take focus. */
export const connectionFieldOrder: ConnectionFormField[] = ['name', 'provider', 'method', 'secret', 'baseUrl', 'agentIds'];

export const exampleBaseUrl = 'http://127.0.0.1:11434/v1';

export function emptyConnectionForm(): ConnectionFormValues {
  return {
    name: '',
    provider: 'openai',
    method: 'api_key',
    baseUrl: '',
    ownership: 'personal',
    agentScope: 'all',
    agentIds: [],
    revoked: false,
  };
}

/**
 * A connection made for one agent (from its picker, or from New agent): of a provider its CLI can
 * use, shared with that agent only unless the operator widens it. An agent not saved yet (id null)
 * is shared with when it is created.
 */
export function connectionFormForAgent(agent: { id: string | null; connectionProviders: readonly AiConnection['provider'][] }): ConnectionFormValues {
  return {
    ...emptyConnectionForm(),
    provider: agent.connectionProviders[0] ?? 'openai',
    agentScope: 'chosen',
    agentIds: agent.id ? [agent.id] : [],
  };
}

export function connectionFormFromConnection(connection: AiConnection): ConnectionFormValues {
  return {
    name: connection.name,
    provider: connection.provider,
    method: connection.method,
    baseUrl: connection.baseUrl ?? '',
    ownership: connection.ownership,
    agentScope: connection.agentScope,
    agentIds: [...connection.agentIds],
    revoked: connection.status === 'revoked',
  };
}

/** A subscription token is Claude Code's sign-in token: only Anthropic takes one. */
export function methodAllowed(provider: AiConnection['provider'], method: AiConnection['method']): boolean {
  return method === 'api_key' || provider === 'anthropic';
}

/** Switching provider keeps the method when that provider takes it; otherwise falls back to an API key. */
export function withConnectionProvider(values: ConnectionFormValues, provider: AiConnection['provider']): ConnectionFormValues {
  return { ...values, provider, method: methodAllowed(provider, values.method) ? values.method : 'api_key' };
}

function agentIdsFor(values: ConnectionFormValues): string[] {
  return values.agentScope === 'chosen' ? [...new Set(values.agentIds)] : [];
}

export function createConnectionInput(values: ConnectionFormValues, secret: string): ChannelInput<'createConnection'> {
  const baseUrl = values.baseUrl.trim();
  return {
    name: values.name.trim(),
    provider: values.provider,
    method: values.method,
    baseUrl: baseUrl || null,
    ownership: values.ownership,
    agentScope: values.agentScope,
    agentIds: agentIdsFor(values),
    secret: secret.trim(),
  };
}

function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((id) => right.has(id));
}

/** Only what changed is sent; an empty key field keeps the stored key. */
export function updateConnectionInput(connection: AiConnection, values: ConnectionFormValues, secret: string): ChannelInput<'updateConnection'> {
  const next = createConnectionInput(values, secret);
  const input: ChannelInput<'updateConnection'> = { connectionId: connection.id };
  if (next.name !== connection.name) input.name = next.name;
  if (next.provider !== connection.provider) input.provider = next.provider;
  if (next.method !== connection.method) input.method = next.method;
  if (next.secret) input.secret = next.secret;
  if ((next.baseUrl ?? null) !== connection.baseUrl) input.baseUrl = next.baseUrl ?? null;
  if (next.ownership !== connection.ownership) input.ownership = next.ownership;
  if (next.agentScope !== connection.agentScope) input.agentScope = next.agentScope;
  const agentIds = next.agentIds ?? [];
  if (next.agentScope === 'chosen' && (input.agentScope !== undefined || !sameMembers(agentIds, connection.agentIds))) input.agentIds = agentIds;
  if (values.revoked !== (connection.status === 'revoked')) input.revoked = values.revoked;
  return input;
}

/** True when an update would change nothing. */
export function isEmptyUpdate(input: ChannelInput<'updateConnection'>): boolean {
  return Object.keys(input).length === 1;
}

/**
 * Checks the form with the contract's own schema, plus the two rules the core would refuse with
 * (a subscription token is Anthropic's; a custom provider needs its server's address), so the
 * operator hears about them at the field rather than after a round trip.
 */
export function connectionFormProblems(
  values: ConnectionFormValues,
  secret: string,
  mode: 'create' | 'edit',
  /** Made for an agent not saved yet: it is one of the chosen agents, though it has no id to tick. */
  forNewAgent = false,
): ConnectionFormProblems {
  const problems: ConnectionFormProblems = {};
  const secretName = secretNoun(values.method);
  const input = createConnectionInput(values, secret);
  const schema = mode === 'create' ? channels.createConnection.input : channels.updateConnection.input;
  const candidate = mode === 'create' ? input : { ...input, connectionId: 'con_form', secret: input.secret || undefined };
  const parsed = schema.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.path[0];
      if (field === 'name') problems.name ??= input.name ? 'A name is at most 100 characters.' : 'Give the connection a name.';
      else if (field === 'secret') {
        problems.secret ??= input.secret
          ? `The ${secretName} has no spaces or line breaks: paste it again.`
          : `Enter the ${secretName}.`;
      } else if (field === 'baseUrl') {
        problems.baseUrl ??= `Enter an http:// or https:// address without a query, fragment or credentials, e.g. ${exampleBaseUrl}.`;
      }
    }
  }
  if (!methodAllowed(values.provider, values.method)) {
    problems.method ??= 'A subscription token is Claude Code’s sign-in token (made with claude setup-token): choose Anthropic, or use an API key.';
  }
  if (values.provider === 'custom' && !values.baseUrl.trim()) {
    problems.baseUrl ??= `A custom (OpenAI-compatible) connection needs the base URL of its server, e.g. ${exampleBaseUrl}.`;
  }
  if (values.agentScope === 'chosen' && values.agentIds.length === 0 && !forNewAgent) {
    problems.agentIds ??= 'Choose at least one agent, or let all agents use it.';
  }
  return problems;
}

export function firstProblem(problems: ConnectionFormProblems): ConnectionFormField | undefined {
  return connectionFieldOrder.find((field) => problems[field]);
}

/** The connection providers a CLI can use, as the catalog lists them (known ones only, in the contract's order). */
export function connectionProvidersOf(provider: { connectionProviders: readonly string[] }): AiConnection['provider'][] {
  return connectionProviders.filter((candidate) => provider.connectionProviders.includes(candidate));
}
