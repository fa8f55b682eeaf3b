import { afterEach, describe, expect, it } from 'vitest';
import type { BillingKind, PriceTable, TokenCounts } from '../../shared/usage';
import type { UsageRecord } from '../ledger/usage-repository';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';

/**
 * getRunUsage through the core's dispatcher, on a real ledger: the attempts' recorded tokens priced
 * by the price table the core shares (core.prices), per attempt and in total.
 */

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

const table: PriceTable = {
  currency: 'USD',
  entries: [
    { provider: 'openai', model: 'gpt-test', inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.5 },
    { provider: 'anthropic', model: 'claude-test*', inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
  ],
};

const million = 1_000_000;

async function runWithUsage(attempts: Array<{ billing: BillingKind; priceProvider: string; model: string; tokens: TokenCounts }>) {
  const b = await openRunTestBed();
  beds.push(b);
  b.core.prices.save(table);
  const agent = await b.createAgent(['--lines', '1']);
  const task = await b.createTask();
  const run = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
  attempts.forEach((attempt, index) => {
    const record: UsageRecord = {
      attemptId: `att_${run.id}_${index + 1}`,
      runId: run.id,
      attemptNumber: index + 1,
      taskId: task.id,
      taskTitle: task.title,
      projectId: b.projectId,
      agentId: agent.id,
      agentName: agent.name,
      connectionId: null,
      connectionName: null,
      providerId: 'command',
      priceProvider: attempt.priceProvider,
      model: attempt.model,
      billing: attempt.billing,
      counting: 'per_call',
      startedAt: Date.now(),
      updatedAt: Date.now(),
      reports: 2,
      tokens: attempt.tokens,
      sessionId: null,
      sessionTotal: null,
    };
    b.core.ledger.usage.record(record);
  });
  return { b, runId: run.id, usage: () => b.call('getRunUsage', { runId: run.id }) };
}

// 0.8 M uncached input at $2, 0.2 M cached at $0.50, 0.1 M output at $8: $1.60 + $0.10 + $0.80.
const gptTokens = { input: million, cachedInput: 200_000, output: 100_000, reasoning: 40_000 };

describe('a run\'s usage and its estimated cost', () => {
  it('prices each attempt at the table (uncached input, cached input, output with its reasoning) and sums them', async () => {
    const { usage } = await runWithUsage([
      { billing: 'api_key', priceProvider: 'openai', model: 'gpt-test', tokens: gptTokens },
      // 0.5 M input (0.1 M cached), 20 k output: $1.20 + $0.03 + $0.30.
      { billing: 'api_key', priceProvider: 'anthropic', model: 'claude-test-4-6', tokens: { input: 500_000, cachedInput: 100_000, output: 20_000, reasoning: 0 } },
    ]);
    const answer = await usage();
    expect(answer.reported).toBe(true);
    expect(answer.billing).toBe('api_key');
    expect(answer.attempts.map((attempt) => [attempt.attemptNumber, attempt.cost.basis, attempt.cost.amount, attempt.reports, attempt.counting])).toEqual([
      [1, 'priced', expect.closeTo(2.5, 9), 2, 'per_call'],
      [2, 'priced', expect.closeTo(1.53, 9), 2, 'per_call'],
    ]);
    expect(answer.total).toEqual({ input: 1_500_000, cachedInput: 300_000, output: 120_000, reasoning: 40_000 });
    expect(answer.cost).toEqual({ amount: expect.closeTo(4.03, 9), currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 });
  });

  it('an edited price table changes the estimate at once: costs are worked out when asked', async () => {
    const { b, usage } = await runWithUsage([{ billing: 'api_key', priceProvider: 'openai', model: 'gpt-test', tokens: gptTokens }]);
    expect((await usage()).cost.amount).toBeCloseTo(2.5, 9);
    b.core.prices.save({ currency: 'USD', entries: [{ provider: 'openai', model: 'gpt-test', inputPerMillion: 4, outputPerMillion: 16, cachedInputPerMillion: 1 }] });
    expect((await usage()).cost.amount).toBeCloseTo(5, 9);
  });

  it('a subscription shows tokens, not money', async () => {
    const { usage } = await runWithUsage([{ billing: 'subscription', priceProvider: 'anthropic', model: 'claude-test-4-6', tokens: gptTokens }]);
    const answer = await usage();
    expect(answer.billing).toBe('subscription');
    expect(answer.total.input).toBe(million);
    expect(answer.cost).toEqual({ amount: null, currency: 'USD', basis: 'subscription', unpricedModels: [], unpricedTokens: 0 });
    expect(answer.attempts[0]?.cost.basis).toBe('subscription');
  });

  it('the operator\'s own login is priced like a key (the console cannot tell a plan there)', async () => {
    const { usage } = await runWithUsage([{ billing: 'operator_login', priceProvider: 'openai', model: 'gpt-test', tokens: gptTokens }]);
    expect((await usage()).cost).toMatchObject({ amount: expect.closeTo(2.5, 9), basis: 'priced' });
  });

  it('a model the table has no price for is named; with a priced one beside it, the estimate is partial', async () => {
    const { usage } = await runWithUsage([
      { billing: 'api_key', priceProvider: 'openai', model: 'gpt-test', tokens: gptTokens },
      { billing: 'api_key', priceProvider: 'openai', model: 'gpt-9', tokens: gptTokens },
    ]);
    const answer = await usage();
    expect(answer.attempts.map((attempt) => attempt.cost)).toEqual([
      { amount: expect.closeTo(2.5, 9), currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 },
      { amount: null, currency: 'USD', basis: 'unpriced', unpricedModels: ['gpt-9 (openai)'], unpricedTokens: 1_100_000 },
    ]);
    // The tokens with no price are carried beside the money, never counted as if they cost nothing.
    expect(answer.cost).toEqual({ amount: expect.closeTo(2.5, 9), currency: 'USD', basis: 'partly_priced', unpricedModels: ['gpt-9 (openai)'], unpricedTokens: 1_100_000 });
  });

  it('a gateway\'s `provider/model` id is priced under the provider it names (Pi through a custom connection)', async () => {
    const { usage } = await runWithUsage([{ billing: 'api_key', priceProvider: 'custom', model: 'openai/gpt-test', tokens: gptTokens }]);
    expect((await usage()).cost).toMatchObject({ amount: expect.closeTo(2.5, 9), basis: 'priced' });
  });

  it('a run whose CLI reported nothing: billed and named as its admission says', async () => {
    const b = await openRunTestBed();
    beds.push(b);
    const connection = await b.call('createConnection', { name: 'Team key', provider: 'openai', method: 'api_key', secret: 'sk-test-USAGEKEY-0123456789abcdef', ownership: 'shared', agentScope: 'all' });
    // An isolated home: the connection's key is delivered, so the run is billed to it.
    const agent = await b.createAgent(['--lines', '1'], { homeMode: 'isolated' });
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await b.createTask();
    const run = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(run.status).toBe('succeeded');
    expect(await b.call('getRunUsage', { runId: run.id })).toMatchObject({ reported: false, billing: 'api_key', providerId: 'command', model: 'fixture-model', attempts: [] });
  });

  it('a run that is not there is not_found', async () => {
    const { b } = await runWithUsage([]);
    await expect(b.call('getRunUsage', { runId: 'run_gone' })).rejects.toMatchObject({ code: 'not_found' });
  });
});
