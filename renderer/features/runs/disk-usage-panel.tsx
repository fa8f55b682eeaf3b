import { Link } from 'wouter';
import { routePatterns } from '../../../shared/routes';
import { ErrorAlert } from '../../ui/error-alert';
import { formatBytes, formatFullTimestamp, pluralize } from '../../ui/format';
import { QueryError } from '../../ui/query-error';
import { useDiskUsage, useRefreshDiskUsage } from '../cleanup/use-cleanup';

/** How many of the largest runs the Runs page names. */
const largestShown = 5;

/**
 * Above the run list: how much disk the runs' task roots take, the largest of them, what runs take
 * on each SSH host (measured on Refresh), Refresh (measure again) and the way to Clean up. Finished task roots are what fills disks, so the total is in view.
 */
export function DiskUsagePanel() {
  const usage = useDiskUsage();
  const refresh = useRefreshDiskUsage();

  if (usage.isPending) return null;
  if (usage.isError) return <QueryError what="the disk usage" error={usage.error} onRetry={() => void usage.refetch()} />;
  const { totalBytes, runsWithFiles, largest, measuredAt, hosts } = usage.data;

  return (
    <section className="disk-usage" aria-label="Disk used by runs">
      <div className="disk-usage__line">
        <p className="disk-usage__total">
          Task roots take <strong>{formatBytes(totalBytes)}</strong> ({pluralize(runsWithFiles, 'run')} with files on disk)
          {measuredAt ? <span className="muted"> · the oldest size is from {formatFullTimestamp(measuredAt)}</span> : null}
        </p>
        <span className="muted" aria-live="polite">
          {refresh.isPending ? 'Measuring…' : ''}
        </span>
        <button
          type="button"
          className="button button--small"
          aria-disabled={refresh.isPending || undefined}
          onClick={() => {
            if (!refresh.isPending) refresh.mutate();
          }}
        >
          Refresh sizes
        </button>
        <Link href={routePatterns.cleanup} className="button button--small">
          Clean up
        </Link>
      </div>
      {largest.length > 0 ? (
        <ol className="disk-usage__largest" aria-label="Largest runs on disk">
          {largest.slice(0, largestShown).map((run) => (
            <li key={run.runId}>
              <Link href={`/runs/${encodeURIComponent(run.runId)}`} className="table-link">
                {run.taskTitle} · {run.agentName}
              </Link>{' '}
              <span className="numeric-text">{formatBytes(run.bytes)}</span>
            </li>
          ))}
        </ol>
      ) : null}
      {hosts.length > 0 ? (
        <ul className="disk-usage__largest" aria-label="Disk used on SSH hosts">
          {hosts.map((host) => (
            <li key={host.hostId}>
              On {host.name}:{' '}
              {host.bytes === null ? (
                <span>not measured ({host.error}). Refresh sizes once it answers.</span>
              ) : (
                <span className="numeric-text">
                  {formatBytes(host.bytes)} ({pluralize(host.runs, 'run')}
                  {host.gitStores > 0 ? `, ${pluralize(host.gitStores, 'project git store')} of ${formatBytes(host.gitStoreBytes ?? 0)}` : ''})
                </span>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {refresh.isError ? <ErrorAlert error={refresh.error} prefix="Could not measure the task roots." /> : null}
    </section>
  );
}
