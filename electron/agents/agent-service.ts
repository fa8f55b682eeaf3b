import type { Agent } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { AgentWrite, StoredAgent } from '../ledger/agents-repository';
import { defaultModel, type ProviderCatalog } from '../providers/catalog';
import type { EventHub } from '../events/event-hub';
import { withProfileRevision } from './agent-profile';

export interface AgentFields {
  name?: string | undefined;
  providerId?: string | undefined;
  model?: string | undefined;
  profileId?: string | undefined;
  capacity?: number | undefined;
  homeMode?: Agent['homeMode'] | undefined;
  environmentId?: string | undefined;
  executablePath?: string | null | undefined;
  commandArgs?: string[] | null | undefined;
}

export type NewAgentFields = AgentFields & { name: string; providerId: string; model: string; profileId: string };

/** The id an unsaved agent has while New agent previews its admission: no saved agent has it. */
export const draftAgentId = 'agt_draft';

/** Agents: a named execution target (provider, model, profile, capacity) in an environment. */
export class AgentService {
  constructor(
    private readonly ledger: Ledger,
    private readonly catalog: ProviderCatalog,
    private readonly events: EventHub,
    private readonly now: () => number = Date.now,
  ) {}

  list(): Agent[] {
    return this.ledger.agents.list().map((agent) => withProfileRevision(this.catalog, agent));
  }

  get(agentId: string): Agent {
    const agent = this.ledger.agents.get(agentId);
    if (!agent || agent.deleted) {
      throw new OperatorError({ code: 'not_found', message: 'That agent is no longer in the console.', actionUrl: actionRoute({ kind: 'agents' }) });
    }
    return withProfileRevision(this.catalog, agent);
  }

  create(fields: NewAgentFields): Agent {
    const write = this.newAgentWrite(fields);
    this.requireUniqueName(write.name);
    const id = newId('agt');
    this.ledger.agents.insert(id, write, this.now());
    this.events.emit('agentsChanged', {});
    return this.get(id);
  }

  /**
   * New agent's preview: the fields as the agent would be saved, checked the same way, saved nowhere.
   * Admission can then answer for it exactly as it will for the first run.
   */
  draft(fields: NewAgentFields, connectionId: string | null): StoredAgent & { deleted: false } {
    const write = this.newAgentWrite(fields);
    return { id: draftAgentId, ...write, connectionId, createdAt: new Date(this.now()).toISOString(), deleted: false };
  }

  private newAgentWrite(fields: NewAgentFields): AgentWrite {
    return this.validate({
      name: fields.name,
      providerId: fields.providerId,
      model: fields.model,
      profileId: fields.profileId,
      capacity: fields.capacity ?? 1,
      // New agents run locally with the operator's own login until they choose otherwise.
      homeMode: fields.homeMode ?? 'preconfigured',
      environmentId: fields.environmentId ?? 'env_local',
      executablePath: fields.executablePath ?? null,
      commandArgs: fields.commandArgs ?? null,
    });
  }

  update(agentId: string, changes: AgentFields): Agent {
    const current = this.get(agentId);
    const merged: AgentWrite = {
      name: changes.name ?? current.name,
      providerId: changes.providerId ?? current.providerId,
      model: changes.model ?? current.model,
      profileId: changes.profileId ?? current.profileId,
      capacity: changes.capacity ?? current.capacity,
      homeMode: changes.homeMode ?? current.homeMode,
      environmentId: changes.environmentId ?? current.environmentId,
      executablePath: changes.executablePath === undefined ? current.executablePath : changes.executablePath,
      commandArgs: changes.commandArgs === undefined ? current.commandArgs : changes.commandArgs,
    };
    const write = this.validate(merged);
    if (write.name.toLowerCase() !== current.name.toLowerCase()) this.requireUniqueName(write.name);
    this.ledger.agents.update(agentId, write, this.now());
    this.events.emit('agentsChanged', {});
    return this.get(agentId);
  }

  delete(agentId: string, hasActiveRuns: (agentId: string) => boolean): { agentId: string } {
    this.get(agentId);
    if (hasActiveRuns(agentId)) {
      throw new OperatorError({
        code: 'conflict',
        message: 'This agent has runs queued or running. Stop them first, then delete the agent.',
        actionUrl: actionRoute({ kind: 'runs' }),
      });
    }
    this.ledger.agents.markDeleted(agentId, this.now());
    this.events.emit('agentsChanged', {});
    return { agentId };
  }

  private requireUniqueName(name: string): void {
    if (this.ledger.agents.findByName(name)) {
      throw new OperatorError({ code: 'conflict', message: `There is already an agent named “${name}”. Choose another name.` });
    }
  }

  /** Checks the fields against the catalog and the environments, so a saved agent can always launch. */
  private validate(agent: AgentWrite): AgentWrite {
    const provider = this.catalog.getProvider(agent.providerId);
    const profile = this.catalog.getProfile(agent.providerId, agent.profileId);
    // Models are open: new ones ship weekly and local gateways name their own, so the catalog's list
    // is what the picker suggests, not a closed set. A CLI reads its model from one argument, though.
    const modelProblem = provider.definition.ownProgram ? null : cliModelProblem(agent.model);
    if (modelProblem) {
      throw new OperatorError({ code: 'invalid_request', message: `${provider.displayName} cannot take the model “${agent.model}”: ${modelProblem}` });
    }
    const environment = this.ledger.environments.get(agent.environmentId);
    if (!environment || environment.deleted) {
      throw new OperatorError({ code: 'invalid_request', message: 'That environment does not exist. Choose one of Settings → Environments.' });
    }
    if (provider.definition.ownProgram && !agent.executablePath && !profile.executable) {
      throw new OperatorError({
        code: 'invalid_request',
        message: 'A command agent needs the program to run: set its executable path.',
      });
    }
    if (!provider.definition.ownProgram && agent.commandArgs) {
      throw new OperatorError({ code: 'invalid_request', message: `Arguments are set by ${provider.displayName}'s launch profile, not per agent.` });
    }
    return { ...agent, model: agent.model || defaultModel(provider) || 'default' };
  }
}

/**
 * Why a model id cannot reach a CLI as its model argument, or null. Any id a provider or gateway
 * might name is fine (`gpt-5.5`, `anthropic/claude-sonnet-4-6`, `llama3.1:8b`); one that would be
 * read as a flag, or that has spaces or control characters in it, is not.
 */
export function cliModelProblem(model: string): string | null {
  if (model.startsWith('-')) return 'a model id cannot start with a dash. Enter the model’s id as its provider names it.';
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(model)) return 'a model id has no spaces or control characters. Enter the model’s id as its provider names it.';
  return null;
}
