import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { runStatuses, type RunStatus, type RunSummary } from '../../../shared/entities';
import { landingStates, type LandingState } from '../../../shared/landing';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { useUiStore } from '../../state/ui-store';
import { EmptyState } from '../../ui/empty-state';
import { FilterSelect } from '../../ui/filter-select';
import { operatorMessage } from '../../ui/error-message';
import { formatBytes, formatDuration, formatFullTimestamp, formatTimestamp, runDurationMs } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { isActiveRunStatus, runStatusLabel } from '../../ui/run-status';
import { StatusBadge } from '../../ui/status-badge';
import { useNow } from '../../ui/use-now';
import { useProjects } from '../projects/use-projects';
import { DiskUsagePanel } from './disk-usage-panel';
import { landingStateLabels } from './landing-labels';
import { isArchivedRun } from './run-detail-format';
import { hasRunFilters } from './run-list-input';
import { RunLandingBadge } from './run-landing-badge';
import { useRunList } from './use-runs';

function isRunStatus(value: string): value is RunStatus {
  return (runStatuses as readonly string[]).includes(value);
}

function isLandingState(value: string): value is LandingState {
  return (landingStates as readonly string[]).includes(value);
}

function RunFilters() {
  const client = useOperatorClient();
  const filters = useUiStore((state) => state.runFilters);
  const setRunFilter = useUiStore((state) => state.setRunFilter);
  const clearRunFilters = useUiStore((state) => state.clearRunFilters);
  const agents = useQuery({ queryKey: queryKeys.agents, queryFn: () => client.listAgents() });
  const projects = useProjects();

  return (
    <div className="filter-bar" role="group" aria-label="Filter runs">
      <FilterSelect
        label="Status"
        anyLabel="All statuses"
        value={filters.status ?? ''}
        options={runStatuses.map((status) => ({ value: status, label: runStatusLabel(status) }))}
        onChange={(status) => setRunFilter({ status: isRunStatus(status) ? status : null })}
      />
      <FilterSelect
        label="Agent"
        anyLabel="All agents"
        value={filters.agentId ?? ''}
        options={(agents.data ?? []).map((agent) => ({ value: agent.id, label: agent.name }))}
        onChange={(agentId) => setRunFilter({ agentId: agentId || null })}
      />
      <FilterSelect
        label="Project"
        anyLabel="All projects"
        value={filters.projectId ?? ''}
        options={(projects.data ?? []).map((project) => ({ value: project.id, label: project.name }))}
        onChange={(projectId) => setRunFilter({ projectId: projectId || null })}
      />
      <FilterSelect
        label="Landing"
        anyLabel="Any landing state"
        value={filters.landingState ?? ''}
        options={landingStates.map((state) => ({ value: state, label: landingStateLabels[state] }))}
        onChange={(state) => setRunFilter({ landingState: isLandingState(state) ? state : null })}
      />
      {hasRunFilters(filters) ? (
        <button type="button" className="button button--quiet" onClick={clearRunFilters}>
          Clear filters
        </button>
      ) : null}
    </div>
  );
}

function RunRow({ run, now }: { run: RunSummary; now: number }) {
  const duration = runDurationMs(run, now);
  const started = run.startedAt ?? null;
  return (
    <tr>
      <td className="nowrap">
        <StatusBadge status={run.status} hostUnreachable={run.hostUnreachableSince !== null} />
      </td>
      <th scope="row" className="data-table__primary">
        <Link href={`/runs/${encodeURIComponent(run.id)}`} className="table-link">
          {run.taskTitle}
        </Link>
        {isArchivedRun(run) ? (
          <span className="tag" title="Archived: the record stays, the worktree was removed">
            Archived
          </span>
        ) : null}
      </th>
      <td>{run.agentName}</td>
      <td className="numeric">{run.attempt === 0 ? <span className="muted">—</span> : run.attempt}</td>
      <td className="nowrap">
        {started ? (
          <time dateTime={started} title={formatFullTimestamp(started)}>
            {formatTimestamp(started, now)}
          </time>
        ) : (
          <span className="muted" title={`Created ${formatFullTimestamp(run.createdAt)}`}>
            Not started
          </span>
        )}
      </td>
      <td className="numeric">{duration === null ? <span className="muted">—</span> : formatDuration(duration)}</td>
      <td className="nowrap">
        <RunLandingBadge landing={run.landing} />
      </td>
      <td className="numeric">{run.landing.diskBytes === null ? <span className="muted">—</span> : formatBytes(run.landing.diskBytes)}</td>
    </tr>
  );
}

function RunTable() {
  const filters = useUiStore((state) => state.runFilters);
  const runs = useRunList(filters);
  const list = runs.data?.pages.flatMap((page) => page.runs) ?? [];
  const now = useNow(list.some((run) => isActiveRunStatus(run.status)));

  if (runs.isPending) return <Loading what="runs" />;
  if (runs.isError && list.length === 0) {
    return <QueryError what="runs" error={runs.error} onRetry={() => void runs.refetch()} />;
  }

  if (list.length === 0) {
    if (hasRunFilters(filters)) {
      return (
        <EmptyState title="No runs match these filters">
          <p>Try another status, agent, project or landing state, or use Clear filters above to see every run.</p>
        </EmptyState>
      );
    }
    return (
      <EmptyState
        title="No runs yet"
        action={
          <Link href="/tasks" className="button button--primary">
            Pick a task to run
          </Link>
        }
      >
        <p>
          A run starts from a task: pick a task, pick an agent, and the console runs it in its own task root. Every run
          is listed here with its status and output.
        </p>
      </EmptyState>
    );
  }

  return (
    <>
      {runs.isRefetchError ? (
        <QueryError what="the latest runs" error={runs.error} onRetry={() => void runs.refetch()} />
      ) : null}
      <div className="table-wrap">
        <table className="data-table runs-table">
          <caption className="visually-hidden">Runs, newest first</caption>
          <thead>
            <tr>
              <th scope="col" className="col-status">
                Status
              </th>
              <th scope="col">Task</th>
              <th scope="col">Agent</th>
              <th scope="col" className="numeric">
                Attempt
              </th>
              <th scope="col">Started</th>
              <th scope="col" className="numeric">
                Duration
              </th>
              <th scope="col">Landing</th>
              <th scope="col" className="numeric">
                On disk
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((run) => (
              <RunRow key={run.id} run={run} now={now} />
            ))}
          </tbody>
        </table>
      </div>
      {runs.isFetchNextPageError ? (
        <p className="form-error" role="alert">
          Could not load more runs. {operatorMessage(runs.error)}
        </p>
      ) : null}
      {runs.hasNextPage ? (
        <div className="list-footer">
          <button
            type="button"
            className="button"
            aria-disabled={runs.isFetchingNextPage || undefined}
            onClick={() => {
              if (!runs.isFetchingNextPage) void runs.fetchNextPage();
            }}
          >
            Load more
          </button>
          {runs.isFetchingNextPage ? <span className="muted">Loading older runs…</span> : null}
        </div>
      ) : null}
    </>
  );
}

export function RunsPage() {
  return (
    <Page title="Runs" className="runs-page">
      <DiskUsagePanel />
      <RunFilters />
      <RunTable />
    </Page>
  );
}
