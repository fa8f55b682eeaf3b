import { lazy, Suspense } from 'react';
import { useSearch } from 'wouter';
import type { RunDetail } from '../../../shared/entities';
import { isOperatorError } from '../../../shared/errors';
import { EmptyState } from '../../ui/empty-state';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { isActiveRunStatus } from '../../ui/run-status';
import { useNow } from '../../ui/use-now';
import { providerDisplayName, useCatalog } from '../agents/use-catalog';
import { NoticeCard } from '../notices/notice-card';
import { BackToRuns } from './back-to-runs';
import { RefusedRun } from './refused-run';
import { RunActions } from './run-actions';
import { RunChanges } from './run-changes';
import { noticeShownInline, RunFailure } from './run-failure';
import { AttemptsPanel, ConfinementPanel, LocatorsPanel, RunDetailsPanel, SubmissionPanel } from './run-panels';
import { NetworkPanel } from './run-network-panel';
import { RunSummaryFacts } from './run-summary-facts';
import { RunSetupPanel } from './run-setup-panel';
import { RunTimeline } from './run-timeline';
import { RunUsagePanel } from './run-usage-panel';
import { useRun } from './use-runs';

// xterm.js is most of the bundle's weight: it loads with the first run detail opened, not at start.
import type { OutputPosition } from '../terminal/run-terminal';

const RunTerminal = lazy(() => import('../terminal/run-terminal').then((module) => ({ default: module.RunTerminal })));

function TerminalLoading() {
  return (
    <section className="run-terminal run-terminal--loading" aria-label="Run output">
      <p className="loading" aria-busy="true">
        Loading the terminal…
      </p>
    </section>
  );
}

/**
 * One run. `section="changes"` is the run-changes route (`/runs/<id>/changes`): the page opens at its
 * Changes, and `?land=1&target=<branch>` opens the Land dialog there, at that branch.
 */
export function RunDetailPage({ runId, section }: { runId: string; section?: 'changes' }) {
  const query = useRun(runId);
  const search = new URLSearchParams(useSearch());
  const landRequest = section === 'changes' && search.get('land') === '1' ? { target: search.get('target') || undefined } : undefined;
  const outputAt = outputPosition(search);
  const run = query.data;
  const active = run ? isActiveRunStatus(run.status) : false;
  const now = useNow(active);

  if (query.isPending) {
    return (
      <Page title="Run">
        <Loading what="the run" />
      </Page>
    );
  }
  const notFound = query.isError && isOperatorError(query.error) && query.error.code === 'not_found';
  if (query.isError && !run && !notFound) {
    return (
      <Page title="Run" actions={<BackToRuns />}>
        <QueryError what="the run" error={query.error} onRetry={() => void query.refetch()} />
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

  return (
    <Page
      title={run.taskTitle}
      documentTitle={`Run: ${run.taskTitle}`}
      actions={<RunActions run={run} />}
      className="run-detail-page"
    >
      <RunSummaryFacts run={run} now={now} />
      {query.isRefetchError ? (
        <QueryError what="the latest state of this run" error={query.error} onRetry={() => void query.refetch()} />
      ) : null}
      {run.status === 'refused' ? (
        <RefusedRun run={run} />
      ) : (
        <StartedRun run={run} now={now} changesFocused={section === 'changes'} landRequest={landRequest} outputAt={outputAt} />
      )}
    </Page>
  );
}

/** `?at=<byte>&find=<text>` (a search result, shared/routes.ts): where the terminal opens, and what it highlights. */
function outputPosition(search: URLSearchParams): OutputPosition | undefined {
  const at = search.get('at');
  if (at === null || !/^\d+$/.test(at)) return undefined;
  return { byteOffset: Number(at), find: search.get('find') ?? '' };
}

/** Everything a run that started has: what went wrong, its output, attempts, timeline, confinement and changes. */
function StartedRun({
  run,
  now,
  changesFocused,
  landRequest,
  outputAt,
}: {
  run: RunDetail;
  now: number;
  changesFocused: boolean;
  landRequest: { target?: string | undefined } | undefined;
  outputAt: OutputPosition | undefined;
}) {
  const catalog = useCatalog();
  return (
    <>
      <RunFailure run={run} />
      {noticeShownInline(run) ? <NoticeCard notice={run.notice!} className="run-notice" /> : null}
      <div className="run-detail-layout">
        <div className="run-detail-layout__output">
          <Suspense fallback={<TerminalLoading />}>
            {/* Keyed by the position: another search result in the same run opens the terminal there again. */}
            <RunTerminal
              key={outputAt ? `${outputAt.byteOffset}:${outputAt.find}` : 'live'}
              runId={run.id}
              running={run.status === 'running' || run.status === 'setting_up'}
              canSendInput={run.canSendInput}
              hostUnreachable={run.hostUnreachableSince !== null && run.status === 'running' ? (run.confinement.host ?? 'The run’s SSH host') : null}
              openAt={outputAt}
            />
          </Suspense>
          <AttemptsPanel run={run} now={now} />
          <RunUsagePanel run={run} />
        </div>
        <div className="run-detail-layout__side">
          <RunTimeline runId={run.id} multipleAttempts={run.attempts.length > 1} />
          <SubmissionPanel run={run} />
          <RunSetupPanel run={run} />
          <LocatorsPanel run={run} />
          <ConfinementPanel run={run} />
          <NetworkPanel run={run} now={now} />
          <RunDetailsPanel run={run} providerName={providerDisplayName(catalog.data, run.providerId)} />
        </div>
      </div>
      <RunChanges key={run.id} run={run} focused={changesFocused} landRequest={landRequest} />
    </>
  );
}
