import type { AiConnection, ConnectionTestResult, VaultInfo } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { resolveAgentLaunch } from '../agents/agent-profile';
import { draftAgentId } from '../agents/agent-service';
import type { StoredAgent } from '../ledger/agents-repository';
import type { StoredConnection } from '../ledger/connections-repository';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../platform/log';
import type { ProviderCatalog } from '../providers/catalog';
import { connectionProblem, type ConnectionState } from './connection-problem';
import type { EventHub } from '../events/event-hub';
import { probeConnection, secretHint } from './probe';
import type { SecretKeeper } from './secret-vault';

export interface ConnectionFields {
  name: string;
  provider: AiConnection['provider'];
  method: AiConnection['method'];
  baseUrl?: string | null | undefined;
  ownership: AiConnection['ownership'];
  agentScope: AiConnection['agentScope'];
  agentIds?: string[] | undefined;
}

export interface ConnectionChanges {
  name?: string | undefined;
  provider?: AiConnection['provider'] | undefined;
  method?: AiConnection['method'] | undefined;
  /** Absent keeps the stored secret. */
  secret?: string | undefined;
  baseUrl?: string | null | undefined;
  ownership?: AiConnection['ownership'] | undefined;
  agentScope?: AiConnection['agentScope'] | undefined;
  agentIds?: string[] | undefined;
  revoked?: boolean | undefined;
}

export interface ConnectionServiceOptions {
  ledger: Ledger;
  catalog: ProviderCatalog;
  events: EventHub;
  keeper: SecretKeeper;
  log: Logger;
  now?: () => number;
  probeTimeoutMs?: number;
}

/** The connection as a new agent bound to it sees it: shared with it (binding at creation shares it). */
export function sharedWithEveryone<C extends StoredConnection>(connection: C): C {
  return { ...connection, agentScope: 'all' };
}

/** Which agents a change may concern, so the core can review their notices and verification. */
export type ConnectionChangeListener = (change: { connectionId: string; agentIds: string[] }) => void;

/**
 * AI connections (Settings → AI connections): managed credentials that runs in a sandbox or an
 * isolated home use instead of the operator's own login. The secret is sealed by the vault before it
 * is written and opened only for a Test or at a run's launch; it never leaves this service except
 * into a run's delivered files and environment. What the renderer gets is metadata and a hint.
 */
export class ConnectionService {
  private readonly ledger: Ledger;
  private readonly now: () => number;
  /** Connections with an update being written: a run admitted meanwhile is deferred, not failed. */
  private readonly updating = new Map<string, number>();
  private readonly idleWaiters = new Map<string, Array<() => void>>();
  private readonly listeners = new Set<ConnectionChangeListener>();
  /** How many secrets were opened (for a Test or a launch): tests assert a refused run opened none. */
  private opened = 0;

  constructor(private readonly options: ConnectionServiceOptions) {
    this.ledger = options.ledger;
    this.now = options.now ?? Date.now;
  }

  onChange(listener: ConnectionChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): AiConnection[] {
    return this.ledger.connections.list().map((connection) => this.withUpdating(connection));
  }

  get(connectionId: string): AiConnection {
    const connection = this.ledger.connections.get(connectionId);
    if (!connection) {
      throw new OperatorError({ code: 'not_found', message: 'That AI connection is no longer in the console.', actionUrl: actionRoute({ kind: 'settings-ai-connections' }) });
    }
    return this.withUpdating(connection);
  }

  /** What admission needs to know of a connection; undefined when there is none by that id. */
  state(connectionId: string | null): ConnectionState | undefined {
    if (!connectionId) return undefined;
    const connection = this.ledger.connections.get(connectionId);
    return connection && this.withUpdating(connection);
  }

  /** What admission needs to know of the connection a new agent would be bound to: shared with it, as binding at creation does. */
  stateForNewAgent(connectionId: string | null): ConnectionState | undefined {
    const connection = this.state(connectionId);
    return connection && sharedWithEveryone(connection);
  }

  vaultInfo(): VaultInfo {
    return this.options.keeper.info();
  }

  get secretsOpened(): number {
    return this.opened;
  }

  create(fields: ConnectionFields & { secret: string }): AiConnection {
    const write = this.validate(
      {
        name: fields.name,
        provider: fields.provider,
        method: fields.method,
        baseUrl: fields.baseUrl ?? null,
        ownership: fields.ownership,
        agentScope: fields.agentScope,
        status: 'connected' as const,
      },
      fields.agentIds ?? [],
    );
    this.requireUniqueName(write.name);
    const id = newId('con');
    const sealed = this.options.keeper.seal(fields.secret);
    this.ledger.connections.insert(id, write, { sealed, hint: secretHint(write.provider, fields.secret) }, fields.agentIds ?? [], this.now());
    this.options.log.info('AI connection created', { connectionId: id, provider: write.provider, method: write.method, storage: this.options.keeper.vault.kind });
    this.changed(id, []);
    return this.get(id);
  }

  /**
   * Writes the changes under the connection's update lock: a run admitted while it is held waits and
   * retries instead of starting with a half-written connection. A new secret makes the connection
   * `connected` again (its old Test result no longer says anything about it).
   */
  update(connectionId: string, changes: ConnectionChanges): AiConnection {
    const current = this.get(connectionId);
    const release = this.holdForUpdate(connectionId);
    try {
      const baseUrl = changes.baseUrl === undefined ? current.baseUrl : changes.baseUrl;
      const credentialChanged =
        changes.secret !== undefined ||
        baseUrl !== current.baseUrl ||
        (changes.provider !== undefined && changes.provider !== current.provider) ||
        (changes.method !== undefined && changes.method !== current.method);
      let status: AiConnection['status'] = current.status;
      if (changes.revoked === true) status = 'revoked';
      else if (changes.revoked === false && current.status === 'revoked') status = 'connected';
      else if (credentialChanged && status !== 'revoked') status = 'connected';
      const agentIds = changes.agentIds ?? current.agentIds;
      const write = this.validate(
        {
          name: changes.name ?? current.name,
          provider: changes.provider ?? current.provider,
          method: changes.method ?? current.method,
          baseUrl,
          ownership: changes.ownership ?? current.ownership,
          agentScope: changes.agentScope ?? current.agentScope,
          status,
        },
        agentIds,
      );
      if (write.name.toLowerCase() !== current.name.toLowerCase()) this.requireUniqueName(write.name);
      const secret = changes.secret === undefined ? null : { sealed: this.options.keeper.seal(changes.secret), hint: secretHint(write.provider, changes.secret) };
      this.ledger.connections.update(connectionId, write, secret, agentIds, this.now(), { clearLastTest: credentialChanged });
      this.options.log.info('AI connection updated', { connectionId, secretReplaced: secret !== null, status });
    } finally {
      release();
    }
    this.changed(connectionId, [...new Set([...current.agentIds, ...(changes.agentIds ?? [])])]);
    return this.get(connectionId);
  }

  /** Deletes it. Agents bound to it are unbound; their next runs that need one are refused. */
  delete(connectionId: string): { connectionId: string } {
    this.get(connectionId);
    const bound = this.ledger.agents.boundTo(connectionId).map((agent) => agent.id);
    this.ledger.connections.delete(connectionId);
    this.options.log.info('AI connection deleted', { connectionId, unboundAgents: bound.length });
    if (bound.length) this.options.events.emit('agentsChanged', {});
    this.changed(connectionId, bound);
    return { connectionId };
  }

  /** The connection's Test: its key's shape and, with a base URL, the provider's models endpoint. */
  async test(connectionId: string): Promise<ConnectionTestResult> {
    const connection = this.get(connectionId);
    const secret = this.openSecret(connectionId);
    const probed = await probeConnection({
      provider: connection.provider,
      method: connection.method,
      baseUrl: connection.baseUrl,
      secret,
      now: this.now,
      ...(this.options.probeTimeoutMs !== undefined ? { timeoutMs: this.options.probeTimeoutMs } : {}),
    });
    const { status: probedStatus, ...result } = probed;
    // A Test never brings back a connection the operator revoked.
    const status = connection.status === 'revoked' ? 'revoked' : probedStatus;
    if (this.ledger.connections.get(connectionId)) {
      this.ledger.connections.saveTest(connectionId, result, status, this.now());
      this.options.log.info('AI connection tested', { connectionId, ok: result.ok, code: result.code });
      this.changed(connectionId, connection.agentIds);
    }
    return result;
  }

  /**
   * The picker's list for an agent: the connections it may use (allowed for it, of a provider its CLI
   * speaks, not revoked or expired), and the one it is bound to whatever its state, so the picker can
   * show the current choice.
   */
  forAgent(agentId: string): AiConnection[] {
    const agent = this.requireAgent(agentId);
    const provider = this.options.catalog.findProvider(agent.providerId);
    return this.list().filter((connection) => {
      if (connection.id === agent.connectionId) return true;
      if (!provider) return false;
      return connectionProblem(connection, { id: agent.id, connectionId: connection.id }, provider) === null;
    });
  }

  /**
   * New agent, bound from the start: refuses a connection the agent's CLI could not use (before the
   * agent is made, so a refusal leaves nothing behind). Whether it is shared with the agent is not
   * asked: binding it at creation shares it (`bindNewAgent`).
   */
  requireUsableByNewAgent(connectionId: string, agent: Pick<StoredAgent, 'name' | 'providerId' | 'profileId'>): void {
    const connection = this.ledger.connections.get(connectionId);
    if (!connection) {
      throw new OperatorError({ code: 'not_found', message: 'That AI connection is no longer in the console. Choose another one.', actionUrl: actionRoute({ kind: 'settings-ai-connections' }) });
    }
    const provider = this.options.catalog.getProvider(agent.providerId);
    const problem = connectionProblem(sharedWithEveryone(connection), { id: draftAgentId, connectionId }, provider);
    if (problem) {
      throw new OperatorError({
        code: 'invalid_request',
        reason: 'ai_connection_not_usable',
        message: `${agent.name} cannot use “${connection.name}”: ${problem.replace(/^Its AI connection “[^”]*” /, 'it ')} Choose another connection.`,
        actionUrl: actionRoute({ kind: 'settings-ai-connections' }),
      });
    }
  }

  /** Binds a just-made agent to its connection, sharing a chosen-agents connection with it first. */
  bindNewAgent(agentId: string, connectionId: string): void {
    const connection = this.get(connectionId);
    if (connection.agentScope === 'chosen' && !connection.agentIds.includes(agentId)) {
      this.update(connectionId, { agentIds: [...connection.agentIds, agentId] });
    }
    this.setAgentConnection(agentId, connectionId);
  }

  /** The AI connection picker: binds the agent to a connection it may use, or unbinds it. */
  setAgentConnection(agentId: string, connectionId: string | null): void {
    const agent = this.requireAgent(agentId);
    if (connectionId !== null) {
      const connection = this.ledger.connections.get(connectionId);
      if (!connection) {
        throw new OperatorError({ code: 'not_found', message: 'That AI connection is no longer in the console.', actionUrl: actionRoute({ kind: 'settings-ai-connections' }) });
      }
      const { provider } = resolveAgentLaunch(this.options.catalog, agent);
      const problem = connectionProblem(connection, { id: agent.id, connectionId }, provider);
      if (problem) {
        throw new OperatorError({
          code: 'invalid_request',
          reason: 'ai_connection_not_usable',
          message: `${agent.name} cannot use “${connection.name}”: ${problem.replace(/^Its AI connection “[^”]*” /, 'it ')} Choose another connection, or change this one in Settings → AI connections.`,
          actionUrl: actionRoute({ kind: 'settings-ai-connections' }),
        });
      }
    }
    this.ledger.agents.setConnection(agentId, connectionId, this.now());
    this.options.log.info('agent AI connection set', { agentId, connectionId });
    this.options.events.emit('agentsChanged', {});
    for (const listener of this.listeners) listener({ connectionId: connectionId ?? '', agentIds: [agentId] });
  }

  /**
   * Opens a connection's secret: for a Test, or at a run's launch (never at admission, never for a run
   * that was refused). The caller keeps it in memory only for as long as it needs it.
   */
  openSecret(connectionId: string): string {
    const sealed = this.ledger.connections.sealedSecret(connectionId);
    if (!sealed) {
      throw new OperatorError({
        code: 'configuration_incomplete',
        reason: 'ai_connection_required',
        message: 'The AI connection has no key saved. Enter its key in Settings → AI connections.',
        actionUrl: actionRoute({ kind: 'settings-ai-connections' }),
      });
    }
    this.opened += 1;
    return this.options.keeper.open(sealed);
  }

  /**
   * A run's own secret (a host run's tunnel token), sealed with the vault that seals connection keys,
   * for the ledger: a later console opens it again (`openRunSecret`); the ledger never holds it in clear.
   */
  sealRunSecret(plain: string): string {
    return this.options.keeper.seal(plain);
  }

  /** A run's secret sealed by `sealRunSecret`; throws as a connection's key does when its vault cannot open it now. */
  openRunSecret(sealed: string): string {
    return this.options.keeper.open(sealed);
  }

  /**
   * Secrets of these connections can be opened now (the desktop app unlocked them, desktop-secrets.ts):
   * their agents are looked at again, so that a notice that said they were locked resolves.
   */
  secretsUnlocked(connectionIds: readonly string[]): void {
    for (const connectionId of connectionIds) this.changed(connectionId, []);
  }

  /** Takes the connection's update lock; call the returned function to release it. */
  holdForUpdate(connectionId: string): () => void {
    this.updating.set(connectionId, (this.updating.get(connectionId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.updating.get(connectionId) ?? 1) - 1;
      if (left > 0) {
        this.updating.set(connectionId, left);
        return;
      }
      this.updating.delete(connectionId);
      for (const resolve of this.idleWaiters.get(connectionId) ?? []) resolve();
      this.idleWaiters.delete(connectionId);
    };
  }

  isUpdating(connectionId: string): boolean {
    return this.updating.has(connectionId);
  }

  /** Resolves once no update of the connection is being written. */
  whenIdle(connectionId: string): Promise<void> {
    if (!this.updating.has(connectionId)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.set(connectionId, [...(this.idleWaiters.get(connectionId) ?? []), resolve]));
  }

  private changed(connectionId: string, agentIds: string[]): void {
    this.options.events.emit('connectionsChanged', {});
    const bound = this.ledger.agents.boundTo(connectionId).map((agent) => agent.id);
    const concerned = [...new Set([...agentIds, ...bound])];
    for (const listener of this.listeners) listener({ connectionId, agentIds: concerned });
  }

  private withUpdating(connection: StoredConnection): ConnectionState {
    const state: ConnectionState = { ...connection, updating: this.updating.has(connection.id) };
    if (connection.storage && !this.options.keeper.canOpen(connection.storage)) state.locked = true;
    return state;
  }

  private requireAgent(agentId: string) {
    const agent = this.ledger.agents.get(agentId);
    if (!agent || agent.deleted) {
      throw new OperatorError({ code: 'not_found', message: 'That agent is no longer in the console.', actionUrl: actionRoute({ kind: 'agents' }) });
    }
    return agent;
  }

  private requireUniqueName(name: string): void {
    if (this.ledger.connections.findByName(name)) {
      throw new OperatorError({ code: 'conflict', message: `There is already an AI connection named “${name}”. Choose another name.` });
    }
  }

  private validate<T extends { provider: AiConnection['provider']; method: AiConnection['method']; baseUrl: string | null; agentScope: AiConnection['agentScope'] }>(
    write: T,
    agentIds: readonly string[],
  ): T {
    if (write.method === 'subscription_token' && write.provider !== 'anthropic') {
      throw new OperatorError({
        code: 'invalid_request',
        message: 'A subscription token is Claude Code’s long-lived sign-in token (made with `claude setup-token`): choose Anthropic as the provider, or use an API key.',
      });
    }
    if (write.provider === 'custom' && !write.baseUrl) {
      throw new OperatorError({ code: 'invalid_request', message: 'A custom (OpenAI-compatible) connection needs the base URL of its server, e.g. http://127.0.0.1:11434/v1.' });
    }
    if (write.agentScope === 'chosen') {
      for (const agentId of agentIds) {
        const agent = this.ledger.agents.get(agentId);
        if (!agent || agent.deleted) throw new OperatorError({ code: 'invalid_request', message: 'One of the chosen agents is no longer in the console. Choose again.' });
      }
    }
    return write;
  }
}
