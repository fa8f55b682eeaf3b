import type { OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { budgetExhausted, type Budget } from '../../shared/usage';
import { describeBudgetTarget, describeReset, formatBudgetAmount, formatBudgetLimit, periodAdjective, periodSoFar } from './budget-wording';

/**
 * The budget rule of admission, pure: which budgets hold a run (its agent's, and the connection it
 * is delivered, if any), which of them is spent, and the refusal that says so. Admission and the
 * attempt runner (a run that crossed its budget is not retried) both ask it, so they agree.
 */

/** Who a run's usage counts against: its agent, and the connection whose key it is given (null when none is). */
export interface BudgetHolder {
  agentId: string;
  connectionId: string | null;
}

/** The budgets that hold a run of `holder`, out of `budgets`. */
export function budgetsHolding(budgets: readonly Budget[], holder: BudgetHolder): Budget[] {
  return budgets.filter(
    (budget) => (budget.scope === 'agent' && budget.targetId === holder.agentId) || (budget.scope === 'connection' && holder.connectionId !== null && budget.targetId === holder.connectionId),
  );
}

/**
 * The spent budget that holds the run, or null when none is. With several, the one that resets last
 * is named: its reset is when the run could start again by waiting (an agent's before a connection's
 * when they reset together, the agent being what the operator ran).
 */
export function spentBudget(budgets: readonly Budget[], holder: BudgetHolder): Budget | null {
  const spent = budgetsHolding(budgets, holder).filter((budget) => budget.exhausted);
  spent.sort((a, b) => Date.parse(b.resetsAt) - Date.parse(a.resetsAt) || (a.scope === b.scope ? a.id.localeCompare(b.id) : a.scope === 'agent' ? -1 : 1));
  return spent[0] ?? null;
}

/**
 * The refusal of a run whose budget is spent: an owner action (raise the budget, or wait), linking to
 * that budget's setting. "The daily budget of ≈ $5.00 (estimated) for the AI connection “Team key”
 * is spent: ≈ $5.12 used today. It resets at midnight (Thu 3 Dec, 00:00). Raise the budget, or wait
 * until then."
 */
export function budgetRefusal(budget: Budget): OperatorErrorShape {
  const target = describeBudgetTarget(budget.scope, budget.targetName);
  return {
    code: 'configuration_incomplete',
    reason: budgetExhausted,
    message:
      `The ${periodAdjective(budget.period)} budget of ${formatBudgetLimit(budget.measure, budget.limit)} for ${target} is spent: ` +
      `${formatBudgetAmount(budget.measure, budget.spent)} used ${periodSoFar(budget.period)}. ${describeReset(budget.period, Date.parse(budget.resetsAt))} ` +
      'Raise the budget, or wait until then.',
    actionUrl: actionRoute({ kind: 'budget', budgetId: budget.id }),
  };
}

/** What a run that crossed its budget while it ran was spared: another attempt. */
export const notRetriedSentence = 'The run finished its current attempt and was not retried.';

/** The budget a "Budget reached" notice links to, read back from its action link (`#/settings/budgets/<id>`). */
export function budgetIdOfLink(actionUrl: string | null | undefined): string | null {
  const match = /\/settings\/budgets\/([^/?#]+)$/.exec(actionUrl ?? '');
  return match ? decodeURIComponent(match[1]!) : null;
}
