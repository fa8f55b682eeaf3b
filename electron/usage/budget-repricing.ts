import type { EventHub } from '../events/event-hub';
import type { BudgetService } from './budget-service';

/** An edited price table prices money already spent anew: cost budgets are looked at again. */
export function repriceBudgetsOnPriceChange(events: EventHub, budgets: BudgetService): void {
  events.listen((event) => {
    if (event === 'pricesChanged') budgets.pricesChanged();
  });
}
