import { z } from 'zod';

/**
 * Usage and money (issue 14): the tokens each attempt used as its CLI reported them, what they are
 * estimated to cost by the price table, and the budgets admission holds runs to. The domain objects
 * as the renderer sees them; the channels are in shared/channels/usage.ts.
 *
 * Token counts are normalized across the CLIs: `input` is every input token the model read, cached
 * ones included, and `cachedInput` is the part of it read from a cache; `output` is every token the
 * model wrote, reasoning included, and `reasoning` is the part of it spent thinking, where reported.
 */

const timestamp = z.string(); // ISO 8601
/** A calendar day in the console's time zone, `YYYY-MM-DD`. */
export const calendarDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');

export const tokenCountsSchema = z.object({
  input: z.number().int().min(0),
  output: z.number().int().min(0),
  cachedInput: z.number().int().min(0),
  reasoning: z.number().int().min(0),
});
export type TokenCounts = z.infer<typeof tokenCountsSchema>;

export const noTokens: TokenCounts = { input: 0, output: 0, cachedInput: 0, reasoning: 0 };

export function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  return { input: a.input + b.input, output: a.output + b.output, cachedInput: a.cachedInput + b.cachedInput, reasoning: a.reasoning + b.reasoning };
}

/** Input and output together: what a token budget counts. */
export function totalTokens(tokens: TokenCounts): number {
  return tokens.input + tokens.output;
}

/**
 * How a run's usage is paid for, fixed at admission: `api_key` through a managed connection's key
 * (priced), `subscription` through a subscription token (tokens shown, never money: the plan pays),
 * `operator_login` through the operator's own login in a preconfigured home (priced, since the
 * console cannot tell a key from a plan there; the UI says so).
 */
export const billingKinds = ['api_key', 'subscription', 'operator_login'] as const;
export type BillingKind = (typeof billingKinds)[number];

/**
 * How a CLI's usage reports were turned into an attempt's share, in words for the run detail:
 * `per_call` each report is one model call (summed); `per_invocation` each report is the total of
 * this CLI process so far (the last one counts); `per_session` each report is the total of the CLI's
 * session since it began, earlier turns included (a resumed turn counts what it added: the
 * difference from the session's total at the end of the previous attempt).
 */
export const usageCountings = ['per_call', 'per_invocation', 'per_session'] as const;
export type UsageCounting = (typeof usageCountings)[number];

/** A price per million tokens, in the table's currency. */
const pricePerMillion = z.number().min(0).max(100_000);

export const priceEntrySchema = z.object({
  /** The model provider whose API bills the tokens (the connection's provider: openai, anthropic, google, openrouter, custom). */
  provider: z.string().trim().min(1).max(64),
  /** The model id; a trailing `*` matches every model id that starts with what comes before it. */
  model: z.string().trim().min(1).max(200),
  inputPerMillion: pricePerMillion,
  outputPerMillion: pricePerMillion,
  cachedInputPerMillion: pricePerMillion,
});
export type PriceEntry = z.infer<typeof priceEntrySchema>;

export const priceTableSchema = z.object({
  currency: z.literal('USD'),
  entries: z.array(priceEntrySchema).max(500),
});
export type PriceTable = z.infer<typeof priceTableSchema>;

/** The table in use, and whether the operator edited it (else it is resources/prices.json as shipped). */
export const priceTableStateSchema = z.object({
  table: priceTableSchema,
  edited: z.boolean(),
  /** When the shipped table's prices were last checked against the providers' published prices. */
  defaultsCheckedOn: calendarDay,
});
export type PriceTableState = z.infer<typeof priceTableStateSchema>;

/**
 * A cost estimate. `amount` is null when there is no money to show: a subscription (`subscription`)
 * or a model the table has no price for (`unpriced`, with the model named so the operator can add it).
 * Tokens with no price are never folded into the amount as if they cost nothing: they are carried
 * beside it (`unpricedTokens`), and every display of the amount says so.
 */
export const costEstimateSchema = z.object({
  amount: z.number().min(0).nullable(),
  currency: z.literal('USD'),
  basis: z.enum(['priced', 'subscription', 'unpriced', 'partly_priced']),
  /** What could not be priced ("gpt-9 (openai)"), for the label; empty when all of it was. */
  unpricedModels: z.array(z.string()),
  /** Input and output tokens billed per token whose model has no price: not in `amount`. */
  unpricedTokens: z.number().int().min(0),
});
export type CostEstimate = z.infer<typeof costEstimateSchema>;

/** How a model without a price is named wherever it is shown: `gpt-9 (openai)`. */
export function unpricedModelLabel(priceProvider: string, model: string): string {
  return `${model} (${priceProvider})`;
}

/** One attempt's usage, as the run detail lists it. */
export const attemptUsageSchema = z.object({
  attemptNumber: z.number().int().min(1),
  tokens: tokenCountsSchema,
  cost: costEstimateSchema,
  counting: z.enum(usageCountings),
  /** How many usage reports the CLI printed for this attempt. */
  reports: z.number().int().min(0),
});
export type AttemptUsage = z.infer<typeof attemptUsageSchema>;

/** A run's usage: per attempt and in total. `reported` is false when the CLI printed no usage at all (a plain command). */
export const runUsageSchema = z.object({
  reported: z.boolean(),
  billing: z.enum(billingKinds),
  providerId: z.string(),
  model: z.string(),
  attempts: z.array(attemptUsageSchema),
  total: tokenCountsSchema,
  cost: costEstimateSchema,
});
export type RunUsage = z.infer<typeof runUsageSchema>;

export const usageGroupings = ['agent', 'connection'] as const;
export type UsageGrouping = (typeof usageGroupings)[number];

/** A Usage page question: which days (inclusive, the console's time zone), stacked by what. */
export const usageQuerySchema = z
  .strictObject({
    from: calendarDay,
    to: calendarDay,
    groupBy: z.enum(usageGroupings),
    projectId: z.string().min(1).max(200).optional(),
  })
  .refine((query) => query.from <= query.to, { message: 'from must not be after to', path: ['from'] });
export type UsageQuery = z.infer<typeof usageQuerySchema>;

/** One row of the Usage table (and of its CSV): one attempt that reported usage. */
export const usageRowSchema = z.object({
  day: calendarDay,
  runId: z.string(),
  attemptNumber: z.number().int().min(1),
  taskId: z.string(),
  taskTitle: z.string(),
  projectId: z.string(),
  projectName: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  /** Null when the run used no managed connection (the operator's own login). */
  connectionId: z.string().nullable(),
  connectionName: z.string().nullable(),
  providerId: z.string(),
  model: z.string(),
  billing: z.enum(billingKinds),
  tokens: tokenCountsSchema,
  cost: costEstimateSchema,
});
export type UsageRow = z.infer<typeof usageRowSchema>;

/** One stack of a day's bar: an agent or a connection (key `none` for runs without a connection). */
export const usageSeriesPointSchema = z.object({
  key: z.string(),
  label: z.string(),
  tokens: z.number().int().min(0),
  /** The estimate of what was priced; the tokens with no price are in `unpricedTokens`, not in it. */
  cost: z.number().min(0),
  unpricedTokens: z.number().int().min(0),
});

export const usageReportSchema = z.object({
  query: z.object({ from: calendarDay, to: calendarDay, groupBy: z.enum(usageGroupings), projectId: z.string().nullable() }),
  /** Every day of the range, oldest first, empty days included. */
  days: z.array(z.object({ day: calendarDay, series: z.array(usageSeriesPointSchema) })),
  /** Every key that appears in `days`, with its label, in a stable order (for the chart's legend and colours). */
  series: z.array(z.object({ key: z.string(), label: z.string() })),
  /** The tasks that cost most in the range, most first (at most ten). */
  topTasks: z.array(z.object({ taskId: z.string(), taskTitle: z.string(), tokens: z.number().int().min(0), cost: costEstimateSchema })),
  total: z.object({ tokens: tokenCountsSchema, cost: costEstimateSchema }),
  rows: z.array(usageRowSchema),
  /** True when `rows` was cut at the limit (the totals and charts still count everything). */
  rowsTruncated: z.boolean(),
});
export type UsageReport = z.infer<typeof usageReportSchema>;

// Budgets -------------------------------------------------------------------------------------------

export const budgetScopes = ['connection', 'agent'] as const;
export type BudgetScope = (typeof budgetScopes)[number];
export const budgetPeriods = ['day', 'month'] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];
/** `cost`: estimated money in the price table's currency; `tokens`: input and output tokens together. */
export const budgetMeasures = ['cost', 'tokens'] as const;
export type BudgetMeasure = (typeof budgetMeasures)[number];

export const budgetInputSchema = z.strictObject({
  scope: z.enum(budgetScopes),
  /** The connection's or the agent's id. */
  targetId: z.string().min(1).max(200),
  measure: z.enum(budgetMeasures),
  period: z.enum(budgetPeriods),
  /** In the currency for `cost`, in tokens for `tokens`. */
  limit: z.number().positive().max(1e12),
});
export type BudgetInput = z.infer<typeof budgetInputSchema>;

export const budgetSchema = z.object({
  id: z.string(),
  scope: z.enum(budgetScopes),
  targetId: z.string(),
  /** The connection's or agent's name (or what it was, if it was deleted). */
  targetName: z.string(),
  measure: z.enum(budgetMeasures),
  period: z.enum(budgetPeriods),
  limit: z.number(),
  /**
   * What the current period has used so far, in the budget's measure. For a money budget, only what
   * the price table could price: `unpriced` holds the rest.
   */
  spent: z.number().min(0),
  /**
   * A money budget's usage in the current period that the price table has no price for: its tokens
   * and the models they were of. A money budget with any cannot tell whether it is reached, so the
   * runs it holds are refused until the price is set (reason `budget_unpriced`). Always none for a
   * token budget, and for tokens a subscription paid (they add no money by design).
   */
  unpriced: z.object({
    tokens: z.number().int().min(0),
    models: z.array(z.object({ priceProvider: z.string(), model: z.string() })),
  }),
  periodStart: timestamp,
  /** When the period rolls over and the budget is whole again. */
  resetsAt: timestamp,
  exhausted: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type Budget = z.infer<typeof budgetSchema>;

/** The refusal reason of a run whose budget is spent (code `configuration_incomplete`). */
export const budgetExhausted = 'budget_exhausted';

/**
 * The refusal reason of a run held by a money budget that cannot count it: the run's model has no
 * price, or the budget's period already holds tokens with no price (code `configuration_incomplete`).
 */
export const budgetUnpriced = 'budget_unpriced';

/**
 * Whether a budget can say what it has used: a money budget whose period holds tokens with no price
 * cannot (its `spent` is only what was priced). A reached budget is reached whatever else it holds.
 */
export function budgetUncounted(budget: Pick<Budget, 'measure' | 'unpriced' | 'exhausted'>): boolean {
  return budget.measure === 'cost' && !budget.exhausted && budget.unpriced.tokens > 0;
}
