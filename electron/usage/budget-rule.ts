import type { OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { budgetExhausted, budgetUncounted, budgetUnpriced, unpricedModelLabel, type Budget } from '../../shared/usage';
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

/** A model as the price table would price it: whose price list, which model. */
export interface PriceTarget {
  priceProvider: string;
  model: string;
}

/** Why a budget stops a run, and the refusal (or, between attempts, the failure) that says so. */
export interface BudgetBlock {
  budget: Budget;
  refusal: OperatorErrorShape;
}

/**
 * The budget that stops a run of `holder`, or null when none does. A spent one comes first
 * (spentBudget). Else a money budget that cannot count the run: its period already holds tokens the
 * price table has no price for, or the run's own model has none (`runUnpriced`, null when it is
 * priced or paid by a subscription). Such a budget cannot tell whether it is reached, so it cannot
 * protect the operator: the run is refused until the price is set, rather than counted as free.
 */
export function budgetStopping(budgets: readonly Budget[], holder: BudgetHolder, runUnpriced: PriceTarget | null): BudgetBlock | null {
  const spent = spentBudget(budgets, holder);
  if (spent) return { budget: spent, refusal: budgetRefusal(spent) };
  const uncounted = budgetsHolding(budgets, holder)
    .filter((budget) => budget.measure === 'cost' && (budgetUncounted(budget) || runUnpriced !== null))
    .sort((a, b) => (a.scope === b.scope ? a.id.localeCompare(b.id) : a.scope === 'agent' ? -1 : 1))[0];
  return uncounted ? { budget: uncounted, refusal: uncountedBudgetRefusal(uncounted, runUnpriced) } : null;
}

/**
 * The refusal of a run a money budget cannot count, linking to the price of the first model without
 * one. "The daily money budget of ≈ $5.00 (estimated) for the agent “codex” cannot count this run:
 * the price table has no price for gpt-9 (openai). ≈ $0.00 used today counts only what has a price;
 * 1,801 tokens have none. Set the price in Settings → Prices (0 for a free model), or make it a token
 * budget; until then the runs it holds are refused."
 */
export function uncountedBudgetRefusal(budget: Budget, runUnpriced: PriceTarget | null): OperatorErrorShape {
  const models = [...(runUnpriced ? [runUnpriced] : []), ...budget.unpriced.models];
  const labels = [...new Set(models.map((entry) => unpricedModelLabel(entry.priceProvider, entry.model)))];
  const named = labels.length === 1 ? labels[0]! : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)!}`;
  const counted =
    budget.unpriced.tokens > 0
      ? ` ${formatBudgetAmount('cost', budget.spent)} used ${periodSoFar(budget.period)} counts only what has a price; ${formatBudgetAmount('tokens', budget.unpriced.tokens)} ${budget.unpriced.tokens === 1 ? 'has' : 'have'} none.`
      : '';
  return {
    code: 'configuration_incomplete',
    reason: budgetUnpriced,
    message:
      `The ${periodAdjective(budget.period)} money budget of ${formatBudgetLimit(budget.measure, budget.limit)} for ${describeBudgetTarget(budget.scope, budget.targetName)} ` +
      `cannot count this run: the price table has no price for ${named}.${counted} ` +
      `Set ${labels.length === 1 ? 'the price' : 'their prices'} in Settings → Prices (0 for a free model), or make it a token budget; until then the runs it holds are refused.`,
    actionUrl: actionRoute({ kind: 'settings-prices', addPrice: models[0]! }),
  };
}

/** The model a budget-unpriced notice links to the price of, read back from its link (`#/settings/prices?provider=…&model=…`). */
export function priceTargetOfLink(actionUrl: string | null | undefined): PriceTarget | null {
  const match = /\/settings\/prices\?(.*)$/.exec(actionUrl ?? '');
  if (!match) return null;
  const params = new URLSearchParams(match[1]);
  const priceProvider = params.get('provider');
  const model = params.get('model');
  return priceProvider && model ? { priceProvider, model } : null;
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
