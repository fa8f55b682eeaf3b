import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PriceTable } from '../../shared/usage';
import { openLedger, type Ledger } from '../ledger/ledger';
import type { UsageRecord } from '../ledger/usage-repository';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';
import { makeTempDir } from '../testing/temp-dir';
import { buildUsageReport } from './usage-report';

/**
 * The Usage page's report, from a real ledger file. The console's days are its time zone's: the
 * tests run in Auckland (not UTC, whatever the machine's zone), where 5 April 2026 is 25 hours long
 * (daylight saving ends at 3:00), so a day taken as 24 hours or as UTC's lands attempts on the wrong bar.
 */
const zone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Pacific/Auckland';
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

/** Local wall-clock time in the test's zone (months 1-based). */
const at = (year: number, month: number, day: number, hour = 12, minute = 0) => new Date(year, month - 1, day, hour, minute).getTime();

const table: PriceTable = {
  currency: 'USD',
  entries: [
    { provider: 'openai', model: 'gpt-5', inputPerMillion: 1.25, outputPerMillion: 10, cachedInputPerMillion: 0.125 },
    { provider: 'anthropic', model: 'claude-sonnet-4*', inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
  ],
};

let attempts = 0;
/** One attempt's usage as the recorder writes it; by default Codex on gpt-5 through the "Team key" connection. */
function usage(overrides: Partial<UsageRecord> & { startedAt: number }): UsageRecord {
  attempts += 1;
  return {
    attemptId: `att_${attempts}`,
    runId: `run_${attempts}`,
    attemptNumber: 1,
    taskId: 'tsk_refund',
    taskTitle: 'Plan the refund flow',
    projectId: 'prj_checkout',
    agentId: 'agt_codex',
    agentName: 'Codex fast',
    connectionId: 'con_team',
    connectionName: 'Team key',
    providerId: 'codex',
    priceProvider: 'openai',
    model: 'gpt-5',
    billing: 'api_key',
    counting: 'per_session',
    updatedAt: overrides.startedAt,
    reports: 1,
    tokens: { input: 1_000_000, output: 100_000, cachedInput: 0, reasoning: 0 },
    sessionId: null,
    sessionTotal: null,
    ...overrides,
  };
}

describe('the usage report', () => {
  const opened: Array<{ ledger: Ledger; dir: ReturnType<typeof makeTempDir> }> = [];
  afterEach(() => {
    for (const { ledger, dir } of opened.splice(0)) {
      ledger.close();
      dir.remove();
    }
  });

  function freshLedger(name: string): Ledger {
    const dir = makeTempDir(`oc-usage-${name}-`);
    const ledger = openLedger(dir.path);
    opened.push({ ledger, dir });
    ledger.projects.insert({ id: 'prj_checkout', name: 'checkout', path: '/work/checkout', isGitRepo: true, createdAt: at(2026, 1, 1) });
    return ledger;
  }

  it('has every day of the range, oldest first and empty days included, each attempt on the day it started, stacked by agent', () => {
    const l = freshLedger('days');
    l.usage.record(usage({ startedAt: at(2026, 3, 2, 9) }));
    l.usage.record(usage({ startedAt: at(2026, 3, 2, 17), agentId: 'agt_claude', agentName: 'Claude careful', priceProvider: 'anthropic', model: 'claude-sonnet-4-6' }));
    l.usage.record(usage({ startedAt: at(2026, 3, 4, 8) }));
    // Outside the range on both sides.
    l.usage.record(usage({ startedAt: at(2026, 2, 28, 23, 59) }));
    l.usage.record(usage({ startedAt: at(2026, 3, 5, 0, 0) }));

    const report = buildUsageReport(l, table, { from: '2026-03-01', to: '2026-03-04', groupBy: 'agent' });
    expect(report.days.map((day) => day.day)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04']);
    expect(report.series).toEqual([
      { key: 'agt_claude', label: 'Claude careful' },
      { key: 'agt_codex', label: 'Codex fast' },
    ]);
    // gpt-5: 1M input at $1.25 + 100k output at $10 = $2.25; Sonnet: $3 + $1.50 = $4.50.
    expect(report.days.map((day) => day.series)).toEqual([
      [],
      [
        { key: 'agt_claude', label: 'Claude careful', tokens: 1_100_000, cost: 4.5, unpricedTokens: 0 },
        { key: 'agt_codex', label: 'Codex fast', tokens: 1_100_000, cost: 2.25, unpricedTokens: 0 },
      ],
      [],
      [{ key: 'agt_codex', label: 'Codex fast', tokens: 1_100_000, cost: 2.25, unpricedTokens: 0 }],
    ]);
    expect(report.total.tokens).toEqual({ input: 3_000_000, output: 300_000, cachedInput: 0, reasoning: 0 });
    expect(report.total.cost).toEqual({ amount: 9, currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 });
    expect(report.rows).toHaveLength(3);
    expect(report.rowsTruncated).toBe(false);
  });

  it('stacks by connection, runs on the operator’s own login in one stack of their own, last', () => {
    const l = freshLedger('connections');
    l.usage.record(usage({ startedAt: at(2026, 3, 2, 9) }));
    l.usage.record(usage({ startedAt: at(2026, 3, 2, 10), connectionId: null, connectionName: null, billing: 'operator_login' }));
    l.usage.record(usage({ startedAt: at(2026, 3, 2, 11), connectionId: 'con_alpha', connectionName: 'Alpha gateway', agentId: 'agt_other', agentName: 'Other' }));

    const report = buildUsageReport(l, table, { from: '2026-03-02', to: '2026-03-02', groupBy: 'connection' });
    expect(report.series).toEqual([
      { key: 'con_alpha', label: 'Alpha gateway' },
      { key: 'con_team', label: 'Team key' },
      { key: 'none', label: 'Own login (no connection)' },
    ]);
    expect(report.days[0]!.series.map((point) => [point.key, point.tokens])).toEqual([
      ['con_alpha', 1_100_000],
      ['con_team', 1_100_000],
      ['none', 1_100_000],
    ]);
    const ownLogin = report.rows.find((row) => row.connectionId === null)!;
    expect(ownLogin).toMatchObject({ connectionName: null, billing: 'operator_login', cost: { amount: 2.25, basis: 'priced' } });
  });

  it('lists the ten tasks that cost most, then by tokens, with their costs summed over their attempts', () => {
    const l = freshLedger('top');
    for (let n = 1; n <= 12; n += 1) {
      // Task n uses n × 100k output tokens: its cost grows with n.
      l.usage.record(usage({ startedAt: at(2026, 3, 2, 9), taskId: `tsk_${n}`, taskTitle: `Task ${n}`, tokens: { input: 0, output: n * 100_000, cachedInput: 0, reasoning: 0 } }));
    }
    // Task 1's second attempt makes it the dearest: 100k + 2M output tokens = $21.
    l.usage.record(usage({ startedAt: at(2026, 3, 3, 9), taskId: 'tsk_1', taskTitle: 'Task 1 (renamed)', attemptNumber: 2, tokens: { input: 0, output: 2_000_000, cachedInput: 0, reasoning: 0 } }));
    // A subscription's tokens cost nothing extra: most tokens, no money, ranked among the cheapest by cost.
    l.usage.record(usage({ startedAt: at(2026, 3, 3, 9), taskId: 'tsk_sub', taskTitle: 'On the plan', billing: 'subscription', tokens: { input: 0, output: 9_000_000, cachedInput: 0, reasoning: 0 } }));

    const report = buildUsageReport(l, table, { from: '2026-03-01', to: '2026-03-31', groupBy: 'agent' });
    expect(report.topTasks.map((task) => task.taskTitle)).toEqual(['Task 1 (renamed)', 'Task 12', 'Task 11', 'Task 10', 'Task 9', 'Task 8', 'Task 7', 'Task 6', 'Task 5', 'Task 4']);
    expect(report.topTasks[0]).toEqual({
      taskId: 'tsk_1',
      taskTitle: 'Task 1 (renamed)',
      tokens: 2_100_000,
      cost: { amount: 21, currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 },
    });

    // With no money anywhere (all on a subscription), the tasks that used most tokens come first.
    const onPlan = freshLedger('top-tokens');
    onPlan.usage.record(usage({ startedAt: at(2026, 3, 2, 9), taskId: 'tsk_a', taskTitle: 'Small', billing: 'subscription', tokens: { input: 10, output: 10, cachedInput: 0, reasoning: 0 } }));
    onPlan.usage.record(usage({ startedAt: at(2026, 3, 2, 9), taskId: 'tsk_b', taskTitle: 'Large', billing: 'subscription', tokens: { input: 900, output: 100, cachedInput: 0, reasoning: 0 } }));
    const byTokens = buildUsageReport(onPlan, table, { from: '2026-03-02', to: '2026-03-02', groupBy: 'agent' });
    expect(byTokens.topTasks.map((task) => [task.taskTitle, task.tokens, task.cost.basis])).toEqual([
      ['Large', 1000, 'subscription'],
      ['Small', 20, 'subscription'],
    ]);
  });

  it('shows a subscription’s tokens without money, and names a model the table has no price for', () => {
    const l = freshLedger('subscription');
    l.usage.record(usage({ startedAt: at(2026, 3, 2, 9), billing: 'subscription', connectionId: 'con_plan', connectionName: 'Max plan', priceProvider: 'anthropic', model: 'claude-sonnet-4-6' }));
    l.usage.record(usage({ startedAt: at(2026, 3, 2, 10), model: 'gpt-9' }));
    l.usage.record(usage({ startedAt: at(2026, 3, 2, 11) }));

    const report = buildUsageReport(l, table, { from: '2026-03-02', to: '2026-03-02', groupBy: 'connection' });
    const [priced, unpriced, subscription] = report.rows;
    expect(subscription!.cost).toEqual({ amount: null, currency: 'USD', basis: 'subscription', unpricedModels: [], unpricedTokens: 0 });
    expect(subscription!.tokens.input).toBe(1_000_000);
    expect(unpriced!.cost).toEqual({ amount: null, currency: 'USD', basis: 'unpriced', unpricedModels: ['gpt-9 (openai)'], unpricedTokens: 1_100_000 });
    expect(priced!.cost).toMatchObject({ amount: 2.25, basis: 'priced' });
    // The plan's stack has its tokens and no money; the team key's money is only what could be priced,
    // and the tokens it could not price are carried beside it rather than counted as free.
    expect(report.days[0]!.series).toEqual([
      { key: 'con_plan', label: 'Max plan', tokens: 1_100_000, cost: 0, unpricedTokens: 0 },
      { key: 'con_team', label: 'Team key', tokens: 2_200_000, cost: 2.25, unpricedTokens: 1_100_000 },
    ]);
    expect(report.total.cost).toEqual({ amount: 2.25, currency: 'USD', basis: 'partly_priced', unpricedModels: ['gpt-9 (openai)'], unpricedTokens: 1_100_000 });
  });

  it('cuts days at the console’s local midnight, also on a 25-hour day', () => {
    const l = freshLedger('boundaries');
    // 5 April 2026 in Auckland: midnight is 11:00 UTC on the 4th, the next midnight 25 hours later.
    l.usage.record(usage({ startedAt: at(2026, 4, 4, 23, 59), taskTitle: 'Late on the 4th' }));
    l.usage.record(usage({ startedAt: at(2026, 4, 5, 0, 0), taskTitle: 'Midnight of the 5th' }));
    l.usage.record(usage({ startedAt: at(2026, 4, 5, 23, 30), taskTitle: 'Late on the 5th' }));
    l.usage.record(usage({ startedAt: at(2026, 4, 6, 0, 0), taskTitle: 'Midnight of the 6th' }));

    const titlesOn = (day: string) =>
      buildUsageReport(l, table, { from: day, to: day, groupBy: 'agent' })
        .rows.map((row) => row.taskTitle)
        .sort();
    expect(titlesOn('2026-04-04')).toEqual(['Late on the 4th']);
    expect(titlesOn('2026-04-05')).toEqual(['Late on the 5th', 'Midnight of the 5th']);
    expect(titlesOn('2026-04-06')).toEqual(['Midnight of the 6th']);
    const range = buildUsageReport(l, table, { from: '2026-04-04', to: '2026-04-06', groupBy: 'agent' });
    expect(range.days.map((day) => [day.day, day.series[0]?.tokens ?? 0])).toEqual([
      ['2026-04-04', 1_100_000],
      ['2026-04-05', 2_200_000],
      ['2026-04-06', 1_100_000],
    ]);
    expect(range.rows.map((row) => [row.taskTitle, row.day])).toEqual([
      ['Midnight of the 6th', '2026-04-06'],
      ['Late on the 5th', '2026-04-05'],
      ['Midnight of the 5th', '2026-04-05'],
      ['Late on the 4th', '2026-04-04'],
    ]);
  });

  it('lists the newest attempts with their project’s name, cut at the limit while the totals count every one', () => {
    const l = freshLedger('rows');
    l.usage.record(usage({ startedAt: at(2026, 3, 2, 9), runId: 'run_old', projectId: 'prj_gone' }));
    l.usage.record(usage({ startedAt: at(2026, 3, 3, 9), runId: 'run_mid' }));
    l.usage.record(usage({ startedAt: at(2026, 3, 4, 9), runId: 'run_new', attemptNumber: 2 }));

    const whole = buildUsageReport(l, table, { from: '2026-03-01', to: '2026-03-31', groupBy: 'agent' });
    expect(whole.rows.map((row) => [row.runId, row.projectName])).toEqual([
      ['run_new', 'checkout'],
      ['run_mid', 'checkout'],
      ['run_old', 'Removed project'],
    ]);
    expect(whole.rows[0]).toMatchObject({
      day: '2026-03-04',
      attemptNumber: 2,
      taskTitle: 'Plan the refund flow',
      agentName: 'Codex fast',
      connectionName: 'Team key',
      providerId: 'codex',
      model: 'gpt-5',
      billing: 'api_key',
    });

    const cut = buildUsageReport(l, table, { from: '2026-03-01', to: '2026-03-31', groupBy: 'agent' }, 2);
    expect(cut.rows.map((row) => row.runId)).toEqual(['run_new', 'run_mid']);
    expect(cut.rowsTruncated).toBe(true);
    expect(cut.total.tokens.input).toBe(3_000_000);
    expect(cut.days.reduce((sum, day) => sum + day.series.reduce((daySum, point) => daySum + point.tokens, 0), 0)).toBe(3_300_000);

    // One project only.
    const one = buildUsageReport(l, table, { from: '2026-03-01', to: '2026-03-31', groupBy: 'agent', projectId: 'prj_gone' });
    expect(one.rows.map((row) => row.runId)).toEqual(['run_old']);
    expect(one.query.projectId).toBe('prj_gone');
  });

  it('refuses a day the calendar does not have, and a range of more than ten years', () => {
    const l = freshLedger('invalid');
    expect(() => buildUsageReport(l, table, { from: '2026-02-30', to: '2026-03-02', groupBy: 'agent' })).toThrow(
      expect.objectContaining({ code: 'invalid_request', message: 'From is not a day of the calendar: 2026-02-30.' }),
    );
    expect(() => buildUsageReport(l, table, { from: '2000-01-01', to: '2026-03-02', groupBy: 'agent' })).toThrow(
      expect.objectContaining({ code: 'invalid_request', message: 'A usage range is at most 3660 days; choose a shorter one.' }),
    );
  });
});

describe('the usage and price channels', () => {
  let bed: RunTestBed;
  afterEach(async () => {
    await bed?.close();
  });

  it('prices the report with the operator’s table once saved, tells the renderer, and goes back to the shipped one', async () => {
    bed = await openRunTestBed();
    const events: string[] = [];
    bed.core.events.listen((event) => events.push(event));
    const today = new Date();
    const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    bed.core.ledger.usage.record(usage({ startedAt: Date.now(), projectId: bed.projectId, priceProvider: 'openai', model: 'fixture-model' }));

    const shipped = await bed.call('getPriceTable');
    expect(shipped.edited).toBe(false);
    expect(shipped.defaultsCheckedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(shipped.table.entries.length).toBeGreaterThan(0);
    const before = await bed.call('getUsageReport', { from: day, to: day, groupBy: 'agent' });
    expect(before.total.cost).toEqual({ amount: null, currency: 'USD', basis: 'unpriced', unpricedModels: ['fixture-model (openai)'], unpricedTokens: 1_100_000 });
    expect(before.rows[0]!.projectName).toBe(bed.core.ledger.projects.get(bed.projectId)!.name);

    const entries = [...shipped.table.entries, { provider: 'openai', model: 'fixture-*', inputPerMillion: 2, outputPerMillion: 20, cachedInputPerMillion: 0.2 }];
    const saved = await bed.call('setPriceTable', { table: { currency: 'USD', entries } });
    expect(saved.edited).toBe(true);
    expect(events).toContain('pricesChanged');
    expect((await bed.call('getPriceTable')).table.entries).toEqual(entries);
    // 1M input at $2 + 100k output at $20.
    const after = await bed.call('getUsageReport', { from: day, to: day, groupBy: 'agent' });
    expect(after.total.cost).toEqual({ amount: 4, currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 });

    events.length = 0;
    const reset = await bed.call('setPriceTable', { table: null });
    expect(reset).toEqual(shipped);
    expect(events).toEqual(['pricesChanged']);
  });

  it('refuses a table that prices one model twice, and a range that ends before it starts, with stable codes', async () => {
    bed = await openRunTestBed();
    const entry = { provider: 'openai', model: 'gpt-5', inputPerMillion: 1, outputPerMillion: 2, cachedInputPerMillion: 0.1 };
    await expect(bed.call('setPriceTable', { table: { currency: 'USD', entries: [entry, { ...entry, provider: 'custom' }, { ...entry, inputPerMillion: 3 }] } })).rejects.toMatchObject({
      code: 'invalid_request',
      reason: 'price_repeated',
      message: 'Rows 1 and 3 both price gpt-5 (openai): keep one of them.',
    });
    expect((await bed.call('getPriceTable')).edited).toBe(false);
    await expect(bed.call('setPriceTable', { table: { currency: 'USD', entries: [{ ...entry, outputPerMillion: -1 }] } })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(bed.call('getUsageReport', { from: '2026-03-05', to: '2026-03-01', groupBy: 'agent' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
