import { isOperatorError } from '../../../shared/errors';
import type { RunComparison } from '../../../shared/landing';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { operatorMessage } from '../../ui/error-message';
import { Loading, QueryError } from '../../ui/query-error';
import { DiffView } from '../runs/diff-view';
import { useRunDiff } from '../runs/use-runs';
import { isComparedRunActive } from './compare-labels';

/** One run's changes in its column, read as the run's own Changes reads them. */
function DiffColumn({ run, name }: { run: RunComparison; name: string }) {
  const running = run.status === 'running';
  const diff = useRunDiff(run.runId, running);
  // A run whose files are gone (cleaned up, discarded, never started) answers not_found: said, not retried.
  const noFolder = diff.isError && isOperatorError(diff.error) && diff.error.code === 'not_found';

  let body;
  if (noFolder) body = <EmptyState title={isComparedRunActive(run) ? 'Changes appear here once the run’s working folder is ready.' : operatorMessage(diff.error)} />;
  else if (diff.isPending) body = <Loading what={`${name}’s changes`} />;
  else if (diff.isError && !diff.data) body = <QueryError what={`${name}’s changes`} error={diff.error} onRetry={() => void diff.refetch()} />;
  else {
    body = (
      <>
        {diff.isRefetchError ? <ErrorAlert error={diff.error} prefix="Could not read the latest changes." /> : null}
        <DiffView diff={diff.data} running={running} />
      </>
    );
  }

  return (
    <section className="compare-diffs__column run-changes" aria-label={`Changes of ${name}`}>
      <h3 className="compare-diffs__title">{name}</h3>
      {body}
    </section>
  );
}

/** Two runs' diffs next to each other. */
export function CompareDiffs({ left, right, names }: { left: RunComparison; right: RunComparison; names: Map<string, string> }) {
  return (
    <div className="compare-diffs">
      <DiffColumn key={left.runId} run={left} name={names.get(left.runId) ?? left.agentName} />
      <DiffColumn key={right.runId} run={right} name={names.get(right.runId) ?? right.agentName} />
    </div>
  );
}
