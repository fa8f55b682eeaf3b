import { Link } from 'wouter';
import { actionPath } from '../../../shared/routes';
import type { CostEstimate } from '../../../shared/usage';
import { formatEstimate } from './usage-format';

const pricesPath = actionPath({ kind: 'settings-prices' });

/**
 * A cost as the console shows it everywhere: an estimate ("≈ $1.23 est."), "tokens only" for a
 * subscription (the plan pays, so there is no money to show), and a model the price table lacks
 * named, with a link to Settings → Prices where its price is added.
 *
 * `compact`: where the models without a price are named, with the link, once nearby (the Usage
 * page's callout), a list of many costs only says that a part was not priced.
 */
export function CostEstimateText({ cost, compact = false }: { cost: CostEstimate; compact?: boolean }) {
  switch (cost.basis) {
    case 'priced':
      return <span className="estimate">{formatEstimate(cost.amount ?? 0)}</span>;
    case 'subscription':
      return <span className="muted">Subscription: tokens only</span>;
    case 'unpriced':
      return compact ? <span className="muted">No price</span> : <UnpricedLink models={cost.unpricedModels} />;
    case 'partly_priced':
      if (compact) {
        return (
          <span>
            <span className="estimate">{formatEstimate(cost.amount ?? 0)}</span> <span className="muted">+ unpriced</span>
          </span>
        );
      }
      return (
        <span>
          <span className="estimate">{formatEstimate(cost.amount ?? 0)}</span>{' '}
          <span className="muted">
            (not counting{' '}
            <Link href={pricesPath} className="unpriced-link">
              {cost.unpricedModels.join(', ')}: no price
            </Link>
            )
          </span>
        </span>
      );
  }
}

function UnpricedLink({ models }: { models: readonly string[] }) {
  return (
    <Link href={pricesPath} className="unpriced-link">
      No price for {models.join(', ')}
    </Link>
  );
}
