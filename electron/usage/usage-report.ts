import { OperatorError } from '../../shared/errors';
import {
  addTokens,
  noTokens,
  totalTokens,
  type CostEstimate,
  type PriceTable,
  type TokenCounts,
  type UsageQuery,
  type UsageReport,
  type UsageRow,
} from '../../shared/usage';
import { ownLoginConnectionLabel } from '../../shared/usage-labels';
import type { Ledger } from '../ledger/ledger';
import type { UsageRecord } from '../ledger/usage-repository';
import { dayOf, daysBetween, startOfDayNamed, startOfNextDay } from './calendar';
import type { PricedTokens } from '../ledger/usage-repository';
import { estimateCost } from './price-book';

/** The table lists at most this many attempts (the newest); the charts and totals count every one. */
export const usageRowLimit = 5000;
/** Ten years of days: a longer range is surely a typing slip, and would make a chart of 3,000+ bars. */
export const maxUsageRangeDays = 3660;
/** The Usage page's top tasks. */
export const topTaskCount = 10;

/** The series key of runs that used no managed connection (the operator's own login). */
export const noConnectionKey = 'none';

/**
 * Tokens summed by what prices them (price provider, model, billing), so that a cost is estimated
 * once per model rather than once per attempt, and a subscription's tokens stay unpriced.
 */
class UsageTally {
  tokens: TokenCounts = noTokens;
  private readonly byModel = new Map<string, PricedTokens>();

  add(record: UsageRecord): void {
    this.tokens = addTokens(this.tokens, record.tokens);
    const key = JSON.stringify([record.priceProvider, record.model, record.billing]);
    const known = this.byModel.get(key);
    if (known) known.tokens = addTokens(known.tokens, record.tokens);
    else this.byModel.set(key, { priceProvider: record.priceProvider, model: record.model, billing: record.billing, tokens: record.tokens });
  }

  cost(table: PriceTable): CostEstimate {
    return estimateCost(table, [...this.byModel.values()]);
  }
}

function entryOf<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** A `YYYY-MM-DD` the calendar has (the schema checks only the shape: 2026-02-30 passes it). */
function requireRealDay(day: string, field: 'from' | 'to'): void {
  if (dayOf(startOfDayNamed(day)) !== day) {
    throw new OperatorError({ code: 'invalid_request', message: `${field === 'from' ? 'From' : 'To'} is not a day of the calendar: ${day}.` });
  }
}

/**
 * The Usage page's report for a range of days in the console's time zone (both ends included): each
 * day's usage stacked by agent or by connection, the tasks that cost most, the totals, and the
 * attempts themselves (newest first, cut at `rowLimit`). An attempt counts on the day it started.
 */
export function buildUsageReport(ledger: Ledger, table: PriceTable, query: UsageQuery, rowLimit = usageRowLimit): UsageReport {
  requireRealDay(query.from, 'from');
  requireRealDay(query.to, 'to');
  if (query.from > query.to) throw new OperatorError({ code: 'invalid_request', message: `From (${query.from}) is after To (${query.to}).` });
  const start = startOfDayNamed(query.from);
  const end = startOfNextDay(startOfDayNamed(query.to));
  const days = daysBetween(query.from, query.to);
  if (days.length > maxUsageRangeDays) {
    throw new OperatorError({ code: 'invalid_request', message: `A usage range is at most ${maxUsageRangeDays} days; choose a shorter one.` });
  }

  const records = ledger.usage.inRange(start, end, query.projectId);
  const projectNames = new Map(ledger.projects.list().map((project) => [project.id, project.name]));

  const total = new UsageTally();
  // Series key → label (the latest name seen: records are oldest first), and each day's tallies by key.
  const seriesLabels = new Map<string, string>();
  const perDay = new Map<string, Map<string, UsageTally>>();
  const perTask = new Map<string, { title: string; tally: UsageTally }>();
  const rows: Array<{ startedAt: number; row: UsageRow }> = [];

  for (const record of records) {
    const day = dayOf(record.startedAt);
    total.add(record);
    const [key, label] =
      query.groupBy === 'agent'
        ? [record.agentId, record.agentName]
        : record.connectionId === null
          ? [noConnectionKey, ownLoginConnectionLabel]
          : [record.connectionId, record.connectionName ?? record.connectionId];
    seriesLabels.set(key, label);
    entryOf(entryOf(perDay, day, () => new Map<string, UsageTally>()), key, () => new UsageTally()).add(record);
    const task = entryOf(perTask, record.taskId, () => ({ title: record.taskTitle, tally: new UsageTally() }));
    task.title = record.taskTitle;
    task.tally.add(record);
    rows.push({ startedAt: record.startedAt, row: usageRow(record, day, projectNames, table) });
  }

  const seriesKeys = [...seriesLabels.keys()].sort((a, b) => seriesOrder(a, seriesLabels.get(a)!, b, seriesLabels.get(b)!));
  const amountOf = (cost: CostEstimate) => cost.amount ?? 0;
  const topTasks = [...perTask.entries()]
    .map(([taskId, task]) => ({ taskId, taskTitle: task.title, tokens: totalTokens(task.tally.tokens), cost: task.tally.cost(table) }))
    .sort((a, b) => amountOf(b.cost) - amountOf(a.cost) || b.tokens - a.tokens || a.taskTitle.localeCompare(b.taskTitle))
    .slice(0, topTaskCount);
  // Newest first: the table opens on what just happened; a cut keeps the newest.
  rows.sort((a, b) => b.startedAt - a.startedAt || a.row.runId.localeCompare(b.row.runId) || a.row.attemptNumber - b.row.attemptNumber);

  return {
    query: { from: query.from, to: query.to, groupBy: query.groupBy, projectId: query.projectId ?? null },
    days: days.map((day) => {
      const tallies = perDay.get(day);
      return {
        day,
        series: tallies
          ? seriesKeys
              .filter((key) => tallies.has(key))
              .map((key) => {
                const tally = tallies.get(key)!;
                const cost = tally.cost(table);
                // What has no price is carried beside the estimate, never folded into it as free.
                return { key, label: seriesLabels.get(key)!, tokens: totalTokens(tally.tokens), cost: amountOf(cost), unpricedTokens: cost.unpricedTokens };
              })
          : [],
      };
    }),
    series: seriesKeys.map((key) => ({ key, label: seriesLabels.get(key)! })),
    topTasks,
    total: { tokens: total.tokens, cost: total.cost(table) },
    rows: rows.slice(0, rowLimit).map((entry) => entry.row),
    rowsTruncated: rows.length > rowLimit,
  };
}

/** By name, so an agent keeps its place (and colour) whichever days are shown; runs without a connection last. */
function seriesOrder(aKey: string, aLabel: string, bKey: string, bLabel: string): number {
  if (aKey === noConnectionKey || bKey === noConnectionKey) return Number(aKey === noConnectionKey) - Number(bKey === noConnectionKey);
  return aLabel.localeCompare(bLabel, undefined, { sensitivity: 'base' }) || aKey.localeCompare(bKey);
}

function usageRow(record: UsageRecord, day: string, projectNames: Map<string, string>, table: PriceTable): UsageRow {
  return {
    day,
    runId: record.runId,
    attemptNumber: record.attemptNumber,
    taskId: record.taskId,
    taskTitle: record.taskTitle,
    projectId: record.projectId,
    // Usage outlives its project (no foreign keys): a removed one is said so rather than left blank.
    projectName: projectNames.get(record.projectId) ?? 'Removed project',
    agentId: record.agentId,
    agentName: record.agentName,
    connectionId: record.connectionId,
    connectionName: record.connectionId === null ? null : (record.connectionName ?? record.connectionId),
    providerId: record.providerId,
    model: record.model,
    billing: record.billing,
    tokens: record.tokens,
    cost: estimateCost(table, [{ priceProvider: record.priceProvider, model: record.model, billing: record.billing, tokens: record.tokens }]),
  };
}
