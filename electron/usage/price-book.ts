import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { OperatorError } from '../../shared/errors';
import { priceTableSchema, unpricedModelLabel, type CostEstimate, type PriceEntry, type PriceTable, type TokenCounts } from '../../shared/usage';
import type { PricedTokens } from '../ledger/usage-repository';
import { findResourceFile, moduleDir } from '../platform/resource-file';

/** resources/usage/prices.json: the price table as shipped. */
const shippedPricesSchema = priceTableSchema.extend({ checkedOn: z.string() });
export type ShippedPrices = z.infer<typeof shippedPricesSchema>;

export function defaultPricesPath(fromDir = moduleDir(import.meta.url)): string {
  return findResourceFile('usage/prices.json', fromDir);
}

export function loadShippedPrices(file = defaultPricesPath()): ShippedPrices {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'price_table_unreadable',
      message: `The price table at ${file} could not be read (${(error as Error).message}). Reinstall the console.`,
    });
  }
  const parsed = shippedPricesSchema.safeParse(json);
  if (!parsed.success) {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'price_table_invalid',
      message: `The price table at ${file} is not valid (${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}). Reinstall the console.`,
    });
  }
  return parsed.data;
}

/**
 * The price of a model: the entry for exactly it, else the longest `prefix*` entry that matches it.
 * A model written `provider/model` (Pi names its models so) is looked up under that provider too.
 */
export function findPrice(table: PriceTable, priceProvider: string, model: string): PriceEntry | null {
  const candidates: Array<[string, string]> = [[priceProvider, model]];
  const slash = model.indexOf('/');
  if (slash > 0) candidates.push([model.slice(0, slash), model.slice(slash + 1)]);
  for (const [provider, id] of candidates) {
    const exact = table.entries.find((entry) => entry.provider === provider && entry.model === id);
    if (exact) return exact;
    const prefixed = table.entries
      .filter((entry) => entry.provider === provider && entry.model.endsWith('*') && id.startsWith(entry.model.slice(0, -1)))
      .sort((a, b) => b.model.length - a.model.length)[0];
    if (prefixed) return prefixed;
  }
  return null;
}

/**
 * What tokens cost at a price: uncached input at the input price, cached input at the cached price,
 * output (reasoning included: providers bill thinking as output) at the output price.
 */
export function costAt(price: PriceEntry, tokens: TokenCounts): number {
  const cached = Math.min(tokens.cachedInput, tokens.input);
  return ((tokens.input - cached) * price.inputPerMillion + cached * price.cachedInputPerMillion + tokens.output * price.outputPerMillion) / 1_000_000;
}

/** Some usage billed per token whose model the table has no price for: its tokens and models. */
export interface UnpricedUsage {
  /** Input and output tokens together. */
  tokens: number;
  /** By label (`gpt-9 (openai)`), each once. */
  models: Array<{ priceProvider: string; model: string }>;
}

/**
 * Some usage priced by the table: the money of what has a price, how many items were priced or paid
 * by a subscription, and what has no price. A subscription's tokens cost nothing extra (the plan
 * pays); an unpriced model's tokens are counted apart, never as money that cost nothing.
 */
export function priceUsage(table: PriceTable, usage: readonly PricedTokens[]): { amount: number; priced: number; subscription: number; unpriced: UnpricedUsage } {
  let amount = 0;
  let priced = 0;
  let subscription = 0;
  let unpricedTokens = 0;
  const unpriced = new Map<string, { priceProvider: string; model: string }>();
  for (const item of usage) {
    if (item.billing === 'subscription') {
      subscription += 1;
      continue;
    }
    const price = findPrice(table, item.priceProvider, item.model);
    if (!price) {
      const tokens = item.tokens.input + item.tokens.output;
      if (tokens > 0) unpriced.set(unpricedModelLabel(item.priceProvider, item.model), { priceProvider: item.priceProvider, model: item.model });
      unpricedTokens += tokens;
      continue;
    }
    amount += costAt(price, item.tokens);
    priced += 1;
  }
  const models = [...unpriced.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, model]) => model);
  return { amount, priced, subscription, unpriced: { tokens: unpricedTokens, models } };
}

/**
 * The estimated cost of some usage: a run on a subscription token shows tokens, not money; a model
 * without a price is named, and its tokens are carried beside the amount (`unpricedTokens`).
 */
export function estimateCost(table: PriceTable, usage: readonly PricedTokens[]): CostEstimate {
  const { amount, priced, subscription, unpriced } = priceUsage(table, usage);
  const unpricedModels = unpriced.models.map((entry) => unpricedModelLabel(entry.priceProvider, entry.model));
  const unpricedTokens = unpriced.tokens;
  if (priced === 0 && unpricedModels.length === 0) {
    return { amount: subscription > 0 ? null : 0, currency: 'USD', basis: subscription > 0 ? 'subscription' : 'priced', unpricedModels, unpricedTokens };
  }
  if (priced === 0) return { amount: null, currency: 'USD', basis: 'unpriced', unpricedModels, unpricedTokens };
  return { amount, currency: 'USD', basis: unpricedModels.length > 0 ? 'partly_priced' : 'priced', unpricedModels, unpricedTokens };
}
