import { Link } from 'wouter';
import { EmptyState } from '../../ui/empty-state';
import { formatDuration, formatFullTimestamp, runDurationMs } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { isActiveRunStatus } from '../../ui/run-status';
import { StatusBadge } from '../../ui/status-badge';
import { useNow } from '../../ui/use-now';
import { useRunLookup } from './use-runs';

function BackToRuns() {
  return (
    <Link href="/runs" className="button">
      Back to the run list
    </Link>
  );
}

/** One run's summary. The live terminal and timeline will live here. */
export function RunDetailPage({ runId }: { runId: string }) {
  const lookup = useRunLookup(runId);
  const run = lookup.data;
  const now = useNow(run ? isActiveRunStatus(run.status) : false);

  if (lookup.isPending) {
    return (
      <Page title="Run">
        <Loading what="the run" />
      </Page>
    );
  }
  if (lookup.isError && !run) {
    return (
      <Page title="Run" actions={<BackToRuns />}>
        <QueryError what="the run" error={lookup.error} onRetry={() => void lookup.refetch()} />
      </Page>
    );
  }
  if (!run) {
    return (
      <Page title="Run not found">
        <EmptyState title="This run is not in the console" action={<BackToRuns />}>
          <p>
            No run has the id <code>{runId}</code>. It may have been removed with its project; the run list shows every
            run the console still knows.
          </p>
        </EmptyState>
      </Page>
    );
  }

  const duration = runDurationMs(run, now);
  return (
    <Page title={run.taskTitle} documentTitle={`Run: ${run.taskTitle}`} actions={<BackToRuns />}>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={run.status} />
        </dd>
        <dt>Agent</dt>
        <dd>
          <Link href={`/agents/${encodeURIComponent(run.agentId)}`}>{run.agentName}</Link>
        </dd>
        <dt>Attempt</dt>
        <dd>{run.attempt}</dd>
        <dt>Created</dt>
        <dd>{formatFullTimestamp(run.createdAt)}</dd>
        <dt>Started</dt>
        <dd>{run.startedAt ? formatFullTimestamp(run.startedAt) : <span className="muted">Not started</span>}</dd>
        <dt>Ended</dt>
        <dd>{run.endedAt ? formatFullTimestamp(run.endedAt) : <span className="muted">—</span>}</dd>
        <dt>Duration</dt>
        <dd>{duration === null ? <span className="muted">—</span> : formatDuration(duration)}</dd>
        <dt>Run id</dt>
        <dd>
          <code>{run.id}</code>
        </dd>
      </dl>
    </Page>
  );
}
