import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { budgetUncounted } from '../../shared/usage';
import { recordUsage } from '../testing/budget-test-kit';
import { createConnection } from '../testing/connection-test-kit';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';

/**
 * Budgets' bookkeeping on a real ledger file: what the current period has spent, in tokens or in
 * estimated money, and when it resets, in the console's local time (Berlin here, whose clocks go back
 * an hour on 25 October 2026: that day is 25 hours long), and the rules a budget is saved under.
 */

const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Europe/Berlin';
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const bed of beds.splice(0)) await bed.close();
});

/** A console whose clock reads `clock.at` (local time written `YYYY-MM-DDTHH:MM` with no zone). */
async function bedAt(local: string) {
  const clock = { at: new Date(local).getTime() };
  const bed = await openRunTestBed({ now: () => clock.at });
  beds.push(bed);
  return Object.assign(bed, { clock });
}

const local = (text: string) => new Date(text).getTime();

describe('a budget’s spent and reset', () => {
  it('counts a day’s input and output tokens from local midnight to local midnight, 25 hours on the day the clocks go back', async () => {
    const b = await bedAt('2026-10-25T12:00');
    const agent = await b.createAgent(['--lines', '1']);
    const other = await b.createAgent(['--lines', '1']);
    recordUsage(b, { agentId: agent.id, at: local('2026-10-24T23:59'), input: 5000, output: 5000 }); // yesterday
    recordUsage(b, { agentId: agent.id, at: local('2026-10-25T00:00'), input: 300, output: 200, cachedInput: 100 });
    recordUsage(b, { agentId: agent.id, at: local('2026-10-25T11:00'), input: 100, output: 0 });
    recordUsage(b, { agentId: other.id, at: local('2026-10-25T11:00'), input: 9000, output: 9000 }); // someone else's

    const budget = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 1000 });
    expect(budget).toMatchObject({
      scope: 'agent',
      targetId: agent.id,
      targetName: agent.name,
      measure: 'tokens',
      period: 'day',
      limit: 1000,
      // Cached input is part of input: it is not counted twice.
      spent: 600,
      exhausted: false,
      periodStart: '2026-10-24T22:00:00.000Z', // midnight, summer time (UTC+2)
      resetsAt: '2026-10-25T23:00:00.000Z', // midnight, winter time (UTC+1)
    });

    // Spent is reached at the limit, not past it.
    recordUsage(b, { agentId: agent.id, at: local('2026-10-25T11:30'), input: 400, output: 0 });
    expect(await b.call('listBudgets')).toMatchObject([{ id: budget.id, spent: 1000, exhausted: true }]);

    // At local midnight the period rolls over and the budget is whole again.
    b.clock.at = local('2026-10-26T00:00');
    expect(await b.call('listBudgets')).toMatchObject([
      { id: budget.id, spent: 0, exhausted: false, periodStart: '2026-10-25T23:00:00.000Z', resetsAt: '2026-10-26T23:00:00.000Z' },
    ]);
  });

  it('counts a month from the first to the first, local time', async () => {
    const b = await bedAt('2026-12-31T23:59');
    const agent = await b.createAgent(['--lines', '1']);
    recordUsage(b, { agentId: agent.id, at: local('2026-11-30T23:59'), input: 1_000_000, output: 0 });
    recordUsage(b, { agentId: agent.id, at: local('2026-12-01T00:00'), input: 40_000, output: 2_000 });
    recordUsage(b, { agentId: agent.id, at: local('2026-12-31T23:58'), input: 8_000, output: 0 });
    const budget = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'month', limit: 50_000 });
    expect(budget).toMatchObject({
      spent: 50_000,
      exhausted: true,
      periodStart: '2026-11-30T23:00:00.000Z',
      resetsAt: '2026-12-31T23:00:00.000Z',
    });
    b.clock.at = local('2027-01-01T00:00');
    expect(await b.call('listBudgets')).toMatchObject([{ spent: 0, exhausted: false, periodStart: '2026-12-31T23:00:00.000Z', resetsAt: '2027-01-31T23:00:00.000Z' }]);
  });

  it('estimates money with the price table in use: a subscription’s tokens add nothing, an unpriced model’s are carried apart', async () => {
    const b = await bedAt('2026-12-03T15:00');
    const connection = await createConnection(b);
    const agent = await b.createAgent(['--lines', '1']);
    const on = { agentId: agent.id, connectionId: connection.id, at: local('2026-12-03T09:00') };
    // gpt-5: $1.25 per million input ($0.125 cached), $10 per million output.
    recordUsage(b, { ...on, input: 1_000_000, cachedInput: 200_000, output: 100_000 }); // 0.8 × 1.25 + 0.2 × 0.125 + 0.1 × 10 = 2.025
    recordUsage(b, { ...on, input: 5_000_000, output: 5_000_000, billing: 'subscription' });
    recordUsage(b, { ...on, input: 5_000_000, output: 5_000_000, model: 'a-model-with-no-price' });

    const budget = await b.call('saveBudget', { scope: 'connection', targetId: connection.id, measure: 'cost', period: 'day', limit: 2 });
    expect(budget.targetName).toBe('Fixture OpenAI');
    expect(budget.spent).toBeCloseTo(2.025, 9);
    expect(budget.exhausted).toBe(true);
    // Never folded into the money as free: the tokens the table cannot price, and whose they are.
    expect(budget.unpriced).toEqual({ tokens: 10_000_000, models: [{ priceProvider: 'openai', model: 'a-model-with-no-price' }] });
    // The tokens are the connection's and the agent's alike: a token budget on the agent counts all of them.
    const tokens = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 100_000_000 });
    expect(tokens.spent).toBe(1_100_000 + 10_000_000 + 10_000_000);

    // An edited price table prices what was spent anew.
    const prices = b.core.ledger.settings;
    prices.write('usage.prices', { currency: 'USD', entries: [{ provider: 'openai', model: 'gpt-5', inputPerMillion: 1, outputPerMillion: 5, cachedInputPerMillion: 1 }] }, b.clock.at);
    const repriced = (await b.call('listBudgets')).find((each) => each.id === budget.id);
    expect(repriced?.spent).toBeCloseTo(1.5, 9);
    expect(repriced?.exhausted).toBe(false);
  });

  it('says a money budget holding only usage with no price used none it could count, never that it is within budget at $0', async () => {
    const b = await bedAt('2026-12-03T15:00');
    const agent = await b.createAgent(['--lines', '1']);
    // What the fixture agent reports for one turn, on a model the shipped table has no price for.
    recordUsage(b, { agentId: agent.id, at: local('2026-12-03T09:00'), input: 1234, output: 567, model: 'fixture-model' });
    const budget = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'cost', period: 'day', limit: 5 });
    expect(budget).toMatchObject({ spent: 0, exhausted: false, unpriced: { tokens: 1801, models: [{ priceProvider: 'openai', model: 'fixture-model' }] } });
    expect(budgetUncounted(budget)).toBe(true);
    // A token budget on the same usage counts it all.
    const tokens = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 5000 });
    expect(tokens).toMatchObject({ spent: 1801, unpriced: { tokens: 0, models: [] } });
    expect(budgetUncounted(tokens)).toBe(false);

    // Once the model has a price, what it used is money like any other.
    b.core.ledger.settings.write('usage.prices', { currency: 'USD', entries: [{ provider: 'openai', model: 'fixture-*', inputPerMillion: 2, outputPerMillion: 20, cachedInputPerMillion: 0.2 }] }, b.clock.at);
    const priced = (await b.call('listBudgets')).find((each) => each.id === budget.id)!;
    expect(priced.spent).toBeCloseTo(0.013808, 9);
    expect(priced.unpriced).toEqual({ tokens: 0, models: [] });
    expect(budgetUncounted(priced)).toBe(false);
  });
});

describe('saving budgets', () => {
  it('creates, changes and deletes them, telling the renderer each time', async () => {
    const b = await bedAt('2026-12-03T15:00');
    const agent = await b.createAgent(['--lines', '1']);
    const changes: string[] = [];
    b.core.events.listen((event) => {
      if (event === 'budgetsChanged') changes.push(event);
    });
    const created = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'cost', period: 'month', limit: 25 });
    expect(created.id).toMatch(/^bgt_/);
    const changed = await b.call('saveBudget', { budgetId: created.id, scope: 'agent', targetId: agent.id, measure: 'cost', period: 'month', limit: 40 });
    expect(changed).toMatchObject({ id: created.id, limit: 40, createdAt: created.createdAt });
    expect(await b.call('listBudgets')).toMatchObject([{ id: created.id, limit: 40 }]);
    expect(await b.call('deleteBudget', { budgetId: created.id })).toEqual({ budgetId: created.id });
    expect(await b.call('listBudgets')).toEqual([]);
    expect(changes).toHaveLength(3);
  });

  it('refuses a target that is not there, a second budget of the same kind, and part of a token, each with its code', async () => {
    const b = await bedAt('2026-12-03T15:00');
    const agent = await b.createAgent(['--lines', '1']);
    await expect(b.call('saveBudget', { scope: 'agent', targetId: 'agt_gone', measure: 'tokens', period: 'day', limit: 10 })).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('That agent is no longer in the console'),
    });
    await expect(b.call('saveBudget', { scope: 'connection', targetId: 'con_gone', measure: 'tokens', period: 'day', limit: 10 })).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('That AI connection is no longer in the console'),
    });
    const first = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 10 });
    await expect(b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 20 })).rejects.toMatchObject({
      code: 'conflict',
      message: `The agent “${agent.name}” already has a daily token budget. Change that one instead.`,
      actionUrl: `#/settings/budgets/${first.id}`,
    });
    // Another period or measure is another budget.
    await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'month', limit: 100 });
    const money = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'cost', period: 'day', limit: 0.5 });
    // Changed into the kind another budget already is: refused too.
    await expect(b.call('saveBudget', { budgetId: money.id, scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 5 })).rejects.toMatchObject({ code: 'conflict' });
    await expect(b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 2.5, budgetId: first.id })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'A token budget counts whole tokens: enter a whole number.',
    });
    await expect(b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 0 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(b.call('saveBudget', { budgetId: 'bgt_gone', scope: 'agent', targetId: agent.id, measure: 'cost', period: 'month', limit: 1 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(b.call('deleteBudget', { budgetId: 'bgt_gone' })).rejects.toMatchObject({ code: 'not_found' });
    // A deleted agent takes no new budget; its existing one keeps the name it had.
    await b.call('deleteAgent', { agentId: agent.id });
    await expect(b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'cost', period: 'month', limit: 1 })).rejects.toMatchObject({ code: 'not_found' });
    expect((await b.call('listBudgets')).map((budget) => budget.targetName)).toEqual([agent.name, agent.name, agent.name]);
  });
});
