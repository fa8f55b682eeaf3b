import { budgetUncounted, unpricedModelLabel, type Budget, type BudgetMeasure, type BudgetPeriod, type BudgetScope } from '../../../shared/usage';

/** How budgets read on the page. Pure, so it is tested without a DOM; money is always called an estimate. */

export const scopeLabels: Record<BudgetScope, string> = { agent: 'Agent', connection: 'AI connection' };

export const measureChoices: Array<{ measure: BudgetMeasure; label: string; hint: string }> = [
  { measure: 'tokens', label: 'Tokens', hint: 'Input and output tokens together, as the CLIs report them.' },
  {
    measure: 'cost',
    label: 'Estimated money (USD)',
    hint:
      'Estimated from the price table (Settings → Prices). Runs on a subscription token add nothing to it. A model with no price ' +
      'cannot be counted: the runs it holds are refused until that price is set.',
  },
];

export const periodChoices: Array<{ period: BudgetPeriod; label: string; hint: string }> = [
  { period: 'day', label: 'Per day', hint: 'Whole again at midnight, your time.' },
  { period: 'month', label: 'Per month', hint: 'Whole again on the first of the month, your time.' },
];

const grouped = (locale?: string) => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });

/** `≈ $5.12` or `1,801 tokens`; an amount under a cent keeps two significant digits rather than showing nothing. */
export function formatBudgetValue(measure: BudgetMeasure, value: number, locale?: string): string {
  if (measure === 'tokens') {
    const count = Math.round(value);
    return `${grouped(locale).format(count)} ${count === 1 ? 'token' : 'tokens'}`;
  }
  const amount = Math.max(0, value);
  const digits = amount > 0 && amount < 0.01 ? { maximumSignificantDigits: 2 } : { minimumFractionDigits: 2, maximumFractionDigits: 2 };
  return `≈ ${new Intl.NumberFormat(locale ?? 'en-US', { style: 'currency', currency: 'USD', ...digits }).format(amount)}`;
}

/** A limit: `≈ $5.00 (estimated)` or `1,000 tokens`. */
export function formatBudgetLimit(measure: BudgetMeasure, limit: number, locale?: string): string {
  return measure === 'cost' ? `${formatBudgetValue(measure, limit, locale)} (estimated)` : formatBudgetValue(measure, limit, locale);
}

/** `Daily token budget`, `Monthly money budget`. */
export function budgetKind(budget: Pick<Budget, 'period' | 'measure'>): string {
  return `${budget.period === 'day' ? 'Daily' : 'Monthly'} ${budget.measure === 'cost' ? 'money' : 'token'} budget`;
}

/** `the agent “codex”`, `the AI connection “Team key”`. */
export function budgetTarget(budget: Pick<Budget, 'scope' | 'targetName'>): string {
  return budget.scope === 'agent' ? `the agent “${budget.targetName}”` : `the AI connection “${budget.targetName}”`;
}

/**
 * `1,801 of 1,000 tokens used today`, `≈ $0.42 of ≈ $5.00 (estimated) used this month`; a money
 * budget with usage the price table has no price for says how many tokens it could not count
 * (`… used today + 12,345 tokens with no price`), never showing them as money that cost nothing.
 */
export function spentSummary(budget: Pick<Budget, 'measure' | 'period' | 'spent' | 'limit' | 'unpriced'>, locale?: string): string {
  const when = budget.period === 'day' ? 'today' : 'this month';
  if (budget.measure === 'tokens') return `${grouped(locale).format(Math.round(budget.spent))} of ${formatBudgetValue('tokens', budget.limit, locale)} used ${when}`;
  const money = `${formatBudgetValue('cost', budget.spent, locale)} of ${formatBudgetLimit('cost', budget.limit, locale)} used ${when}`;
  return budget.unpriced.tokens > 0 ? `${money} + ${formatBudgetValue('tokens', budget.unpriced.tokens, locale)} with no price` : money;
}

/** How much of the limit is used, 0–100 and more, for the meter's words. */
export function percentUsed(budget: Pick<Budget, 'spent' | 'limit'>): number {
  return budget.limit > 0 ? Math.round((budget.spent / budget.limit) * 100) : 0;
}

/** `42%`, or `at least 42%` when a money budget holds tokens it cannot count. */
export function percentSummary(budget: Pick<Budget, 'measure' | 'spent' | 'limit' | 'unpriced' | 'exhausted'>): string {
  return budgetUncounted(budget) ? `at least ${percentUsed(budget)}%` : `${percentUsed(budget)}%`;
}

/** Where a budget stands, in a word or two: reached, within it, or unable to tell (tokens with no price). */
export function budgetStanding(budget: Pick<Budget, 'measure' | 'unpriced' | 'exhausted'>): { label: string; tone: 'danger' | 'warning' | 'success' } {
  if (budget.exhausted) return { label: 'Reached', tone: 'danger' };
  if (budgetUncounted(budget)) return { label: 'Cannot count', tone: 'warning' };
  return { label: 'Within budget', tone: 'success' };
}

/**
 * Why a money budget cannot count, and what that does: "The price table has no price for default
 * (openai): 1,801 tokens used today are not counted, so this budget cannot tell whether it is
 * reached. Runs it holds are refused until the price is set."
 */
export function uncountedExplanation(budget: Pick<Budget, 'period' | 'unpriced'>, locale?: string): string {
  const labels = budget.unpriced.models.map((entry) => unpricedModelLabel(entry.priceProvider, entry.model));
  const named = labels.length <= 1 ? (labels[0] ?? 'a model') : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)!}`;
  const when = budget.period === 'day' ? 'today' : 'this month';
  return (
    `The price table has no price for ${named}: ${formatBudgetValue('tokens', budget.unpriced.tokens, locale)} used ${when} ${budget.unpriced.tokens === 1 ? 'is' : 'are'} not counted, ` +
    `so this budget cannot tell whether it is reached. Runs it holds are refused until ${labels.length > 1 ? 'their prices are' : 'the price is'} set.`
  );
}

/** `Resets at midnight (Thu 3 Dec, 00:00)`, `Resets when the month turns (Fri 1 Jan, 00:00)`, in the operator's time. */
export function resetSummary(budget: Pick<Budget, 'period' | 'resetsAt'>, locale?: string, timeZone?: string): string {
  const when = new Intl.DateTimeFormat(locale, {
    ...(timeZone ? { timeZone } : {}),
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(budget.resetsAt));
  return budget.period === 'day' ? `Resets at midnight (${when})` : `Resets when the month turns (${when})`;
}
