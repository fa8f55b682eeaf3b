import { useId } from 'react';
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import type { UsageReport } from '../../../shared/usage';
import { CostEstimateText } from './cost-estimate';
import { seriesColor } from './usage-daily-chart';
import { formatEstimate, formatMoney, formatTokens } from './usage-format';

const tickLength = 28;

/**
 * The tasks that cost most in the range (then those that used most tokens): a bar each, and the
 * same tasks as a numbered list with their estimate and tokens, which is what screen readers read.
 */
export function TopTasks({ report }: { report: UsageReport }) {
  const headingId = useId();
  const tasks = report.topTasks;
  const priced = tasks.filter((task) => (task.cost.amount ?? 0) > 0);
  // By id on the axis: two tasks may share a title.
  const data = priced.map((task) => ({ taskId: task.taskId, cost: task.cost.amount ?? 0 }));
  const titles = new Map(priced.map((task) => [task.taskId, task.taskTitle]));
  const titleOf = (taskId: unknown) => (typeof taskId === 'string' ? (titles.get(taskId) ?? taskId) : '');
  return (
    <section className="usage-section top-tasks" aria-labelledby={headingId}>
      <h2 id={headingId} className="section-title">
        Top tasks by estimated cost
      </h2>
      {tasks.length === 0 ? (
        <p className="muted">No task used anything in these days.</p>
      ) : (
        <div className="top-tasks__body">
          {priced.length > 0 ? (
            <figure className="usage-chart top-tasks__chart">
              <BarChart
                responsive
                layout="vertical"
                data={data}
                width="100%"
                height={Math.max(120, data.length * 34 + 40)}
                title="Estimated cost of the top tasks"
                desc="A bar per task; the list beside it has each task's estimate and tokens."
                role="img"
                margin={{ top: 4, right: 16, bottom: 4, left: 4 }}
              >
                <CartesianGrid horizontal={false} strokeDasharray="3 3" />
                <XAxis type="number" tickFormatter={(value: number) => formatMoney(value)} />
                <YAxis
                  type="category"
                  dataKey="taskId"
                  width={180}
                  tickFormatter={(taskId: string) => {
                    const title = titleOf(taskId);
                    return title.length > tickLength ? `${title.slice(0, tickLength - 1)}…` : title;
                  }}
                />
                <Tooltip labelFormatter={titleOf} formatter={(value) => formatEstimate(Number(value))} wrapperClassName="usage-chart__tooltip" />
                <Bar dataKey="cost" name="Estimated cost" fill={seriesColor(0)} isAnimationActive={false} />
              </BarChart>
            </figure>
          ) : (
            <p className="muted">No estimated cost in these days: the tasks are in order of tokens.</p>
          )}
          <ol className="top-tasks__list" aria-labelledby={headingId}>
            {tasks.map((task) => (
              <li key={task.taskId} className="top-tasks__item">
                <span className="top-tasks__title">{task.taskTitle}</span>
                <span className="top-tasks__numbers">
                  <CostEstimateText cost={task.cost} compact /> · {formatTokens(task.tokens)} tokens
                </span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}
