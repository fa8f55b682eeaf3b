import type { CostEstimate, TokenCounts, UsageCounting } from '../../../shared/usage';

/**
 * How usage and money read on the Usage page, Settings → Prices and the run detail. Pure, tested
 * without a DOM. Every amount of money the console shows is an estimate from the price table, and
 * says so where it stands: "≈ $1.23 est.".
 */

export function formatTokens(tokens: number, locale?: string): string {
  return new Intl.NumberFormat(locale).format(tokens);
}

/** For an axis: 950, 12k, 1.5M. */
export function formatCompactTokens(tokens: number, locale?: string): string {
  return new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(tokens);
}

/** Dollars: two decimals, or two significant digits below a cent, where a short run's cost lies ($0.0072). */
export function formatMoney(amount: number, locale?: string): string {
  const small = amount > 0 && amount < 0.01;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: 'USD',
    ...(small ? { maximumSignificantDigits: 2 } : { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  }).format(amount);
}

/** An amount as an estimate: "≈ $1.23 est." */
export function formatEstimate(amount: number, locale?: string): string {
  return `≈ ${formatMoney(amount, locale)} est.`;
}

/** A count of tokens in words: "1,801 tokens", "1 token". */
export function tokenCount(tokens: number, locale?: string): string {
  return `${formatTokens(tokens, locale)} ${tokens === 1 ? 'token' : 'tokens'}`;
}

/** Tokens a cost estimate could not price, beside its amount: "1,801 tokens with no price". */
export function unpricedTokensText(tokens: number, locale?: string): string {
  return `${tokenCount(tokens, locale)} with no price`;
}

/**
 * What a cost estimate says in a cell: the estimate, or why there is none. A subscription shows
 * tokens, never money (the plan pays); a model without a price says so and how many tokens it left
 * out (the caller links to Prices).
 */
export function costText(cost: CostEstimate, locale?: string): string {
  switch (cost.basis) {
    case 'priced':
      return formatEstimate(cost.amount ?? 0, locale);
    case 'partly_priced':
      return `${formatEstimate(cost.amount ?? 0, locale)} + ${unpricedTokensText(cost.unpricedTokens, locale)}`;
    case 'subscription':
      return 'Subscription: tokens only';
    case 'unpriced':
      return `No price: ${tokenCount(cost.unpricedTokens, locale)}`;
  }
}

/** Input and output together: what "tokens" means in a chart or a total. */
export function tokensInAll(tokens: TokenCounts): number {
  return tokens.input + tokens.output;
}

/** How the CLI's usage reports were turned into an attempt's share (shared/usage.ts, UsageCounting). */
export const countingDescriptions: Record<UsageCounting, string> = {
  per_call: 'Each report the CLI printed was one model call; the reports were added up.',
  per_invocation: 'Each report was the CLI’s total so far for this attempt; the last one counts.',
  per_session:
    'Each report was the session’s total since it began, earlier turns included; a resumed attempt counts only what it added since the attempt before.',
};

/** A `YYYY-MM-DD` day for an axis tick: "Mar 2". */
export function formatDayShort(day: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(dayAsUtc(day));
}

/** A `YYYY-MM-DD` day in full: "Monday, March 2, 2026". */
export function formatDayLong(day: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(dayAsUtc(day));
}

// A calendar day has no time zone: read and written as UTC, it is the same day everywhere.
function dayAsUtc(day: string): Date {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date));
}
