import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { RunDetail } from '../../../shared/entities';
import { isOperatorError } from '../../../shared/errors';
import { queryKeys } from '../../app/query-keys';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { operatorMessage } from '../../ui/error-message';
import { FolderPath, OpenFolderButton } from '../../ui/folder-path';
import { formatFullTimestamp } from '../../ui/format';
import { Loading, QueryError } from '../../ui/query-error';
import { focusRouteTarget } from '../../ui/route-focus';
import { isActiveRunStatus } from '../../ui/run-status';
import { DiffView } from './diff-view';
import { RunLandingBar } from './run-landing';
import { RunPanel } from './run-panel';
import { useOpenRunFolder, useRunDiff } from './use-runs';

/**
 * What the agent changed in its working folder, against the revision the run started from. Read again
 * when the run changes, every few seconds while it runs, and on Refresh changes. Once the run has
 * ended, its landing bar says where the work stands and lands it (Commit, Land, Push, Discard).
 * `focused` (the run-changes route) brings the section into view with focus on it; `landRequest`
 * opens the Land dialog there.
 */
export function RunChanges({
  run,
  focused = false,
  landRequest,
}: {
  run: RunDetail;
  focused?: boolean;
  landRequest?: { target?: string | undefined } | undefined;
}) {
  const running = run.status === 'running';
  const diff = useRunDiff(run.id, running);
  // The folder is known once Open folder answers: the core says where it is as it opens it.
  const openFolder = useOpenRunFolder();
  const [refreshing, setRefreshing] = useState(false);
  const queryClient = useQueryClient();
  const noFolder = diff.isError && isOperatorError(diff.error) && diff.error.code === 'not_found';
  // A folder may still appear for a run on its way; an ended run without one will never have it.
  const waitingForFolder = noFolder && isActiveRunStatus(run.status) && !run.archived;
  // Once the files are gone the console keeps only a summary: viewing it is all there is to do.
  const filesRemovedAt = diff.data?.filesRemovedAt ?? run.landing.filesRemovedAt;
  const filesGone = filesRemovedAt !== null || run.archived || run.landing.state === 'discarded';
  const landable = !isActiveRunStatus(run.status) && !filesGone && !noFolder;
  const sectionRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!focused) return;
    focusRouteTarget(sectionRef.current, { block: 'start' });
  }, [focused]);

  let body;
  if (noFolder) {
    body = <EmptyState title={waitingForFolder ? 'Changes appear here once the run’s working folder is ready.' : operatorMessage(diff.error)} />;
  } else if (diff.isPending) {
    body = <Loading what="the changes" />;
  } else if (diff.isError && !diff.data) {
    body = <QueryError what="the changes" error={diff.error} onRetry={() => void diff.refetch()} />;
  } else {
    body = (
      <>
        {diff.isRefetchError ? <ErrorAlert error={diff.error} prefix="Could not read the latest changes." /> : null}
        {diff.data.filesRemovedAt ? (
          <p className="callout" role="note">
            The run’s files were cleaned up on {formatFullTimestamp(diff.data.filesRemovedAt)}. This is the summary of its changes the console kept.
          </p>
        ) : null}
        <DiffView diff={diff.data} running={running} />
      </>
    );
  }

  return (
    <RunPanel
      title="Changes"
      className="run-changes"
      labelledRegion
      sectionRef={sectionRef}
      focusable={focused}
      headerExtra={
        <div className="run-changes__toolbar">
          <span className="muted" aria-live="polite">
            {refreshing ? 'Reading the changes…' : ''}
          </span>
          {noFolder && !waitingForFolder ? null : (
            <button
              type="button"
              className="button button--small"
              aria-disabled={refreshing || undefined}
              onClick={() => {
                if (refreshing) return;
                setRefreshing(true);
                // What the run holds may have changed with its files: its landing plans are read again too.
                void Promise.all([diff.refetch(), queryClient.invalidateQueries({ queryKey: queryKeys.landingPlans(run.id) })]).finally(() => setRefreshing(false));
              }}
            >
              Refresh changes
            </button>
          )}
          {noFolder || filesRemovedAt ? null : (
            <OpenFolderButton pending={openFolder.isPending} onOpen={() => openFolder.mutate(run.id)}>
              Open folder
            </OpenFolderButton>
          )}
        </div>
      }
    >
      {run.status === 'refused' ? null : (
        <RunLandingBar run={run} actionable={landable} landRequest={landRequest} onOpenFolder={() => openFolder.mutate(run.id)} />
      )}
      {noFolder || filesRemovedAt ? null : (
        <FolderPath path={openFolder.data?.path} opening={openFolder} folderName="the run’s folder" errorPrefix="Could not open the folder." />
      )}
      {body}
    </RunPanel>
  );
}
