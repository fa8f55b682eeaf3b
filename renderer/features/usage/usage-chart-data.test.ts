import { describe, expect, it } from 'vitest';
import { aUsageReport } from '../../testing/usage-fixtures';
import { dailyChartEntries, hasAnyValue, unpricedInRange } from './usage-chart-data';

describe('the daily chart’s data', () => {
  it('has a value for every series on every day, zero where it used nothing, in tokens or cost', () => {
    const report = aUsageReport({
      series: [
        { key: 'agent.with.dots', label: 'Dotted' },
        { key: 'agent_1', label: 'Codex writer' },
      ],
      days: [
        { day: '2026-03-01', series: [{ key: 'agent.with.dots', label: 'Dotted', tokens: 10, cost: 0.5, unpricedTokens: 0 }] },
        {
          day: '2026-03-02',
          series: [
            { key: 'agent.with.dots', label: 'Dotted', tokens: 5, cost: 0, unpricedTokens: 5 },
            { key: 'agent_1', label: 'Codex writer', tokens: 20, cost: 1.25, unpricedTokens: 0 },
          ],
        },
      ],
    });
    expect(dailyChartEntries(report, 'tokens')).toEqual([
      { day: '2026-03-01', values: { s0: 10, s1: 0 }, total: 10, unpriced: {}, unpricedTotal: 0 },
      { day: '2026-03-02', values: { s0: 5, s1: 20 }, total: 25, unpriced: {}, unpricedTotal: 0 },
    ]);
    // In cost, a series' tokens with no price are carried beside its money, not counted as $0.
    expect(dailyChartEntries(report, 'cost').map(({ total, unpriced, unpricedTotal }) => ({ total, unpriced, unpricedTotal }))).toEqual([
      { total: 0.5, unpriced: {}, unpricedTotal: 0 },
      { total: 1.25, unpriced: { s0: 5 }, unpricedTotal: 5 },
    ]);
    expect(unpricedInRange(dailyChartEntries(report, 'cost'))).toBe(5);
  });

  it('has nothing to draw in cost when all of it was on a subscription', () => {
    const report = aUsageReport({ days: [{ day: '2026-03-02', series: [{ key: 'agent_1', label: 'Codex writer', tokens: 20, cost: 0, unpricedTokens: 0 }] }] });
    expect(hasAnyValue(dailyChartEntries(report, 'cost'))).toBe(false);
    expect(hasAnyValue(dailyChartEntries(report, 'tokens'))).toBe(true);
  });
});
