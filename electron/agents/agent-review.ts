import type { EventHub } from '../events/event-hub';
import type { Ledger } from '../ledger/ledger';

/**
 * After anything admission looks at changed (an agent, its binding, a connection, an environment, a
 * budget, the sandbox), the agents are verified again and admission notices whose cause is gone
 * resolve themselves. Verification and those notices live with the runs (runs/agent-verification.ts,
 * RunService), which import agents/, so what this file needs of them is named here, not imported.
 */
export interface AgentReviewParts {
  ledger: Ledger;
  verifier: { reverify(agentIds: Iterable<string>): void };
  /** Open admission notices (for these agents, or all) looked at again. */
  runs: { reviewNotices(agentIds?: Iterable<string>): void };
}

/** Reviews these agents (their verification and admission notices), or every agent. */
export type AgentReview = (agentIds?: string[]) => void;

export function agentReview({ ledger, verifier, runs }: AgentReviewParts): AgentReview {
  return (agentIds) => {
    verifier.reverify(agentIds ?? ledger.agents.list().map((agent) => agent.id));
    runs.reviewNotices(agentIds);
  };
}

/**
 * A connection change can fix an agent that is not bound to it yet (one created for it, a revoked one
 * brought back), so its agents are verified again and every open admission notice is looked at again.
 */
export function reviewAgentsOnConnectionChange(
  connections: { onChange(listener: (change: { agentIds: string[] }) => void): unknown },
  { verifier, runs }: AgentReviewParts,
): void {
  connections.onChange((change) => {
    verifier.reverify(change.agentIds);
    runs.reviewNotices();
  });
}

/**
 * An environment's kind and connection rule are part of its agents' admission: they are reviewed. A
 * request it blocked may be allowed now: its "Network request blocked" notices are looked at again.
 */
export function reviewOnEnvironmentChange(
  environments: { onChange(listener: (change: { agentIds: string[]; before: { id: string } | null; after: { id: string } | null }) => void): void },
  parts: { review: AgentReview; runs: { reviewEnvironmentNotices(environmentId: string): void }; events: EventHub },
): void {
  environments.onChange((change) => {
    if (change.agentIds.length > 0) parts.review(change.agentIds);
    const environmentId = change.after?.id ?? change.before?.id;
    if (environmentId) parts.runs.reviewEnvironmentNotices(environmentId);
    parts.events.emit('agentsChanged', {});
  });
}

/**
 * A budget saved, deleted or rolled over (or priced anew) changes admission's answer: every agent is
 * reviewed, so "Budget reached" notices whose budget is whole again resolve themselves.
 */
export function reviewAgentsOnBudgetChange(budgets: { onChange(listener: () => void): void }, parts: { review: AgentReview; events: EventHub }): void {
  budgets.onChange(() => {
    parts.review();
    parts.events.emit('agentsChanged', {});
  });
}
