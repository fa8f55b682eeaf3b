import { lazy, Suspense, useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { RunDetail } from '../../../shared/entities';
import { isOperatorError } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { safeActionHref } from '../../ui/error-message';
import { formatDuration, formatFullTimestamp, runDurationMs } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { isActiveRunStatus, runStatusDescription } from '../../ui/run-status';
import { StatusBadge } from '../../ui/status-badge';
import { useNow } from '../../ui/use-now';
import { providerDisplayName, useCatalog } from '../agents/use-catalog';
import { NoticeCard } from '../notices/notice-card';
import { canArchiveOrDelete, canRerun, canResumeRun, pendingRetry, retryWaitLabel } from './run-detail-format';
import { RunChanges } from './run-changes';
import { AttemptsPanel, ConfinementPanel, LocatorsPanel, RunDetailsPanel, SubmissionPanel } from './run-panels';
import { RunTimeline } from './run-timeline';
import { useArchiveRun, useDeleteRun, useResumeRun, useRun, useStartRun, useStopRun } from './use-runs';
import { useAgent } from '../agents/use-agents';

// xterm.js is most of the bundle's weight: it loads with the first run detail opened, not at start.
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

function ArchivedBadge() {
  return (
    <span className="status-badge tone-muted archived-badge" title="Archived: the record stays, the worktree was removed">
      <span className="status-badge__mark" aria-hidden="true" />
      Archived
    </span>
  );
}

function BackToRuns() {
  return (
    <Link href="/runs" className="button">
      Back to the run list
    </Link>
  );
}

/** Opens another run (a resumed or re-run one) and keeps focus on the page heading. */
function useGoToRun(currentRunId: string) {
  const [, navigate] = useLocation();
  return (runId: string) => {
    if (runId === currentRunId) return;
    navigate(`/runs/${encodeURIComponent(runId)}`);
    // Same section, so the layout keeps focus where it was: on a button the new run may not show.
    requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-page-heading]')?.focus());
  };
}

/** A stranded run that can be resumed: Resume, where the operator reads what happened, with what it does. */
function StrandedResume({ run }: { run: RunDetail }) {
  const resumeRun = useResumeRun();
  const goTo = useGoToRun(run.id);
  return (
    <div className="run-failure__action">
      <button
        type="button"
        className="button button--primary"
        aria-disabled={resumeRun.isPending || undefined}
        onClick={() => {
          if (!resumeRun.isPending) resumeRun.mutate({ runId: run.id }, { onSuccess: (next) => goTo(next.id) });
        }}
      >
        Resume
      </button>
      <span className="run-failure__hint" aria-live="polite">
        {resumeRun.isPending ? 'Resuming…' : 'Picks up where the agent stopped; the changes it made so far are kept.'}
      </span>
      {resumeRun.isError ? <ErrorAlert error={resumeRun.error} prefix="Could not resume the run." /> : null}
    </div>
  );
}

/** Stranded runs resume from their own box; the header offers Resume for the others. */
function resumesInFailureBox(run: RunDetail): boolean {
  return run.status === 'stranded' && canResumeRun(run);
}

/**
 * A started run's notice shows beside its failure when it links somewhere else (the agent's
 * settings, say): it then carries the message and the fix, said once. One that only links back to
 * this run (a stranded run's) adds nothing here: the failure box says it, with Resume.
 */
function noticeShownInline(run: RunDetail): boolean {
  return run.notice !== null && run.notice.actionUrl !== actionRoute({ kind: 'run', runId: run.id });
}

/** Failures that need the operator get the fix's link; the others say what happened. */
function RunFailure({ run }: { run: RunDetail }) {
  if (!run.failure) return null;
  // A stranded run's link points at the run itself: no use offering it here.
  const ownRoute = actionRoute({ kind: 'run', runId: run.id });
  // The run's own page needs no link to itself, and a run's notice (shown below) carries the fix and the message.
  const withNotice = noticeShownInline(run);
  const actionHref = run.failure.actionUrl === ownRoute || withNotice ? undefined : safeActionHref(run.failure.actionUrl);
  const title = run.status === 'stranded' ? 'Stranded' : run.status === 'cancelled' ? 'Cancelled' : 'Failed';
  return (
    <div className={`run-failure run-failure--${run.status}`}>
      <p className="run-failure__title">
        {title}
        {run.failure.code !== run.status ? <code className="run-failure__code">{run.failure.code}</code> : null}
        {run.failure.reason ? <code className="run-failure__code">{run.failure.reason}</code> : null}
      </p>
      {withNotice ? null : <p className="run-failure__message">{run.failure.message}</p>}
      {resumesInFailureBox(run) ? <StrandedResume run={run} /> : null}
      {actionHref ? (
        <p>
          <a className="button button--primary button--small" href={actionHref}>
            Open the setting that fixes this
          </a>
        </p>
      ) : null}
    </div>
  );
}

function ArchiveRunDialog({ run, onClose }: { run: RunDetail; onClose: () => void }) {
  const archiveRun = useArchiveRun();
  return (
    <ConfirmDialog
      title="Archive run"
      description={<p>Archive this run? Its record stays; its working folder and its repository (the run’s branch and commits) are removed, so it cannot be resumed.</p>}
      confirmLabel="Archive"
      pending={archiveRun.isPending}
      pendingNote="Removing the worktree…"
      error={archiveRun.error}
      errorPrefix="Could not archive the run."
      onConfirm={() => archiveRun.mutate(run.id, { onSuccess: onClose })}
      onClose={onClose}
    />
  );
}

function DeleteRunDialog({ run, onClose }: { run: RunDetail; onClose: () => void }) {
  const deleteRun = useDeleteRun();
  const [, navigate] = useLocation();
  return (
    <ConfirmDialog
      title="Delete run"
      description={<p>Delete this run? Its record, output, working folder and repository are removed.</p>}
      confirmLabel="Delete"
      pending={deleteRun.isPending}
      pendingNote="Removing the run and its worktree…"
      error={deleteRun.error}
      errorPrefix="Could not delete the run."
      onConfirm={() => deleteRun.mutate(run.id, { onSuccess: () => navigate('/runs') })}
      onClose={onClose}
    />
  );
}

function RunActions({ run }: { run: RunDetail }) {
  const stopRun = useStopRun();
  const resumeRun = useResumeRun();
  const startRun = useStartRun();
  const agent = useAgent(run.agentId);
  const goTo = useGoToRun(run.id);
  const [confirming, setConfirming] = useState<'archive' | 'delete' | null>(null);
  const busy = stopRun.isPending || resumeRun.isPending || startRun.isPending;
  const failed = [
    { mutation: stopRun, prefix: 'Could not stop the run.' },
    { mutation: resumeRun, prefix: 'Could not resume the run.' },
    { mutation: startRun, prefix: 'Could not start the task again.' },
  ].find(({ mutation }) => mutation.isError);
  const offerResume = canResumeRun(run) && !resumesInFailureBox(run);
  const offerRerun = canRerun(run, agent.data?.verification?.state === 'ok');

  // Order matters: buttons sit flush right, and the one that takes Stop's place once the run ends
  // is the next step (Resume, Run again), never Delete. The destructive ones stay at the far left.
  return (
    <div className="run-actions">
      <div className="run-actions__buttons">
        {canArchiveOrDelete(run) ? (
          <span className="run-actions__group run-actions__group--quiet">
            <button type="button" className="button button--danger-quiet" onClick={() => setConfirming('delete')}>
              Delete run
            </button>
            {!run.archived ? (
              <button type="button" className="button" onClick={() => setConfirming('archive')}>
                Archive run
              </button>
            ) : null}
          </span>
        ) : null}
        {offerResume ? (
          <button
            type="button"
            className="button button--primary"
            aria-disabled={busy || undefined}
            onClick={() => {
              if (!busy) resumeRun.mutate({ runId: run.id }, { onSuccess: (next) => goTo(next.id) });
            }}
          >
            Resume
          </button>
        ) : null}
        {offerRerun ? (
          <button
            type="button"
            className={`button${canResumeRun(run) ? '' : ' button--primary'}`}
            aria-disabled={busy || undefined}
            onClick={() => {
              if (!busy) startRun.mutate({ taskId: run.taskId, agentId: run.agentId }, { onSuccess: (next) => goTo(next.id) });
            }}
          >
            Run again
          </button>
        ) : null}
        {run.canStop ? (
          <button
            type="button"
            className="button button--danger"
            aria-disabled={busy || undefined}
            onClick={() => {
              if (!busy) stopRun.mutate(run.id);
            }}
          >
            Stop
          </button>
        ) : null}
        <BackToRuns />
      </div>
      <span className="run-actions__progress muted" aria-live="polite">
        {stopRun.isPending ? 'Stopping…' : resumeRun.isPending ? 'Resuming…' : startRun.isPending ? 'Starting a new run…' : ''}
      </span>
      {failed ? <ErrorAlert error={failed.mutation.error} prefix={failed.prefix} /> : null}
      {confirming === 'archive' ? <ArchiveRunDialog run={run} onClose={() => setConfirming(null)} /> : null}
      {confirming === 'delete' ? <DeleteRunDialog run={run} onClose={() => setConfirming(null)} /> : null}
    </div>
  );
}

/**
 * A refused run never started: its page leads with the fix (the notice's action, or the failure's
 * link), says the message once, and shows no terminal, confinement or changes, which it never had.
 */
function RefusedRun({ run }: { run: RunDetail }) {
  const catalog = useCatalog();
  const nothingStarted = (
    <p className="run-refused__nothing">
      <strong>Nothing was started:</strong> no working folder, no process, and no AI connection key was opened.
    </p>
  );
  return (
    <div className="run-refused">
      {run.notice ? (
        <NoticeCard notice={run.notice} className="run-notice run-notice--lead" />
      ) : run.failure ? (
        <div className="run-failure run-failure--refused">
          <p className="run-failure__title">Refused before anything started</p>
          <p className="run-failure__message">{run.failure.message}</p>
          {safeActionHref(run.failure.actionUrl) ? (
            <p>
              <a className="button button--primary" href={safeActionHref(run.failure.actionUrl)}>
                Open the setting that fixes this
              </a>
            </p>
          ) : null}
        </div>
      ) : null}
      {nothingStarted}
      <div className="run-refused__details">
        <RunDetailsPanel run={run} providerName={providerDisplayName(catalog.data, run.providerId)} />
      </div>
    </div>
  );
}

function RunSummaryFacts({ run, now }: { run: RunDetail; now: number }) {
  const catalog = useCatalog();
  const duration = runDurationMs(run, now);
  const retry = isActiveRunStatus(run.status) ? pendingRetry(run.attempts, now) : null;
  return (
    <>
      <dl className="run-summary">
        <div className="run-summary__item">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={run.status} />
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

export function RunDetailPage({ runId }: { runId: string }) {
  const query = useRun(runId);
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
        <StartedRun run={run} now={now} />
      )}
    </Page>
  );
}

/** Everything a run that started has: what went wrong, its output, attempts, timeline, confinement and changes. */
function StartedRun({ run, now }: { run: RunDetail; now: number }) {
  const catalog = useCatalog();
  return (
    <>
      <RunFailure run={run} />
      {noticeShownInline(run) ? <NoticeCard notice={run.notice!} className="run-notice" /> : null}
      <div className="run-detail-layout">
        <div className="run-detail-layout__output">
          <Suspense fallback={<TerminalLoading />}>
            <RunTerminal runId={run.id} running={run.status === 'running'} canSendInput={run.canSendInput} />
          </Suspense>
          <AttemptsPanel run={run} now={now} />
        </div>
        <div className="run-detail-layout__side">
          <RunTimeline runId={run.id} multipleAttempts={run.attempts.length > 1} />
          <SubmissionPanel run={run} />
          <LocatorsPanel run={run} />
          <ConfinementPanel run={run} />
          <RunDetailsPanel run={run} providerName={providerDisplayName(catalog.data, run.providerId)} />
        </div>
      </div>
      <RunChanges key={run.id} run={run} />
    </>
  );
}
