import type { AiConnection } from '../../shared/entities';
import type { BillingKind, PriceTable } from '../../shared/usage';
import type { ProviderEntry } from '../providers/catalog';
import type { AdmittedConnection } from '../ledger/run-admission';
import type { PriceTarget } from './budget-rule';
import { findPrice } from './price-book';

/**
 * How a run's tokens are paid for, fixed at admission: the connection whose key was delivered to it
 * (a subscription token's plan pays, so no money is shown; an API key is billed per token), or, with
 * none delivered, the operator's own login in a preconfigured home (priced: the console cannot tell
 * a key from a plan there).
 */
export function billingOf(connection: Pick<AdmittedConnection, 'method'> | null): BillingKind {
  if (!connection) return 'operator_login';
  return connection.method === 'subscription_token' ? 'subscription' : 'api_key';
}

/**
 * Whose price list the tokens are looked up in: the delivered connection's provider (the API the
 * key bills), else the API the CLI speaks by itself. A CLI that speaks to several (Pi) names its
 * models `<provider>/<model>`: the prefix says which, when it is one the CLI can use; otherwise the
 * CLI's first provider.
 */
export function priceProviderOf(
  connection: Pick<AdmittedConnection, 'provider'> | null,
  provider: Pick<ProviderEntry, 'connectionProviders'> | undefined,
  model: string,
): string {
  if (connection) return connection.provider;
  const own = provider?.connectionProviders ?? [];
  const slash = model.indexOf('/');
  const prefix = slash > 0 ? model.slice(0, slash) : null;
  if (prefix && own.includes(prefix as AiConnection['provider'])) return prefix;
  return own[0] ?? prefix ?? 'custom';
}

/**
 * The model a run would be priced as, when the price table has no price for it and its tokens are
 * billed per token (null when it is priced, or a subscription pays): what a money budget cannot count.
 * The same billing and price provider the usage recorder writes for the run's attempts.
 */
export function unpricedRunModel(
  table: PriceTable,
  connection: Pick<AdmittedConnection, 'provider' | 'method'> | null,
  provider: Pick<ProviderEntry, 'connectionProviders'> | undefined,
  model: string,
): PriceTarget | null {
  if (billingOf(connection) === 'subscription') return null;
  const priceProvider = priceProviderOf(connection, provider, model);
  return findPrice(table, priceProvider, model) ? null : { priceProvider, model };
}
