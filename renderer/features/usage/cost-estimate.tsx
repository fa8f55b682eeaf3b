import { Link } from 'wouter';
import { actionPath } from '../../../shared/routes';
import type { CostEstimate } from '../../../shared/usage';
import { formatEstimate, tokenCount, unpricedTokensText } from './usage-format';

const pricesPath = actionPath({ kind: 'settings-prices' });

/**
 * A cost as the console shows it everywhere: an estimate ("≈ $1.23 est."), "tokens only" for a
 * subscription (the plan pays, so there is no money to show), and a model the price table lacks
 * named, with how many tokens it left uncounted and a link to Settings → Prices where its price is
 * added: tokens with no price are never shown as money that cost nothing.
 *
 * `compact`: where the models without a price are named, with the link, once nearby (the Usage
 * page's callout), a list of many costs only says how many tokens were not priced.
 */
export function CostEstimateText({ cost, compact = false }: { cost: CostEstimate; compact?: boolean }) {
  switch (cost.basis) {
    case 'priced':
      return <span className="estimate">{formatEstimate(cost.amount ?? 0)}</span>;
    case 'subscription':
      return <span className="muted">Subscription: tokens only</span>;
    case 'unpriced':
      return compact ? <span className="muted">No price</span> : <UnpricedLink models={cost.unpricedModels} tokens={cost.unpricedTokens} />;
    case 'partly_priced':
      if (compact) {
        return (
          <span>
            <span className="estimate">{formatEstimate(cost.amount ?? 0)}</span> <span className="muted">+ {unpricedTokensText(cost.unpricedTokens)}</span>
          </span>
        );
      }
      return (
        <span>
          <span className="estimate">{formatEstimate(cost.amount ?? 0)}</span>{' '}
          <span className="muted">
            +{' '}
            <Link href={pricesPath} className="unpriced-link">
              {unpricedTokensText(cost.unpricedTokens)}: {cost.unpricedModels.join(', ')}
            </Link>
          </span>
        </span>
      );
  }
}

function UnpricedLink({ models, tokens }: { models: readonly string[]; tokens: number }) {
  return (
    <Link href={pricesPath} className="unpriced-link">
      No price for {models.join(', ')}: {tokenCount(tokens)}
    </Link>
  );
}
