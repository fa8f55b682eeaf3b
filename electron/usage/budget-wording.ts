import type { BudgetMeasure, BudgetPeriod, BudgetScope } from '../../shared/usage';

/**
 * How budgets read in the core's words (refusals, notices, their resolutions). Times are the console's
 * local time, as the periods are; names are English and fixed so a message reads the same on every
 * machine and in every test.
 */

const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `≈ $5.12` for money (an estimate, always), `123,456 tokens` for tokens. */
export function formatBudgetAmount(measure: BudgetMeasure, value: number): string {
  if (measure === 'tokens') return `${grouped.format(Math.round(value))} ${Math.round(value) === 1 ? 'token' : 'tokens'}`;
  return `≈ ${formatDollars(value)}`;
}

/** A budget's limit: money is named an estimate where the limit is stated. */
export function formatBudgetLimit(measure: BudgetMeasure, limit: number): string {
  return measure === 'cost' ? `${formatBudgetAmount(measure, limit)} (estimated)` : formatBudgetAmount(measure, limit);
}

/** Dollars with cents; an amount under a cent keeps two significant digits, so a small spend is not shown as nothing. */
function formatDollars(value: number): string {
  const amount = Math.max(0, value);
  if (amount > 0 && amount < 0.01) return `$${Number(amount.toPrecision(2))}`;
  return `$${new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount)}`;
}

/** `the AI connection “Team key”`, `the agent “codex”`. */
export function describeBudgetTarget(scope: BudgetScope, name: string): string {
  return scope === 'connection' ? `the AI connection “${name}”` : `the agent “${name}”`;
}

export function periodAdjective(period: BudgetPeriod): string {
  return period === 'day' ? 'daily' : 'monthly';
}

/** What "used" is measured over: `today`, `this month`. */
export function periodSoFar(period: BudgetPeriod): string {
  return period === 'day' ? 'today' : 'this month';
}

/** `Thu 3 Dec, 00:00` in local time. */
export function formatLocalMoment(ms: number): string {
  const date = new Date(ms);
  const time = `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
  return `${weekdays[date.getDay()]} ${date.getDate()} ${months[date.getMonth()]}, ${time}`;
}

/** `It resets at midnight (Thu 3 Dec, 00:00).` / `It resets when the month turns (Fri 1 Jan, 00:00).` */
export function describeReset(period: BudgetPeriod, resetsAt: number): string {
  return period === 'day' ? `It resets at midnight (${formatLocalMoment(resetsAt)}).` : `It resets when the month turns (${formatLocalMoment(resetsAt)}).`;
}
