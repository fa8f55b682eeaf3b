import { OperatorError } from '../../shared/errors';
import type { PriceTable, PriceTableState } from '../../shared/usage';
import type { EventHub } from '../events/event-hub';
import type { PriceTableStore } from './price-table-store';

/**
 * Settings → Prices: reads the table in use and saves the operator's edit (or goes back to the
 * shipped one). Every estimate changes with it, so the renderer is told to refetch them.
 */
export class PriceSettings {
  constructor(
    private readonly prices: PriceTableStore,
    private readonly events: EventHub,
  ) {}

  get(): PriceTableState {
    return this.prices.state();
  }

  set(table: PriceTable | null): PriceTableState {
    if (table) requireOnePricePerModel(table);
    const state = this.prices.save(table);
    this.events.emit('pricesChanged', {});
    return state;
  }
}

/**
 * Two rows for one provider and model would leave it to row order which price counts, and the
 * operator would not see which: refused, naming both rows (numbered as the Settings table shows them).
 */
export function requireOnePricePerModel(table: PriceTable): void {
  const seen = new Map<string, number>();
  table.entries.forEach((entry, index) => {
    const key = JSON.stringify([entry.provider, entry.model]);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new OperatorError({
        code: 'invalid_request',
        reason: 'price_repeated',
        message: `Rows ${earlier + 1} and ${index + 1} both price ${entry.model} (${entry.provider}): keep one of them.`,
      });
    }
    seen.set(key, index);
  });
}
