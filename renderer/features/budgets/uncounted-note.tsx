import { Link } from 'wouter';
import { actionPath } from '../../../shared/routes';
import { unpricedModelLabel, type Budget } from '../../../shared/usage';
import { uncountedExplanation } from './budget-labels';

/** A money budget with tokens the price table cannot price: what that means, and a link to set each price. */
export function UncountedNote({ budget }: { budget: Budget }) {
  return (
    <div className="callout callout--warning budget-uncounted" role="note">
      <p>{uncountedExplanation(budget)}</p>
      <p>
        {budget.unpriced.models.map((entry, index) => (
          <span key={unpricedModelLabel(entry.priceProvider, entry.model)}>
            {index > 0 ? ' · ' : null}
            <Link href={actionPath({ kind: 'settings-prices', addPrice: entry })}>Set a price for {unpricedModelLabel(entry.priceProvider, entry.model)}</Link>
          </span>
        ))}
      </p>
    </div>
  );
}
