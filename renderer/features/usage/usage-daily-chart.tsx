import { useId } from 'react';
import { autoPalette, Bar, BarChart, CartesianGrid, Legend, Rectangle, Tooltip, XAxis, YAxis, type BarShapeProps } from 'recharts';
import type { UsageReport } from '../../../shared/usage';
import { dailyChartEntries, hasAnyValue, seriesDataKey, unpricedInRange } from './usage-chart-data';
import { formatCompactTokens, formatDayLong, formatDayShort, formatEstimate, formatMoney, formatTokens, tokenCount, unpricedTokensText } from './usage-format';
import type { UsageMeasure } from './usage-view';

/** The chart's colours follow the page's colour scheme (light-dark() values, recharts' autoPalette). */
export function seriesColor(index: number): string {
  return autoPalette[index % autoPalette.length]!;
}

export const groupingWords = { agent: 'agent', connection: 'AI connection' } as const;

/** A value of the chart in words; in cost, with the tokens it could not price beside the money, never as nothing. */
function measureValue(measure: UsageMeasure, value: number, unpricedTokens = 0): string {
  if (measure === 'tokens') return `${formatTokens(value)} tokens`;
  return unpricedTokens > 0 ? `${formatEstimate(value)} + ${unpricedTokensText(unpricedTokens)}` : formatEstimate(value);
}

/**
 * Each day of the range as a bar, stacked by agent or connection, in tokens or estimated cost. The
 * chart is a picture with a name and a description; the same numbers are in a table that only
 * screen readers see, and in the tooltip of each bar (also from the keyboard: recharts moves it with
 * the arrow keys once the chart has focus).
 */
export function UsageDailyChart({ report, measure }: { report: UsageReport; measure: UsageMeasure }) {
  const captionId = useId();
  const entries = dailyChartEntries(report, measure);
  const what = measure === 'tokens' ? 'Tokens' : 'Estimated cost';
  const by = groupingWords[report.query.groupBy];
  const title = `${what} by day, stacked by ${by}`;
  const busiest = entries.reduce((best, entry) => (entry.total > (best?.total ?? 0) ? entry : best), entries[0]);
  const description = hasAnyValue(entries)
    ? `${entries.length} days from ${formatDayLong(report.query.from)} to ${formatDayLong(report.query.to)}; the most on ${formatDayLong(busiest!.day)}, ${measureValue(measure, busiest!.total)}. The table after the chart has every day's numbers.`
    : `Nothing to show from ${formatDayLong(report.query.from)} to ${formatDayLong(report.query.to)}.`;
  const data = entries.map((entry) => ({ day: entry.day, ...entry.values }));
  const unpricedByDay = new Map(entries.map((entry) => [entry.day, entry.unpriced]));
  const unpriced = unpricedInRange(entries);

  return (
    <figure className="usage-chart usage-daily-chart" aria-labelledby={captionId}>
      <figcaption id={captionId} className="usage-chart__caption">
        {title}
        {measure === 'cost' ? (
          <span className="muted">
            {' '}
            · subscriptions count no money here{unpriced > 0 ? `; ${unpricedTokensText(unpriced)} are not in these bars` : ''}
          </span>
        ) : null}
      </figcaption>
      {hasAnyValue(entries) ? (
        <BarChart responsive data={data} width="100%" height={280} title={title} desc={description} role="img" margin={{ top: 8, right: 12, bottom: 4, left: 4 }}>
          <CartesianGrid vertical={false} strokeDasharray="3 3" />
          <XAxis dataKey="day" tickFormatter={(day: string) => formatDayShort(day)} minTickGap={12} />
          <YAxis
            width={64}
            tickFormatter={(value: number) => (measure === 'tokens' ? formatCompactTokens(value) : formatMoney(value))}
            allowDecimals={measure === 'cost'}
          />
          <Tooltip
            labelFormatter={(day) => (typeof day === 'string' ? formatDayLong(day) : '')}
            formatter={(value, _name, item) => {
              const { day } = (item.payload ?? {}) as { day?: string };
              return measureValue(measure, Number(value), (day && unpricedByDay.get(day)?.[String(item.dataKey)]) || 0);
            }}
            wrapperClassName="usage-chart__tooltip"
          />
          <Legend />
          {report.series.map((series, index) => (
            <Bar
              key={series.key}
              dataKey={seriesDataKey(index)}
              name={series.label}
              stackId="day"
              fill={seriesColor(index)}
              isAnimationActive={false}
              shape={(props: BarShapeProps) => (
                // Named in the DOM so a test can find the bar of a day; the picture as a whole is the chart's image.
                <g data-day={(props.payload as { day: string }).day} data-series={series.label}>
                  <Rectangle {...props} />
                </g>
              )}
            />
          ))}
        </BarChart>
      ) : (
        <p className="usage-chart__empty muted">
          {measure === 'tokens'
            ? 'No tokens used in these days.'
            : unpriced > 0
              ? `No estimated cost in these days: ${tokenCount(unpriced)} were of models with no price.`
              : 'No estimated cost in these days.'}
        </p>
      )}
      <DailyNumbers report={report} measure={measure} entries={entries} title={title} />
    </figure>
  );
}

/** The chart's numbers for screen readers: a day per row, a column per agent or connection. */
function DailyNumbers({
  report,
  measure,
  entries,
  title,
}: {
  report: UsageReport;
  measure: UsageMeasure;
  entries: ReturnType<typeof dailyChartEntries>;
  title: string;
}) {
  return (
    <table className="visually-hidden">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">Day</th>
          {report.series.map((series) => (
            <th key={series.key} scope="col">
              {series.label}
            </th>
          ))}
          <th scope="col">Total</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.day}>
            <th scope="row">{formatDayLong(entry.day)}</th>
            {report.series.map((series, index) => (
              <td key={series.key}>{measureValue(measure, entry.values[seriesDataKey(index)] ?? 0, entry.unpriced[seriesDataKey(index)])}</td>
            ))}
            <td>{measureValue(measure, entry.total, entry.unpricedTotal)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
