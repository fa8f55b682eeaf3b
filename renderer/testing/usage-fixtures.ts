import {
  priceTableStateSchema,
  runUsageSchema,
  usageReportSchema,
  usageRowSchema,
  type CostEstimate,
  type PriceTableState,
  type RunUsage,
  type UsageReport,
  type UsageRow,
} from '../../shared/usage';

/**
 * Usage objects for component tests, as the core would send them (parsed with the contract's
 * schemas, like contract-fixtures.ts): a fixture the core could never send fails where it is made.
 */

export const priced = (amount: number): CostEstimate => ({ amount, currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 });
export const onSubscription: CostEstimate = { amount: null, currency: 'USD', basis: 'subscription', unpricedModels: [], unpricedTokens: 0 };
export const unpriced = (tokens: number, ...models: string[]): CostEstimate => ({ amount: null, currency: 'USD', basis: 'unpriced', unpricedModels: models, unpricedTokens: tokens });

export function aRunUsage(changes: Partial<RunUsage> = {}): RunUsage {
  return runUsageSchema.parse({
    reported: true,
    billing: 'api_key',
    providerId: 'codex',
    model: 'gpt-5',
    attempts: [{ attemptNumber: 1, tokens: { input: 1234, output: 567, cachedInput: 200, reasoning: 64 }, cost: priced(0.0069), counting: 'per_session', reports: 1 }],
    total: { input: 1234, output: 567, cachedInput: 200, reasoning: 64 },
    cost: priced(0.0069),
    ...changes,
  });
}

export function aUsageRow(changes: Partial<UsageRow> = {}): UsageRow {
  return usageRowSchema.parse({
    day: '2026-03-02',
    runId: 'run_1',
    attemptNumber: 1,
    taskId: 'task_1',
    taskTitle: 'Write the refund module',
    projectId: 'project_1',
    projectName: 'checkout',
    agentId: 'agent_1',
    agentName: 'Codex writer',
    connectionId: 'conn_1',
    connectionName: 'Team key',
    providerId: 'codex',
    model: 'gpt-5',
    billing: 'api_key',
    tokens: { input: 1_000_000, output: 100_000, cachedInput: 0, reasoning: 0 },
    cost: priced(2.25),
    ...changes,
  });
}

/** Two days, one row: the Codex writer used 1.1M tokens on 2 March through the team key. */
export function aUsageReport(changes: Partial<UsageReport> = {}): UsageReport {
  return usageReportSchema.parse({
    query: { from: '2026-03-01', to: '2026-03-02', groupBy: 'agent', projectId: null },
    days: [
      { day: '2026-03-01', series: [] },
      { day: '2026-03-02', series: [{ key: 'agent_1', label: 'Codex writer', tokens: 1_100_000, cost: 2.25, unpricedTokens: 0 }] },
    ],
    series: [{ key: 'agent_1', label: 'Codex writer' }],
    topTasks: [{ taskId: 'task_1', taskTitle: 'Write the refund module', tokens: 1_100_000, cost: priced(2.25) }],
    total: { tokens: { input: 1_000_000, output: 100_000, cachedInput: 0, reasoning: 0 }, cost: priced(2.25) },
    rows: [aUsageRow()],
    rowsTruncated: false,
    ...changes,
  });
}

export function aPriceTableState(changes: Partial<PriceTableState> = {}): PriceTableState {
  return priceTableStateSchema.parse({
    table: {
      currency: 'USD',
      entries: [
        { provider: 'openai', model: 'gpt-5', inputPerMillion: 1.25, outputPerMillion: 10, cachedInputPerMillion: 0.125 },
        { provider: 'anthropic', model: 'claude-sonnet-4*', inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
      ],
    },
    edited: false,
    defaultsCheckedOn: '2026-12-02',
    ...changes,
  });
}
