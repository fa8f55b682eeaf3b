import type { Agent } from '../../shared/entities';
import { profileRevision, type LaunchProfile, type ProviderCatalog, type ProviderEntry } from '../providers/catalog';
import type { StoredAgent } from '../ledger/agents-repository';

/**
 * The launch profile an agent actually runs with: the catalog's profile, with the agent's own
 * executable path and (for the command provider) its argv template. Its revision is what admission
 * saves and what a resumed run compares against.
 */
export function effectiveProfile(provider: ProviderEntry, profile: LaunchProfile, agent: Pick<StoredAgent, 'executablePath' | 'commandArgs'>): LaunchProfile {
  const overridden: LaunchProfile = { ...profile };
  if (agent.executablePath) overridden.executable = agent.executablePath;
  if (provider.definition.ownProgram && agent.commandArgs) overridden.argsTemplate = agent.commandArgs;
  return overridden;
}

export function resolveAgentLaunch(catalog: ProviderCatalog, agent: StoredAgent) {
  const provider = catalog.getProvider(agent.providerId);
  const profile = effectiveProfile(provider, catalog.getProfile(agent.providerId, agent.profileId), agent);
  return { provider, profile, revision: profileRevision(provider, profile) };
}

export function withProfileRevision(catalog: ProviderCatalog, agent: StoredAgent): Agent {
  let revision = 'unknown';
  try {
    revision = resolveAgentLaunch(catalog, agent).revision;
  } catch {
    // A provider or profile that left the catalog: the agent page says so when it is opened.
  }
  return { ...agent, profileRevision: revision };
}
