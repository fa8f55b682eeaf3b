import type { Agent, AgentCliVersion, AgentTestResult, CatalogProvider } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { AgentWrite, StoredAgent } from '../ledger/agents-repository';
import type { NoticeService } from '../notices/notice-service';
import { defaultModel, profileRevision, type ProviderCatalog } from '../providers/catalog';
import type { EventHub } from '../events/event-hub';
import { withProfileRevision } from './agent-profile';
import type { AgentReview } from './agent-review';
import type { CliVersionService } from './cli-version';

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

/**
 * What agents ask of the AI connections (ConnectionService). Named here rather than imported:
 * connections/ imports agents/, not the other way round.
 */
export interface AgentConnections {
  requireUsableByNewAgent(connectionId: string, agent: Pick<StoredAgent, 'name' | 'providerId' | 'profileId'>): void;
  bindNewAgent(agentId: string, connectionId: string): void;
  setAgentConnection(agentId: string, connectionId: string | null): void;
}

/** The agents' verification and Test (runs/agent-verification.ts): admission's answer, recorded. */
export interface AgentChecks {
  decorate(agent: Agent): Agent;
  verify(agentId: string): unknown;
  test(agentId: string): AgentTestResult;
  checkDraft(draft: StoredAgent & { deleted: false }): AgentTestResult;
}

export interface AgentServiceOptions {
  ledger: Ledger;
  catalog: ProviderCatalog;
  events: EventHub;
  connections: AgentConnections;
  verifier: AgentChecks;
  /** Verifies agents again and looks at their admission notices (agent-review.ts). */
  review: AgentReview;
  /** Whether the agent has runs queued or running (RunService): those keep it from being deleted. */
  runs: { hasOpenRuns(agentId: string): boolean };
  notices: Pick<NoticeService, 'dismissForAgent'>;
  cliVersions: CliVersionService;
  now?: (() => number) | undefined;
}

/**
 * Agents: a named execution target (provider, model, profile, capacity) in an environment, as the
 * renderer sees it, with its verification; made, changed, bound to an AI connection, tested, deleted.
 */
export class AgentService {
  private readonly ledger: Ledger;
  private readonly catalog: ProviderCatalog;
  private readonly now: () => number;

  constructor(private readonly options: AgentServiceOptions) {
    this.ledger = options.ledger;
    this.catalog = options.catalog;
    this.now = options.now ?? Date.now;
  }

  /** The CLIs agents are built on, as New agent offers them: models, launch profiles and their revisions. */
  catalogView(): { providers: CatalogProvider[] } {
    return {
      providers: this.catalog.listProviders().map((provider) => ({
        id: provider.id,
        displayName: provider.displayName,
        executable: provider.executable,
        testedVersion: provider.definition.testedVersion,
        homeVariable: provider.definition.home?.variable ?? null,
        supportsResume: provider.definition.launch.resumable,
        connectionProviders: [...provider.connectionProviders],
        models: provider.models.map((model) => ({ id: model.id, label: model.label })),
        profiles: provider.profiles.map((profile) => ({
          id: profile.id,
          label: profile.label,
          revision: profileRevision(provider, profile),
          maxAttempts: profile.maxAttempts,
          argsTemplate: profile.argsTemplate ?? null,
        })),
      })),
    };
  }

  list(): Agent[] {
    return this.ledger.agents.list().map((agent) => this.options.verifier.decorate(withProfileRevision(this.catalog, agent)));
  }

  /** The agent with its verification (unverified when the recorded one is for another configuration). */
  get(agentId: string): Agent {
    return this.options.verifier.decorate(this.saved(agentId));
  }

  /**
   * A new agent. With a connection it is bound to it from the start, and a connection its CLI could
   * not use is refused before the agent is made, so a refusal leaves nothing behind.
   */
  create({ connectionId, ...fields }: NewAgentFields & { connectionId?: string | null | undefined }): Agent {
    if (connectionId) this.options.connections.requireUsableByNewAgent(connectionId, fields);
    const write = this.newAgentWrite(fields);
    this.requireUniqueName(write.name);
    const id = newId('agt');
    this.ledger.agents.insert(id, write, this.now());
    this.options.events.emit('agentsChanged', {});
    if (connectionId) this.options.connections.bindNewAgent(id, connectionId);
    this.options.review([id]);
    return this.get(id);
  }

  /**
   * New agent's preview: the fields as the agent would be saved, checked the same way, saved nowhere;
   * then admission answers for it exactly as it will for the first run. A field the save would refuse
   * is answered in the save's own words.
   */
  checkDraft({ connectionId, ...fields }: NewAgentFields & { connectionId?: string | null | undefined }): AgentTestResult {
    let draft;
    try {
      draft = this.draft(fields, connectionId ?? null);
    } catch (error) {
      if (!(error instanceof OperatorError)) throw error;
      return { ok: false, checkedAt: new Date().toISOString(), message: error.message, code: error.code };
    }
    return this.options.verifier.checkDraft(draft);
  }

  private draft(fields: NewAgentFields, connectionId: string | null): StoredAgent & { deleted: false } {
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
    const current = this.saved(agentId);
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
    this.options.events.emit('agentsChanged', {});
    this.options.review([agentId]);
    return this.get(agentId);
  }

  /** Deletes an agent with no runs queued or running; its open notices are dismissed (nothing can act on them now). */
  delete(agentId: string): { agentId: string } {
    this.saved(agentId);
    if (this.options.runs.hasOpenRuns(agentId)) {
      throw new OperatorError({
        code: 'conflict',
        message: 'This agent has runs queued or running. Stop them first, then delete the agent.',
        actionUrl: actionRoute({ kind: 'runs' }),
      });
    }
    this.ledger.agents.markDeleted(agentId, this.now());
    this.options.events.emit('agentsChanged', {});
    this.options.notices.dismissForAgent(agentId);
    return { agentId };
  }

  /** The agent's Test: always checks, and the agent list shows the verification it recorded. */
  test(agentId: string): AgentTestResult {
    const result = this.options.verifier.test(agentId);
    this.options.events.emit('agentsChanged', {});
    return result;
  }

  /** Verifies the agent unless a refusal for this very configuration is already recorded. */
  verify(agentId: string): Agent {
    this.options.verifier.verify(agentId);
    return this.get(agentId);
  }

  /** The agent's AI connection picker: binds it to a connection it may use, or unbinds it. */
  setConnection(agentId: string, connectionId: string | null): Agent {
    this.options.connections.setAgentConnection(agentId, connectionId);
    return this.get(agentId);
  }

  /** The version of the agent's CLI, as the agent would run it, against the version the console was tested with. */
  cliVersion(agentId: string): Promise<AgentCliVersion> {
    return this.options.cliVersions.forAgent(this.stored(agentId));
  }

  /** The agent as saved, without its verification. */
  private saved(agentId: string): Agent {
    return withProfileRevision(this.catalog, this.stored(agentId));
  }

  private stored(agentId: string): StoredAgent & { deleted: boolean } {
    const agent = this.ledger.agents.get(agentId);
    if (!agent || agent.deleted) {
      throw new OperatorError({ code: 'not_found', message: 'That agent is no longer in the console.', actionUrl: actionRoute({ kind: 'agents' }) });
    }
    return agent;
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
