import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Budget } from '../../shared/usage';
import { budgetIdOfLink, budgetRefusal, budgetStopping, priceTargetOfLink, spentBudget } from './budget-rule';
import { formatBudgetAmount } from './budget-wording';

/** The budget rule's words and choices, in the console's local time (Berlin here). */

const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Europe/Berlin';
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

function budget(fields: Partial<Budget>): Budget {
  return {
    id: 'bgt_1',
    scope: 'connection',
    targetId: 'con_1',
    targetName: 'Team key',
    measure: 'cost',
    period: 'day',
    limit: 5,
    spent: 5.12,
    unpriced: { tokens: 0, models: [] },
    periodStart: new Date('2026-12-02T00:00').toISOString(),
    resetsAt: new Date('2026-12-03T00:00').toISOString(),
    exhausted: true,
    createdAt: '2026-12-01T10:00:00.000Z',
    updatedAt: '2026-12-01T10:00:00.000Z',
    ...fields,
  };
}

describe('the refusal of a run whose budget is spent', () => {
  it('names the target, the period, what was used of the limit and the local time it resets, and links to the budget', () => {
    expect(budgetRefusal(budget({}))).toEqual({
      code: 'configuration_incomplete',
      reason: 'budget_exhausted',
      message:
        'The daily budget of ≈ $5.00 (estimated) for the AI connection “Team key” is spent: ≈ $5.12 used today. ' +
        'It resets at midnight (Thu 3 Dec, 00:00). Raise the budget, or wait until then.',
      actionUrl: '#/settings/budgets/bgt_1',
    });
    const monthly = budgetRefusal(
      budget({ scope: 'agent', targetName: 'codex', measure: 'tokens', period: 'month', limit: 2_000_000, spent: 2_000_417, resetsAt: new Date('2027-01-01T00:00').toISOString() }),
    );
    expect(monthly.message).toBe(
      'The monthly budget of 2,000,000 tokens for the agent “codex” is spent: 2,000,417 tokens used this month. ' +
        'It resets when the month turns (Fri 1 Jan, 00:00). Raise the budget, or wait until then.',
    );
  });

  it('shows a spend under a cent as what it is, not as nothing', () => {
    expect(formatBudgetAmount('cost', 0.0072)).toBe('≈ $0.0072');
    expect(formatBudgetAmount('cost', 0)).toBe('≈ $0.00');
    expect(formatBudgetAmount('cost', 1234.5)).toBe('≈ $1,234.50');
    expect(formatBudgetAmount('tokens', 1)).toBe('1 token');
  });

  it('holds a run to its agent’s budgets and to its delivered connection’s only, naming the spent one that resets last', () => {
    const agentDay = budget({ id: 'bgt_a', scope: 'agent', targetId: 'agt_1', targetName: 'codex' });
    const connectionMonth = budget({ id: 'bgt_c', period: 'month', resetsAt: new Date('2027-01-01T00:00').toISOString() });
    const otherAgent = budget({ id: 'bgt_o', scope: 'agent', targetId: 'agt_2' });
    const all = [agentDay, connectionMonth, otherAgent];
    expect(spentBudget(all, { agentId: 'agt_1', connectionId: 'con_1' })?.id).toBe('bgt_c');
    // No key delivered: the connection's budget does not hold the run.
    expect(spentBudget(all, { agentId: 'agt_1', connectionId: null })?.id).toBe('bgt_a');
    expect(spentBudget([{ ...agentDay, exhausted: false }, otherAgent], { agentId: 'agt_1', connectionId: null })).toBeNull();
    // Resetting together, the agent's is named.
    expect(spentBudget([budget({ id: 'bgt_z' }), budget({ id: 'bgt_y', scope: 'agent', targetId: 'agt_1' })], { agentId: 'agt_1', connectionId: 'con_1' })?.id).toBe('bgt_y');
  });

  it('reads the budget back from the notice’s link', () => {
    expect(priceTargetOfLink('#/settings/prices?provider=openai&model=gpt%2F9%20mini')).toEqual({ priceProvider: 'openai', model: 'gpt/9 mini' });
    expect(priceTargetOfLink('#/settings/prices')).toBeNull();
    expect(budgetIdOfLink('#/settings/budgets/bgt_1')).toBe('bgt_1');
    expect(budgetIdOfLink('#/agents/agt_1')).toBeNull();
    expect(budgetIdOfLink(null)).toBeNull();
  });
});

describe('a money budget that cannot count a run', () => {
  const holder = { agentId: 'agt_1', connectionId: null };
  const money = (fields: Partial<Budget>) =>
    budget({ id: 'bgt_m', scope: 'agent', targetId: 'agt_1', targetName: 'codex', spent: 0, exhausted: false, ...fields });
  const noPrice = { priceProvider: 'openai', model: 'default' };

  it('refuses a run whose usage this period has no price, saying what was not counted and linking to that model’s price', () => {
    const uncounted = money({ spent: 0.42, unpriced: { tokens: 1801, models: [noPrice] } });
    const block = budgetStopping([uncounted], holder, null);
    expect(block?.budget.id).toBe('bgt_m');
    expect(block?.refusal).toEqual({
      code: 'configuration_incomplete',
      reason: 'budget_unpriced',
      message:
        'The daily money budget of ≈ $5.00 (estimated) for the agent “codex” cannot count this run: the price table has no price for default (openai). ' +
        '≈ $0.42 used today counts only what has a price; 1,801 tokens have none. ' +
        'Set the price in Settings → Prices (0 for a free model), or make it a token budget; until then the runs it holds are refused.',
      actionUrl: '#/settings/prices?provider=openai&model=default',
    });
  });

  it('refuses, before anything is spent, a run whose own model has no price', () => {
    const block = budgetStopping([money({})], holder, noPrice);
    expect(block?.refusal.reason).toBe('budget_unpriced');
    expect(block?.refusal.message).toContain('cannot count this run: the price table has no price for default (openai). Set the price');
    // A token budget counts tokens whatever their price; a priced run under a whole money budget goes.
    expect(budgetStopping([money({ measure: 'tokens', limit: 1000 })], holder, noPrice)).toBeNull();
    expect(budgetStopping([money({})], holder, null)).toBeNull();
  });

  it('names a spent budget first: reached is reached, whatever it could not count', () => {
    const reached = money({ spent: 6, exhausted: true, unpriced: { tokens: 10, models: [noPrice] } });
    expect(budgetStopping([reached], holder, noPrice)?.refusal.reason).toBe('budget_exhausted');
  });
});
