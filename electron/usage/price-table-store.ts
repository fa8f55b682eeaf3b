import { priceTableSchema, type PriceTable, type PriceTableState } from '../../shared/usage';
import type { Ledger } from '../ledger/ledger';
import { loadShippedPrices, type ShippedPrices } from './price-book';

const pricesKey = 'usage.prices';

/**
 * The price table in use: the operator's, once they edited it in Settings → Prices, else the one
 * shipped in resources/usage/prices.json. A saved table another version wrote that no longer parses
 * is ignored (the shipped one is used) rather than trusted.
 */
export class PriceTableStore {
  private shipped: ShippedPrices | null = null;

  constructor(
    private readonly ledger: Ledger,
    private readonly now: () => number = Date.now,
    private readonly shippedFile?: string,
  ) {}

  current(): PriceTable {
    return this.state().table;
  }

  state(): PriceTableState {
    const shipped = this.shippedTable();
    const saved = priceTableSchema.safeParse(this.ledger.settings.read(pricesKey));
    const table = saved.success ? saved.data : { currency: shipped.currency, entries: shipped.entries };
    return { table, edited: saved.success, defaultsCheckedOn: shipped.checkedOn };
  }

  /** Saves the operator's table; null goes back to the shipped one. */
  save(table: PriceTable | null): PriceTableState {
    this.ledger.settings.write(pricesKey, table, this.now());
    return this.state();
  }

  private shippedTable(): ShippedPrices {
    this.shipped ??= loadShippedPrices(this.shippedFile);
    return this.shipped;
  }
}
