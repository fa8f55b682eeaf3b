import type { StoredAgent } from '../ledger/agents-repository';
import { lockedSecretAdvice } from './secret-vault';
import type { StoredConnection } from '../ledger/connections-repository';
import type { ProviderEntry } from '../providers/catalog';

/**
 * A connection as admission sees it: its metadata, whether an update is being written right now, and
 * whether its key is locked (kept by the desktop app, which has not unlocked it for this console service).
 */
export type ConnectionState = StoredConnection & { updating: boolean; locked?: boolean };

/**
 * Why a connection cannot serve this agent ('none' when the agent has none bound), or null when it
 * can: it must exist, have a secret, not
 * be revoked or expired, allow this agent, and be of a provider the agent's CLI speaks. A connection
 * that needs attention (its last Test failed) is still usable: the failure may be passing, and the
 * run itself will say if the key is refused.
 */
export function connectionProblem(
  connection: (StoredConnection & { locked?: boolean }) | undefined,
  agent: Pick<StoredAgent, 'id' | 'connectionId'>,
  provider: Pick<ProviderEntry, 'displayName' | 'connectionProviders'>,
): string | null {
  if (!agent.connectionId) return 'none';
  if (!connection) return 'Its AI connection was deleted.';
  if (connection.status === 'revoked') return `Its AI connection “${connection.name}” was revoked.`;
  if (connection.status === 'expired') return `Its AI connection “${connection.name}” has expired.`;
  if (!connection.storage) return `Its AI connection “${connection.name}” has no key saved.`;
  if (connection.locked) return `The key of its AI connection “${connection.name}” cannot be read now. ${lockedSecretAdvice('enter the key again in Settings → AI connections')}`;
  if (connection.agentScope === 'chosen' && !connection.agentIds.includes(agent.id)) {
    return `Its AI connection “${connection.name}” is not shared with this agent.`;
  }
  if (!provider.connectionProviders.includes(connection.provider)) {
    return `Its AI connection “${connection.name}” is for ${connection.provider}, which ${provider.displayName} cannot use.`;
  }
  return null;
}
