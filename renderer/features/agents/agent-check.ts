import type { AgentTestResult, AgentVerification } from '../../../shared/entities';

/** What the agent page says about whether the agent's runs would be admitted. */
export interface AgentCheck {
  state: AgentVerification['state'];
  message?: string | undefined;
  /** Why it would be refused (ai_connection_required, budget_exhausted, …), when it would be. */
  reason?: string | undefined;
  actionUrl?: string | undefined;
  checkedAt: string | null;
}

function time(iso: string | null | undefined): number {
  const parsed = iso ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(parsed) ? -Infinity : parsed;
}

/**
 * The newest answer: the Test just pressed, or the recorded verification (which a Test also records,
 * and which the core redoes when the agent's configuration changes, e.g. a connection is chosen).
 */
export function latestAgentCheck(verification: AgentVerification | undefined, test: AgentTestResult | undefined): AgentCheck {
  const fromTest: AgentCheck | undefined = test && {
    state: test.ok ? 'ok' : 'refused',
    message: test.message,
    reason: test.reason,
    actionUrl: test.actionUrl,
    checkedAt: test.checkedAt,
  };
  const fromVerification: AgentCheck | undefined = verification && {
    state: verification.state,
    message: verification.message,
    reason: verification.reason,
    actionUrl: verification.actionUrl,
    checkedAt: verification.checkedAt,
  };
  if (fromTest && (!fromVerification || time(fromTest.checkedAt) > time(fromVerification.checkedAt))) return fromTest;
  return fromVerification ?? { state: 'unverified', checkedAt: null };
}
