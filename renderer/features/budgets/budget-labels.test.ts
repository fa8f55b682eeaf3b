import { describe, expect, it } from 'vitest';
import { budgetKind, budgetTarget, formatBudgetLimit, formatBudgetValue, percentUsed, resetSummary, spentSummary } from './budget-labels';

describe('how a budget reads', () => {
  it('calls money an estimate and counts tokens', () => {
    expect(formatBudgetValue('cost', 5.123, 'en-US')).toBe('≈ $5.12');
    expect(formatBudgetValue('cost', 0.0072, 'en-US')).toBe('≈ $0.0072');
    expect(formatBudgetLimit('cost', 5, 'en-US')).toBe('≈ $5.00 (estimated)');
    expect(formatBudgetLimit('tokens', 200_000, 'en-US')).toBe('200,000 tokens');
    expect(formatBudgetValue('tokens', 1, 'en-US')).toBe('1 token');
  });

  it('says what is used of the limit in the period, and what the budget is for', () => {
    const tokens = { measure: 'tokens', period: 'day', spent: 1801, limit: 1000 } as const;
    expect(spentSummary(tokens, 'en-US')).toBe('1,801 of 1,000 tokens used today');
    expect(percentUsed(tokens)).toBe(180);
    expect(spentSummary({ measure: 'cost', period: 'month', spent: 0.42, limit: 5 }, 'en-US')).toBe('≈ $0.42 of ≈ $5.00 (estimated) used this month');
    expect(budgetKind({ period: 'month', measure: 'cost' })).toBe('Monthly money budget');
    expect(budgetTarget({ scope: 'connection', targetName: 'Team key' })).toBe('the AI connection “Team key”');
  });

  it('says when it resets in the operator’s time', () => {
    expect(resetSummary({ period: 'day', resetsAt: '2026-12-02T23:00:00.000Z' }, 'en-GB', 'Europe/Berlin')).toBe('Resets at midnight (Thu 3 Dec, 00:00)');
    expect(resetSummary({ period: 'month', resetsAt: '2026-12-31T23:00:00.000Z' }, 'en-GB', 'Europe/Berlin')).toBe('Resets when the month turns (Fri 1 Jan, 00:00)');
  });
});
