import { describe, expect, it } from 'vitest';
import { aUsageReport } from '../../testing/usage-fixtures';
import { dailyChartEntries, hasAnyValue } from './usage-chart-data';

describe('the daily chart’s data', () => {
  it('has a value for every series on every day, zero where it used nothing, in tokens or cost', () => {
    const report = aUsageReport({
      series: [
        { key: 'agent.with.dots', label: 'Dotted' },
        { key: 'agent_1', label: 'Codex writer' },
      ],
      days: [
        { day: '2026-03-01', series: [{ key: 'agent.with.dots', label: 'Dotted', tokens: 10, cost: 0.5 }] },
        {
          day: '2026-03-02',
          series: [
            { key: 'agent.with.dots', label: 'Dotted', tokens: 5, cost: 0 },
            { key: 'agent_1', label: 'Codex writer', tokens: 20, cost: 1.25 },
          ],
        },
      ],
    });
    expect(dailyChartEntries(report, 'tokens')).toEqual([
      { day: '2026-03-01', values: { s0: 10, s1: 0 }, total: 10 },
      { day: '2026-03-02', values: { s0: 5, s1: 20 }, total: 25 },
    ]);
    expect(dailyChartEntries(report, 'cost').map((entry) => entry.total)).toEqual([0.5, 1.25]);
  });

  it('has nothing to draw in cost when all of it was on a subscription', () => {
    const report = aUsageReport({ days: [{ day: '2026-03-02', series: [{ key: 'agent_1', label: 'Codex writer', tokens: 20, cost: 0 }] }] });
    expect(hasAnyValue(dailyChartEntries(report, 'cost'))).toBe(false);
    expect(hasAnyValue(dailyChartEntries(report, 'tokens'))).toBe(true);
  });
});
