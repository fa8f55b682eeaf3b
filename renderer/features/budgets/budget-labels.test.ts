import { describe, expect, it } from 'vitest';
import type { Budget } from '../../../shared/usage';
import { budgetKind, budgetStanding, budgetTarget, formatBudgetLimit, formatBudgetValue, percentSummary, percentUsed, resetSummary, spentSummary, uncountedExplanation } from './budget-labels';

describe('how a budget reads', () => {
  it('calls money an estimate and counts tokens', () => {
    expect(formatBudgetValue('cost', 5.123, 'en-US')).toBe('≈ $5.12');
    expect(formatBudgetValue('cost', 0.0072, 'en-US')).toBe('≈ $0.0072');
    expect(formatBudgetLimit('cost', 5, 'en-US')).toBe('≈ $5.00 (estimated)');
    expect(formatBudgetLimit('tokens', 200_000, 'en-US')).toBe('200,000 tokens');
    expect(formatBudgetValue('tokens', 1, 'en-US')).toBe('1 token');
  });

  it('says what is used of the limit in the period, and what the budget is for', () => {
    const none = { tokens: 0, models: [] };
    const tokens = { measure: 'tokens', period: 'day', spent: 1801, limit: 1000, unpriced: none } as const;
    expect(spentSummary(tokens, 'en-US')).toBe('1,801 of 1,000 tokens used today');
    expect(percentUsed(tokens)).toBe(180);
    expect(spentSummary({ measure: 'cost', period: 'month', spent: 0.42, limit: 5, unpriced: none }, 'en-US')).toBe('≈ $0.42 of ≈ $5.00 (estimated) used this month');
    expect(budgetKind({ period: 'month', measure: 'cost' })).toBe('Monthly money budget');
    expect(budgetTarget({ scope: 'connection', targetName: 'Team key' })).toBe('the AI connection “Team key”');
  });

  it('never shows tokens with no price as money that cost nothing: a money budget with some cannot count', () => {
    const uncounted: Pick<Budget, 'measure' | 'period' | 'spent' | 'limit' | 'exhausted' | 'unpriced'> = {
      measure: 'cost',
      period: 'day',
      spent: 0.42,
      limit: 5,
      exhausted: false,
      unpriced: { tokens: 12_345, models: [{ priceProvider: 'openai', model: 'default' }] },
    };
    expect(spentSummary(uncounted, 'en-US')).toBe('≈ $0.42 of ≈ $5.00 (estimated) used today + 12,345 tokens with no price');
    expect(percentSummary(uncounted)).toBe('at least 8%');
    expect(budgetStanding(uncounted)).toEqual({ label: 'Cannot count', tone: 'warning' });
    expect(uncountedExplanation(uncounted, 'en-US')).toBe(
      'The price table has no price for default (openai): 12,345 tokens used today are not counted, so this budget cannot tell whether it is reached. ' +
        'Runs it holds are refused until the price is set.',
    );
    // Reached is reached, whatever else it holds; a budget with all of it priced is within.
    expect(budgetStanding({ ...uncounted, exhausted: true })).toEqual({ label: 'Reached', tone: 'danger' });
    expect(budgetStanding({ ...uncounted, unpriced: { tokens: 0, models: [] } })).toEqual({ label: 'Within budget', tone: 'success' });
    expect(percentSummary({ ...uncounted, unpriced: { tokens: 0, models: [] } })).toBe('8%');
  });

  it('says when it resets in the operator’s time', () => {
    expect(resetSummary({ period: 'day', resetsAt: '2026-12-02T23:00:00.000Z' }, 'en-GB', 'Europe/Berlin')).toBe('Resets at midnight (Thu 3 Dec, 00:00)');
    expect(resetSummary({ period: 'month', resetsAt: '2026-12-31T23:00:00.000Z' }, 'en-GB', 'Europe/Berlin')).toBe('Resets when the month turns (Fri 1 Jan, 00:00)');
  });
});
