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
}

export const seriesDataKey = (index: number) => `s${index}`;

export function dailyChartEntries(report: UsageReport, measure: UsageMeasure): DailyChartEntry[] {
  const position = new Map(report.series.map((series, index) => [series.key, index]));
  return report.days.map((day) => {
    const values: Record<string, number> = Object.fromEntries(report.series.map((_, index) => [seriesDataKey(index), 0]));
    let total = 0;
    for (const point of day.series) {
      const value = measure === 'tokens' ? point.tokens : point.cost;
      values[seriesDataKey(position.get(point.key)!)] = value;
      total += value;
    }
    return { day: day.day, values, total };
  });
}

/** Whether any day has something to draw in this measure (a range of subscription runs has no cost). */
export function hasAnyValue(entries: readonly DailyChartEntry[]): boolean {
  return entries.some((entry) => entry.total > 0);
}
