import { canonicalAllowedHosts } from '../../shared/allowed-hosts';
import type { Environment } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { newId } from '../ledger/ids';
import type { EnvironmentWrite, StoredEnvironment } from '../ledger/environments-repository';
import type { Ledger } from '../ledger/ledger';
import type { EventHub } from '../events/event-hub';

export interface EnvironmentFields {
  name?: string | undefined;
  kind?: Environment['kind'] | undefined;
  networkMode?: Environment['networkMode'] | undefined;
  allowedHosts?: string[] | undefined;
  requiresConnection?: boolean | undefined;
  /** An SSH host's id, or null: this machine. */
  hostId?: string | null | undefined;
}

/** What an edit changed, for those who act on it (notices a newly allowed host resolves, agents to look at again). */
export interface EnvironmentChange {
  before: Environment | null;
  after: Environment | null;
  /** The live agents in it. */
  agentIds: string[];
}

/**
 * Environments (Settings → Environments): the built-in Local and Sandboxed, which stay (editable),
 * and the operator's own. What is saved is always one a run can be held to:
 *
 * - a sandboxed environment requires a managed AI connection (shared/connection-rule.ts says why),
 *   so that is stored on, whatever was asked;
 * - a local environment has no sandbox, so the console cannot limit its network: its mode is `open`
 *   and it lists no allowed hosts (asking for either is refused, with the reason, rather than kept
 *   and silently not enforced);
 * - allowed hosts are kept in their canonical form, each once.
 *
 * A change reaches new runs; a run admitted before keeps what its admission recorded.
 */
export class EnvironmentService {
  private readonly listeners: Array<(change: EnvironmentChange) => void> = [];

  constructor(
    private readonly ledger: Ledger,
    private readonly events: EventHub,
    private readonly now: () => number = Date.now,
  ) {}

  /** Told after every create, update and delete. */
  onChange(listener: (change: EnvironmentChange) => void): void {
    this.listeners.push(listener);
  }

  list(): Environment[] {
    return this.ledger.environments.list().map(publicEnvironment);
  }

  get(environmentId: string): Environment {
    return publicEnvironment(this.requireLive(environmentId));
  }

  create(fields: EnvironmentFields & { name: string }): Environment {
    const kind = fields.kind ?? 'sandboxed';
    const write = this.validate(
      {
        name: fields.name,
        kind,
        networkMode: fields.networkMode ?? (kind === 'local' ? 'open' : 'provider-only'),
        allowedHosts: fields.allowedHosts ?? [],
        requiresConnection: fields.requiresConnection ?? kind === 'sandboxed',
        hostId: fields.hostId ?? null,
      },
      fields,
    );
    this.requireUniqueName(write.name);
    const id = newId('env');
    this.ledger.environments.insert(id, write, this.now());
    const after = this.get(id);
    this.changed({ before: null, after, agentIds: [] });
    return after;
  }

  update(environmentId: string, changes: EnvironmentFields): Environment {
    const before = this.get(environmentId);
    const kind = changes.kind ?? before.kind;
    // Moving to no sandbox takes the network rules with it; asking to keep them is refused below.
    const leavesSandbox = kind === 'local' && before.kind !== 'local';
    const write = this.validate(
      {
        name: changes.name ?? before.name,
        kind,
        networkMode: changes.networkMode ?? (leavesSandbox ? 'open' : before.networkMode),
        allowedHosts: changes.allowedHosts ?? (leavesSandbox ? [] : before.allowedHosts),
        requiresConnection: changes.requiresConnection ?? before.requiresConnection,
        hostId: changes.hostId === undefined ? before.hostId : changes.hostId,
      },
      changes,
    );
    if (write.name.toLowerCase() !== before.name.toLowerCase()) this.requireUniqueName(write.name);
    this.ledger.environments.update(environmentId, write, this.now());
    const after = this.get(environmentId);
    this.changed({ before, after, agentIds: this.agentsIn(environmentId).map((agent) => agent.id) });
    return after;
  }

  delete(environmentId: string): { environmentId: string } {
    const before = this.get(environmentId);
    if (before.builtIn) {
      throw new OperatorError({
        code: 'conflict',
        message: `${before.name} is built in: every console has it, so it can be edited but not deleted.`,
      });
    }
    const agents = this.agentsIn(environmentId);
    if (agents.length > 0) {
      const names = agents.map((agent) => agent.name);
      const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
      throw new OperatorError({
        code: 'conflict',
        reason: 'environment_in_use',
        message: `${before.name} is used by ${agents.length === 1 ? 'the agent' : 'the agents'} ${list}. Move ${
          agents.length === 1 ? 'it' : 'them'
        } to another environment first, then delete it.`,
        actionUrl: actionRoute({ kind: 'agent', agentId: agents[0]!.id }),
      });
    }
    this.ledger.environments.markDeleted(environmentId, this.now());
    this.changed({ before, after: null, agentIds: [] });
    return { environmentId };
  }

  private agentsIn(environmentId: string) {
    return this.ledger.agents.inEnvironment(environmentId);
  }

  private requireLive(environmentId: string): StoredEnvironment {
    const environment = this.ledger.environments.get(environmentId);
    if (!environment || environment.deleted) {
      throw new OperatorError({
        code: 'not_found',
        message: 'That environment is no longer in the console.',
        actionUrl: actionRoute({ kind: 'settings-environments' }),
      });
    }
    return environment;
  }

  private requireUniqueName(name: string): void {
    if (this.ledger.environments.findByName(name)) {
      throw new OperatorError({ code: 'conflict', message: `There is already an environment named “${name}”. Choose another name.` });
    }
  }

  /** `asked` is what the request named, so a refusal can say what of it cannot be. */
  private validate(write: EnvironmentWrite, asked: EnvironmentFields): EnvironmentWrite {
    const name = write.name.trim();
    if (name.length === 0) throw new OperatorError({ code: 'invalid_request', message: 'An environment needs a name.' });
    if (write.kind === 'local') {
      const noPolicy = 'A local environment has no OS sandbox, so the console cannot limit its network: its runs reach what you can.';
      if (write.networkMode !== 'open') {
        throw new OperatorError({ code: 'invalid_request', message: `${noPolicy} Choose the OS sandbox to use ${write.networkMode === 'none' ? 'None' : 'Provider only'}.` });
      }
      if (asked.allowedHosts && asked.allowedHosts.length > 0) {
        throw new OperatorError({ code: 'invalid_request', message: `${noPolicy} Choose the OS sandbox to limit it to allowed hosts.` });
      }
    }
    if (write.hostId !== null && !this.ledger.hosts.get(write.hostId)) {
      throw new OperatorError({
        code: 'invalid_request',
        reason: 'host_missing',
        message: 'That host is no longer in Settings → Hosts. Choose another host, or this machine.',
        actionUrl: actionRoute({ kind: 'settings-hosts' }),
      });
    }
    return {
      name,
      kind: write.kind,
      networkMode: write.networkMode,
      allowedHosts: write.kind === 'local' ? [] : canonicalAllowedHosts(write.allowedHosts),
      // An unattended (sandboxed) run must never see the operator's own login: always on there.
      requiresConnection: write.kind === 'sandboxed' ? true : write.requiresConnection,
      hostId: write.hostId,
    };
  }

  private changed(change: EnvironmentChange): void {
    this.events.emit('environmentsChanged', {});
    for (const listener of this.listeners) listener(change);
  }
}

function publicEnvironment(environment: StoredEnvironment): Environment {
  const { deleted: _deleted, ...rest } = environment;
  return rest;
}
