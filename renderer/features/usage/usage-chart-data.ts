import type { UsageReport } from '../../../shared/usage';
import type { UsageMeasure } from './usage-view';

/**
 * The report's days as the stacked bar chart takes them: one entry per day, one value per series.
 * Series go by position (`s0`, `s1`, …), not by id: recharts reads a string data key as a path, and
 * an id with a dot in it would be read as two.
 */
export interface DailyChartEntry {
  day: string;
  /** Every series' value that day (0 where it used nothing), by data key. */
  values: Record<string, number>;
  total: number;
  /**
   * In cost: the tokens of each series that day whose model has no price (by data key), and their
   * sum. They are not in the bars' money, and every figure of it says so. Empty in tokens.
   */
  unpriced: Record<string, number>;
  unpricedTotal: number;
}

export const seriesDataKey = (index: number) => `s${index}`;

export function dailyChartEntries(report: UsageReport, measure: UsageMeasure): DailyChartEntry[] {
  const position = new Map(report.series.map((series, index) => [series.key, index]));
  return report.days.map((day) => {
    const values: Record<string, number> = Object.fromEntries(report.series.map((_, index) => [seriesDataKey(index), 0]));
    const unpriced: Record<string, number> = {};
    let total = 0;
    let unpricedTotal = 0;
    for (const point of day.series) {
      const key = seriesDataKey(position.get(point.key)!);
      const value = measure === 'tokens' ? point.tokens : point.cost;
      values[key] = value;
      total += value;
      if (measure === 'cost' && point.unpricedTokens > 0) {
        unpriced[key] = point.unpricedTokens;
        unpricedTotal += point.unpricedTokens;
      }
    }
    return { day: day.day, values, total, unpriced, unpricedTotal };
  });
}

/**
 * Whether any day has something to draw in this measure (a range of subscription runs has no cost;
 * one of unpriced models has none either, but the chart says how many tokens it could not price).
 */
export function hasAnyValue(entries: readonly DailyChartEntry[]): boolean {
  return entries.some((entry) => entry.total > 0);
}

/** The tokens with no price in the whole range (cost only): what the cost chart's money leaves out. */
export function unpricedInRange(entries: readonly DailyChartEntry[]): number {
  return entries.reduce((sum, entry) => sum + entry.unpricedTotal, 0);
}
