import type { Agent, AgentTestResult, AgentVerification } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import type { StoredAgent } from '../ledger/agents-repository';
import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../platform/log';
import type { ConnectionState } from '../connections/connection-problem';
import type { AdmissionResult } from './admission';

/** What verification asks of admission (RunService): the same answer runs get. */
export interface AgentCheck {
  /** Admission's answer for a new run of the agent, now; with `connection`, as if bound to it. */
  admit(agent: StoredAgent & { deleted: boolean }, saved?: undefined, connection?: ConnectionState): AdmissionResult;
  /** The digest of everything that answer depends on. */
  admissionRevision(agent: StoredAgent & { deleted: boolean }): string;
}

/** The connection an unsaved agent would be bound to, as admission sees it (ConnectionService). */
export interface DraftConnections {
  stateForNewAgent(connectionId: string | null): ConnectionState | undefined;
}

/** Admission's answer in the Test's shape: what the agent page and New agent's preview show. */
export function agentTestResult(agentName: string, verdict: AdmissionResult, checkedAt: string): AgentTestResult {
  if (verdict.admitted) {
    const { admission } = verdict;
    const connection = admission.connection ? `, AI connection “${admission.connection.name}”` : '';
    return {
      ok: true,
      checkedAt,
      message: `${agentName} is ready: a run would be admitted (${admission.environmentKind === 'sandboxed' ? 'sandboxed' : 'local'}, ${admission.homeMode} home${connection}).`,
    };
  }
  const result: AgentTestResult = { ok: false, checkedAt, message: verdict.failure.message, code: verdict.failure.code };
  if (verdict.failure.reason) result.reason = verdict.failure.reason;
  if (verdict.failure.actionUrl) result.actionUrl = verdict.failure.actionUrl;
  return result;
}

/**
 * The agent's Test probe and its verification. Both ask admission, so they answer exactly what a run
 * would get (ai_connection_required included) and start nothing: no task root, no secret, no process.
 *
 * Verification is the console's own check, made whenever the agent or its connection changes. A
 * refused verification is recorded with the configuration revision it was made for and is not tried
 * again until that revision changes: an unchanged configuration would only be refused again, and the
 * operator's fix is what changes it. The Test probe is the operator asking, so it always checks.
 */
export class AgentVerifier {
  constructor(
    private readonly ledger: Ledger,
    private readonly check: AgentCheck,
    private readonly connections: DraftConnections,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The agent as the renderer sees it, with its verification (unverified when the record is stale). */
  decorate(agent: Agent): Agent {
    const stored = this.ledger.agents.get(agent.id);
    if (!stored) return agent;
    return { ...agent, verification: this.current(stored) };
  }

  /** Verifies unless a refusal for this very configuration is already recorded. */
  verify(agentId: string): AgentVerification {
    const agent = this.requireAgent(agentId);
    const revision = this.check.admissionRevision(agent);
    const recorded = this.recorded(agentId);
    if (recorded && recorded.state === 'refused' && recorded.configRevision === revision) return recorded;
    return this.record(agent, revision).verification;
  }

  /** The agent's Test: always checks, records the verification, and answers in the Test's shape. */
  test(agentId: string): AgentTestResult {
    const agent = this.requireAgent(agentId);
    const { verdict, verification } = this.record(agent, this.check.admissionRevision(agent));
    const checkedAt = verification.checkedAt ?? new Date(this.now()).toISOString();
    return agentTestResult(agent.name, verdict, checkedAt);
  }

  /**
   * New agent's preview: admission's answer for the unsaved agent and the connection it would be bound
   * to, as its first run would get it. Records nothing: there is no agent yet.
   */
  checkDraft(draft: StoredAgent & { deleted: false }): AgentTestResult {
    const checkedAt = new Date(this.now()).toISOString();
    return agentTestResult(draft.name, this.check.admit(draft, undefined, this.connections.stateForNewAgent(draft.connectionId)), checkedAt);
  }

  /** Re-verifies agents whose configuration changed (a connection of theirs, their binding). */
  reverify(agentIds: Iterable<string>): void {
    for (const agentId of agentIds) {
      const agent = this.ledger.agents.get(agentId);
      if (agent && !agent.deleted) this.verify(agentId);
    }
  }

  private current(agent: StoredAgent & { deleted: boolean }): AgentVerification {
    const revision = this.check.admissionRevision(agent);
    const recorded = this.recorded(agent.id);
    if (recorded && recorded.configRevision === revision) return recorded;
    return { state: 'unverified', configRevision: revision, checkedAt: null };
  }

  private record(agent: StoredAgent & { deleted: boolean }, revision: string) {
    const verdict = this.check.admit(agent);
    const checkedAt = new Date(this.now()).toISOString();
    let verification: AgentVerification;
    if (verdict.admitted) {
      verification = { state: 'ok', configRevision: revision, checkedAt };
    } else if (verdict.deferred) {
      // A connection being updated is not a verdict on the configuration: nothing is recorded.
      return { verdict, verification: { state: 'unverified', configRevision: revision, checkedAt: null } as AgentVerification };
    } else {
      verification = { state: 'refused', code: verdict.failure.code, message: verdict.failure.message, configRevision: revision, checkedAt };
      if (verdict.failure.reason) verification.reason = verdict.failure.reason;
      if (verdict.failure.actionUrl) verification.actionUrl = verdict.failure.actionUrl;
      this.log.info('agent verification refused', { agentId: agent.id, code: verdict.failure.code, reason: verdict.failure.reason });
    }
    this.ledger.agents.saveVerification(agent.id, JSON.stringify(verification));
    return { verdict, verification };
  }

  private recorded(agentId: string): AgentVerification | null {
    const json = this.ledger.agents.verificationJson(agentId);
    return json ? (JSON.parse(json) as AgentVerification) : null;
  }

  private requireAgent(agentId: string) {
    const agent = this.ledger.agents.get(agentId);
    if (!agent || agent.deleted) {
      throw new OperatorError({ code: 'not_found', message: 'That agent is no longer in the console.', actionUrl: actionRoute({ kind: 'agents' }) });
    }
    return agent;
  }
}
