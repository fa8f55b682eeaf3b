import type { RunDetail } from '../../../shared/entities';
import type { BillingKind, RunUsage } from '../../../shared/usage';
import { Loading, QueryError } from '../../ui/query-error';
import { isActiveRunStatus } from '../../ui/run-status';
import { CostEstimateText } from '../usage/cost-estimate';
import { TokenCells, TokenColumnHeads } from '../usage/token-columns';
import { countingDescriptions } from '../usage/usage-format';
import { useRunUsage } from '../usage/use-usage';
import '../usage/usage.css';
import { RunPanel } from './run-panel';

const billingNotes: Record<BillingKind, string> = {
  api_key: 'Paid through the AI connection’s API key: estimated at the prices in Settings → Prices.',
  subscription: 'Paid by a subscription plan (its token): tokens only, no money is estimated.',
  operator_login:
    'Run on your own login: estimated at API prices, although if that login is a subscription plan it was not billed per token.',
};

/**
 * The run's tokens per attempt (input with its cached part, output with its reasoning part) and
 * their estimated cost, the total, and how the CLI's usage reports were counted: a CLI that reports
 * its session's running total would otherwise count a resumed turn's history again.
 */
export function RunUsagePanel({ run }: { run: RunDetail }) {
  const usage = useRunUsage(run.id);
  return (
    <RunPanel title="Usage" labelledRegion>
      {usage.isPending ? (
        <Loading what="the run’s usage" />
      ) : usage.isError && !usage.data ? (
        <QueryError what="the run’s usage" error={usage.error} onRetry={() => void usage.refetch()} />
      ) : (
        <RunUsageFacts usage={usage.data} active={isActiveRunStatus(run.status)} />
      )}
    </RunPanel>
  );
}

function RunUsageFacts({ usage, active }: { usage: RunUsage; active: boolean }) {
  if (!usage.reported || usage.attempts.length === 0) {
    return (
      <p className="muted">
        {active ? 'No usage reported yet: the CLI reports its tokens as it goes.' : 'The CLI reported no token usage for this run (a plain command reports none).'}
      </p>
    );
  }
  const countings = [...new Set(usage.attempts.map((attempt) => attempt.counting))];
  return (
    <>
      <div className="table-wrap">
        <table className="data-table data-table--compact run-usage" aria-label="Usage per attempt">
          <thead>
            <tr>
              <th scope="col" className="numeric">
                Attempt
              </th>
              <TokenColumnHeads />
              <th scope="col" className="numeric">
                Reports
              </th>
              <th scope="col">Estimated cost</th>
            </tr>
          </thead>
          <tbody>
            {usage.attempts.map((attempt) => (
              <tr key={attempt.attemptNumber}>
                <th scope="row" className="numeric">
                  {attempt.attemptNumber}
                </th>
                <TokenCells tokens={attempt.tokens} />
                <td className="numeric">{attempt.reports}</td>
                <td>
                  <CostEstimateText cost={attempt.cost} />
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr className="run-usage__total">
              <th scope="row">Total</th>
              <TokenCells tokens={usage.total} />
              <td className="numeric">{usage.attempts.reduce((sum, attempt) => sum + attempt.reports, 0)}</td>
              <td>
                <CostEstimateText cost={usage.cost} />
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
      <ul className="plain-list run-usage__notes muted" aria-label="How this usage was counted">
        <li>{billingNotes[usage.billing]}</li>
        {usage.model ? (
          <li>
            Model <code>{usage.model}</code>.
          </li>
        ) : null}
        {countings.map((counting) => (
          <li key={counting}>{countingDescriptions[counting]}</li>
        ))}
      </ul>
    </>
  );
}
