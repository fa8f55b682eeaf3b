import { Link } from 'wouter';
import type { RunDetail } from '../../../shared/entities';
import { formatDuration, formatFullTimestamp, runDurationMs } from '../../ui/format';
import { isActiveRunStatus, runStatusDescription } from '../../ui/run-status';
import { StatusBadge } from '../../ui/status-badge';
import { providerDisplayName, useCatalog } from '../agents/use-catalog';
import { pendingRetry, retryWaitLabel } from './run-detail-format';

function ArchivedBadge() {
  return (
    <span className="status-badge tone-muted archived-badge" title="Archived: the record stays, the worktree was removed">
      <span className="status-badge__mark" aria-hidden="true" />
      Archived
    </span>
  );
}

/** The run at a glance: status, agent, attempts, when it started and for how long, and what it waits for. */
export function RunSummaryFacts({ run, now }: { run: RunDetail; now: number }) {
  const catalog = useCatalog();
  const duration = runDurationMs(run, now);
  const retry = isActiveRunStatus(run.status) ? pendingRetry(run.attempts, now) : null;
  return (
    <>
      <dl className="run-summary">
        <div className="run-summary__item">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={run.status} hostUnreachable={run.hostUnreachableSince !== null} />
            {run.archived ? <ArchivedBadge /> : null}
          </dd>
        </div>
        <div className="run-summary__item">
          <dt>Agent</dt>
          <dd>
            <Link href={`/agents/${encodeURIComponent(run.agentId)}`}>{run.agentName}</Link>
            <span className="muted">· {providerDisplayName(catalog.data, run.providerId)}</span>
          </dd>
        </div>
        <div className="run-summary__item">
          <dt>Attempts</dt>
          <dd>{Math.max(run.attempt, run.attempts.length) || <span className="muted">None yet</span>}</dd>
        </div>
        <div className="run-summary__item">
          <dt>Started</dt>
          <dd>
            {run.startedAt ? (
              <time dateTime={run.startedAt}>{formatFullTimestamp(run.startedAt)}</time>
            ) : (
              <span className="muted">Not started</span>
            )}
          </dd>
        </div>
        <div className="run-summary__item">
          <dt>Duration</dt>
          <dd className="numeric-text">{duration === null ? <span className="muted">—</span> : formatDuration(duration)}</dd>
        </div>
      </dl>
      <p className="run-progress" role="status">
        {retry?.retryAt
          ? `${retryWaitLabel(retry.retryAt, now)} (attempt ${retry.number} failed${retry.failureCode ? `: ${retry.failureCode}` : ''}).`
          : isActiveRunStatus(run.status) && run.status !== 'running'
            ? `${runStatusDescription(run.status)}…`
            : ''}
      </p>
    </>
  );
}
