import { z } from 'zod';
import { budgetInputSchema, budgetSchema, priceTableSchema, priceTableStateSchema, runUsageSchema, usageQuerySchema, usageReportSchema } from '../usage';
import { channel, entityId, noInput } from './channel';

/** Usage and estimated cost, the price table, and budgets. */

export const usageChannels = {
  /** A run's usage per attempt and in total, with the estimated cost. */
  getRunUsage: channel(z.strictObject({ runId: entityId }), runUsageSchema),
  /** The Usage page: a date range's usage by day (stacked by agent or connection), top tasks, and the rows. */
  getUsageReport: channel(usageQuerySchema, usageReportSchema),
  getPriceTable: channel(noInput, priceTableStateSchema),
  /** Saves the operator's price table; `table: null` goes back to the shipped one. */
  setPriceTable: channel(z.strictObject({ table: priceTableSchema.nullable() }), priceTableStateSchema),
  listBudgets: channel(noInput, z.array(budgetSchema)),
  /** Creates a budget, or changes the one named by `budgetId`. One budget per scope, target, measure and period. */
  saveBudget: channel(budgetInputSchema.extend({ budgetId: entityId.optional() }), budgetSchema),
  deleteBudget: channel(z.strictObject({ budgetId: entityId }), z.object({ budgetId: z.string() })),
} as const;
