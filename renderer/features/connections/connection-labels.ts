import type { Agent, AiConnection, ConnectionTestResult } from '../../../shared/entities';
import type { StatusTone } from '../../ui/run-status';

/** AI connections in words: Settings → AI connections and the agent's picker say them the same way. */

export const connectionProviderLabels: Record<AiConnection['provider'], string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google',
  openrouter: 'OpenRouter',
  custom: 'Custom (OpenAI-compatible)',
};

export const connectionMethodLabels: Record<AiConnection['method'], string> = {
  api_key: 'API key',
  subscription_token: 'Subscription token',
};

export const connectionOwnershipLabels: Record<AiConnection['ownership'], string> = {
  personal: 'Personal',
  shared: 'Shared',
};

const statusInfo: Record<AiConnection['status'], { label: string; tone: StatusTone; description: string }> = {
  connected: { label: 'Connected', tone: 'success', description: 'Usable: runs that need it get its key' },
  needs_attention: { label: 'Needs attention', tone: 'warning', description: 'Its last Test failed: check the key and the base URL' },
  expired: { label: 'Expired', tone: 'danger', description: 'The provider no longer accepts its key: enter a new one' },
  revoked: { label: 'Revoked', tone: 'muted', description: 'Retired by you: no run uses it until it is restored' },
};

export function connectionStatusLabel(status: AiConnection['status']): string {
  return statusInfo[status].label;
}

export function connectionStatusTone(status: AiConnection['status']): StatusTone {
  return statusInfo[status].tone;
}

export function connectionStatusDescription(status: AiConnection['status']): string {
  return statusInfo[status].description;
}

/** What the secret field is called: a subscription token is not an API key. */
export function secretFieldLabel(method: AiConnection['method']): string {
  return method === 'subscription_token' ? 'Token' : 'API key';
}

/** The same, inside a sentence. */
export function secretNoun(method: AiConnection['method']): string {
  return method === 'subscription_token' ? 'token' : 'API key';
}

/**
 * Which agents may use it, in words: "All agents", or the chosen agents' names. An agent that was
 * deleted since is not named; one the console cannot find yet is counted.
 */
export function connectionAgentsLabel(connection: Pick<AiConnection, 'agentScope' | 'agentIds'>, agents: readonly Pick<Agent, 'id' | 'name'>[]): string {
  if (connection.agentScope === 'all') return 'All agents';
  if (connection.agentIds.length === 0) return 'No agents chosen';
  const byId = new Map(agents.map((agent) => [agent.id, agent.name]));
  const names = connection.agentIds.flatMap((id) => {
    const name = byId.get(id);
    return name === undefined ? [] : [name];
  });
  const unknown = connection.agentIds.length - names.length;
  if (unknown > 0) names.push(unknown === 1 ? '1 other agent' : `${unknown} other agents`);
  return names.join(', ');
}

/** A Test's outcome in a word, for the list and the picker. */
export function connectionTestOutcome(result: Pick<ConnectionTestResult, 'ok'>): { label: string; tone: StatusTone } {
  return result.ok ? { label: 'OK', tone: 'success' } : { label: 'Failed', tone: 'danger' };
}

/** One line for a connection in a picker: its name, provider and key hint, and its state when not usable. */
export function connectionOptionLabel(connection: Pick<AiConnection, 'name' | 'provider' | 'secretHint' | 'status'>): string {
  const hint = connection.secretHint ?? connectionProviderLabels[connection.provider];
  const status = connection.status === 'connected' ? '' : ` — ${connectionStatusLabel(connection.status)}`;
  return `${connection.name} · ${hint}${status}`;
}
