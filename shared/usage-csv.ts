import type { CostEstimate, UsageRow } from './usage';
import { billingLabels, ownLoginConnectionLabel } from './usage-labels';

/**
 * The Usage table as CSV (RFC 4180: comma-separated, CRLF line ends, a field quoted when it holds a
 * comma, a quote or a line break, its quotes doubled). Pure, so the file an operator exports is
 * tested without a browser.
 *
 * Task titles, agent and connection names are the operator's (or an imported plan's) text. A cell a
 * spreadsheet would read as a formula (`=`, `+`, `-`, `@`, or a tab or carriage return first) gets a
 * leading `'`, so that opening the export never runs anything.
 */

export const usageCsvHeader = [
  'Day',
  'Run',
  'Attempt',
  'Task',
  'Project',
  'Agent',
  'Connection',
  'Provider',
  'Model',
  'Billing',
  'Input tokens',
  'Cached input tokens',
  'Output tokens',
  'Reasoning tokens',
  'Estimated cost (USD, estimate)',
  'Cost note',
] as const;

/** `usage-2026-03-01-to-2026-03-31.csv` */
export function usageCsvFileName(from: string, to: string): string {
  return `usage-${from}-to-${to}.csv`;
}

/** The rows as a CSV text: the header, then one line per row, each line ending in CRLF. */
export function usageCsv(rows: readonly UsageRow[]): string {
  const lines = [usageCsvHeader.map(textCell), ...rows.map(rowCells)];
  return lines.map((cells) => `${cells.join(',')}\r\n`).join('');
}

function rowCells(row: UsageRow): string[] {
  return [
    textCell(row.day),
    textCell(row.runId),
    String(row.attemptNumber),
    textCell(row.taskTitle),
    textCell(row.projectName),
    textCell(row.agentName),
    textCell(row.connectionName ?? ownLoginConnectionLabel),
    textCell(row.providerId),
    textCell(row.model),
    textCell(billingLabels[row.billing]),
    String(row.tokens.input),
    String(row.tokens.cachedInput),
    String(row.tokens.output),
    String(row.tokens.reasoning),
    // Empty, not 0, when there is no money to show: a subscription's tokens cost nothing extra, and an unpriced model's are unknown.
    row.cost.amount === null ? '' : amountText(row.cost.amount),
    textCell(costNote(row.cost)),
  ];
}

/** Six decimals (a millionth of a dollar) without trailing zeros: what a per-attempt estimate can mean. */
function amountText(amount: number): string {
  return String(Number(amount.toFixed(6)));
}

/** Why a cost cell is empty or partial, in words. */
export function costNote(cost: CostEstimate): string {
  switch (cost.basis) {
    case 'priced':
      return '';
    case 'subscription':
      return 'Subscription: tokens only, no cost';
    case 'unpriced':
      return `No price for ${cost.unpricedModels.join(', ')}`;
    case 'partly_priced':
      return `Not counted, no price: ${cost.unpricedModels.join(', ')}`;
  }
}

const formulaStart = /^[=+\-@\t\r]/;
const needsQuotes = /[",\r\n]/;

function textCell(value: string): string {
  const safe = formulaStart.test(value) ? `'${value}` : value;
  return needsQuotes.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
