import { useState } from 'react';
import { useLocation } from 'wouter';
import type { RunDetail } from '../../../shared/entities';
import { WorkLeftOnHost } from './discard-dialog';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { ErrorAlert } from '../../ui/error-alert';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { useAgent } from '../agents/use-agents';
import { CompareRunsLink } from '../compare/compare-runs-link';
import { BackToRuns } from './back-to-runs';
import { canArchiveOrDelete, canRerun, canResumeRun } from './run-detail-format';
import { resumesInFailureBox } from './run-failure';
import { useGoToRun } from './use-go-to-run';
import { useArchiveRun, useDeleteRun, useResumeRun, useStartRun, useStopRun } from './use-runs';

function ArchiveRunDialog({ run, onClose }: { run: RunDetail; onClose: () => void }) {
  const archiveRun = useArchiveRun();
  return (
    <ConfirmDialog
      title="Archive run"
      description={<p>Archive this run? Its record stays; its working folder and its repository (the run’s branch and commits) are removed, so it cannot be resumed.</p>}
      confirmLabel="Archive"
      pendingNote="Removing the worktree…"
      error={archiveRun.error}
      errorPrefix="Could not archive the run."
      onConfirm={() => archiveRun.mutateAsync(run.id).then(onClose)}
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
      description={
        <>
          <p>Delete this run? Its record, output, working folder and repository are removed.</p>
          {run.hostWorkLeftSince !== null ? <WorkLeftOnHost run={run} doing="Deleting" /> : null}
        </>
      }
      confirmLabel="Delete"
      pendingNote="Removing the run and its worktree…"
      error={deleteRun.error}
      errorPrefix="Could not delete the run."
      onConfirm={() => deleteRun.mutateAsync(run.id).then(() => navigate('/runs'))}
      onClose={onClose}
    />
  );
}

/**
 * The run's header actions: Stop while it can be stopped; Resume and Run again once it has ended, as
 * the run allows; Archive and Delete (each confirmed) once it has ended for good.
 */
export function RunActions({ run }: { run: RunDetail }) {
  const stopRun = useStopRun();
  const resumeRun = useResumeRun();
  const startRun = useStartRun();
  const agent = useAgent(run.agentId);
  const goTo = useGoToRun(run.id);
  const [confirming, setConfirming] = useState<'archive' | 'delete' | null>(null);
  // Resume, Run again and Stop: one at a time, and each once (a double click on Run again would start two runs).
  const { pending: busy, submit } = useSingleSubmit();
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
            onClick={() => submit(() => resumeRun.mutateAsync({ runId: run.id }).then((next) => goTo(next.id)))}
          >
            Resume
          </button>
        ) : null}
        {offerRerun ? (
          <button
            type="button"
            className={`button${canResumeRun(run) ? '' : ' button--primary'}`}
            aria-disabled={busy || undefined}
            onClick={() => submit(() => startRun.mutateAsync({ taskId: run.taskId, agentId: run.agentId }).then((next) => goTo(next.id)))}
          >
            Run again
          </button>
        ) : null}
        {run.canStop ? (
          <button
            type="button"
            className="button button--danger"
            aria-disabled={busy || undefined}
            onClick={() => submit(() => stopRun.mutateAsync(run.id))}
          >
            Stop
          </button>
        ) : null}
        <CompareRunsLink taskId={run.taskId} />
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
