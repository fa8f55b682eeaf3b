import { describe, expect, it } from 'vitest';
import { budgetFormProblems, budgetInput, emptyBudgetForm, limitText, parseLimit } from './budget-form';

describe('a budget’s limit as typed', () => {
  it('takes whole tokens, with separators', () => {
    expect(parseLimit('tokens', '200000')).toEqual({ ok: true, limit: 200_000 });
    expect(parseLimit('tokens', ' 1,000,000 ')).toEqual({ ok: true, limit: 1_000_000 });
    expect(parseLimit('tokens', '1_500')).toEqual({ ok: true, limit: 1500 });
    expect(parseLimit('tokens', '2.5')).toEqual({ ok: false, problem: 'Enter a whole number of tokens, such as 200000.' });
    expect(parseLimit('tokens', '$5')).toMatchObject({ ok: false });
  });

  it('takes dollars and cents, with or without the sign', () => {
    expect(parseLimit('cost', '5')).toEqual({ ok: true, limit: 5 });
    expect(parseLimit('cost', '$2.50')).toEqual({ ok: true, limit: 2.5 });
    expect(parseLimit('cost', '.75')).toEqual({ ok: true, limit: 0.75 });
    expect(parseLimit('cost', 'five')).toEqual({ ok: false, problem: 'Enter an amount in dollars, such as 5 or 2.50.' });
  });

  it('asks for something above zero, and no more than the core takes', () => {
    expect(parseLimit('cost', '')).toEqual({ ok: false, problem: 'Enter a limit.' });
    expect(parseLimit('tokens', '0')).toEqual({ ok: false, problem: 'Enter a limit above zero.' });
    expect(parseLimit('tokens', '2000000000000')).toMatchObject({ ok: false });
  });

  it('shows a saved limit as it can be edited again', () => {
    expect(limitText('cost', 5)).toBe('5.00');
    expect(limitText('cost', 2.5)).toBe('2.50');
    expect(limitText('cost', 0.0015)).toBe('0.0015');
    expect(limitText('tokens', 200_000)).toBe('200000');
  });
});

describe('the New budget form', () => {
  it('asks for a target and a limit, then sends what the core takes', () => {
    const empty = emptyBudgetForm();
    expect(budgetFormProblems(empty)).toEqual({ targetId: 'Choose the agent the budget is for.', limit: 'Enter a limit.' });
    expect(budgetFormProblems({ ...empty, scope: 'connection' }).targetId).toBe('Choose the AI connection the budget is for.');
    const filled = { ...emptyBudgetForm({ scope: 'connection', targetId: 'con_1' }), measure: 'cost' as const, period: 'month' as const, limit: '$25' };
    expect(budgetFormProblems(filled)).toEqual({});
    expect(budgetInput(filled)).toEqual({ scope: 'connection', targetId: 'con_1', measure: 'cost', period: 'month', limit: 25 });
    expect(budgetInput(filled, 'bgt_1')).toEqual({ budgetId: 'bgt_1', scope: 'connection', targetId: 'con_1', measure: 'cost', period: 'month', limit: 25 });
  });
});
