import type { ChannelInput } from '../../../shared/contract';
import type { Budget, BudgetMeasure, BudgetPeriod, BudgetScope } from '../../../shared/usage';

/**
 * The New budget / Edit form, and a budget's own Limit field, as plain values: what they accept and
 * send is tested without a DOM. The core checks the same again (the target exists, one budget per
 * target, measure and period) and says so in its own words.
 */

export interface BudgetFormValues {
  scope: BudgetScope;
  targetId: string;
  measure: BudgetMeasure;
  period: BudgetPeriod;
  /** As typed: `5`, `2.50`, `$5`, `200,000`. */
  limit: string;
}

export type BudgetFormField = 'targetId' | 'limit';
export type BudgetFormProblems = Partial<Record<BudgetFormField, string>>;

export function emptyBudgetForm(target?: { scope: BudgetScope; targetId: string }): BudgetFormValues {
  return { scope: target?.scope ?? 'agent', targetId: target?.targetId ?? '', measure: 'tokens', period: 'day', limit: '' };
}

export function budgetFormFromBudget(budget: Budget): BudgetFormValues {
  return { scope: budget.scope, targetId: budget.targetId, measure: budget.measure, period: budget.period, limit: limitText(budget.measure, budget.limit) };
}

/** A limit as the field shows it: plain digits, cents for money, so it can be edited as it reads. */
export function limitText(measure: BudgetMeasure, limit: number): string {
  return measure === 'cost' && Number(limit.toFixed(2)) === limit ? limit.toFixed(2) : String(limit);
}

/** The limit typed, or what is wrong with it. Separators (`,`, `_`, spaces) and a leading `$` are allowed. */
export function parseLimit(measure: BudgetMeasure, text: string): { ok: true; limit: number } | { ok: false; problem: string } {
  const cleaned = text.trim().replace(/[,_\s]/g, '').replace(measure === 'cost' ? /^\$/ : /^$/, '');
  if (cleaned === '') return { ok: false, problem: 'Enter a limit.' };
  const pattern = measure === 'tokens' ? /^\d+$/ : /^(\d+(\.\d*)?|\.\d+)$/;
  if (!pattern.test(cleaned)) {
    return { ok: false, problem: measure === 'tokens' ? 'Enter a whole number of tokens, such as 200000.' : 'Enter an amount in dollars, such as 5 or 2.50.' };
  }
  const limit = Number(cleaned);
  if (!(limit > 0)) return { ok: false, problem: 'Enter a limit above zero.' };
  if (limit > 1e12) return { ok: false, problem: 'Enter a limit of at most 1,000,000,000,000.' };
  return { ok: true, limit };
}

export function budgetFormProblems(values: BudgetFormValues): BudgetFormProblems {
  const problems: BudgetFormProblems = {};
  if (!values.targetId) problems.targetId = values.scope === 'agent' ? 'Choose the agent the budget is for.' : 'Choose the AI connection the budget is for.';
  const limit = parseLimit(values.measure, values.limit);
  if (!limit.ok) problems.limit = limit.problem;
  return problems;
}

export function firstBudgetProblem(problems: BudgetFormProblems): BudgetFormField | null {
  return (['targetId', 'limit'] as const).find((field) => problems[field]) ?? null;
}

/** What Save sends; call only when the form has no problems. */
export function budgetInput(values: BudgetFormValues, budgetId?: string): ChannelInput<'saveBudget'> {
  const limit = parseLimit(values.measure, values.limit);
  if (!limit.ok) throw new Error(limit.problem);
  return { ...(budgetId ? { budgetId } : {}), scope: values.scope, targetId: values.targetId, measure: values.measure, period: values.period, limit: limit.limit };
}
