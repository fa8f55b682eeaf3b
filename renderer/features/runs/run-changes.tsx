import { useState } from 'react';
import type { RunDetail } from '../../../shared/entities';
import { isOperatorError } from '../../../shared/errors';
import { EmptyState } from '../../ui/empty-state';
import { ErrorAlert } from '../../ui/error-alert';
import { operatorMessage } from '../../ui/error-message';
import { FolderPath, OpenFolderButton } from '../../ui/folder-path';
import { Loading, QueryError } from '../../ui/query-error';
import { isActiveRunStatus } from '../../ui/run-status';
import { DiffView } from './diff-view';
import { RunPanel } from './run-panel';
import { useOpenRunFolder, useRunDiff } from './use-runs';

/**
 * What the agent changed in its working folder, against the revision the run started from. Read again
 * when the run changes, every few seconds while it runs, and on Refresh changes.
 */
export function RunChanges({ run }: { run: RunDetail }) {
  const running = run.status === 'running';
  const diff = useRunDiff(run.id, running);
  // The folder is known once Open folder answers: the core says where it is as it opens it.
  const openFolder = useOpenRunFolder();
  const [refreshing, setRefreshing] = useState(false);
  const noFolder = diff.isError && isOperatorError(diff.error) && diff.error.code === 'not_found';
  // A folder may still appear for a run on its way; an ended run without one will never have it.
  const waitingForFolder = noFolder && isActiveRunStatus(run.status) && !run.archived;

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
        <DiffView diff={diff.data} running={running} />
      </>
    );
  }

  return (
    <RunPanel
      title="Changes"
      className="run-changes"
      labelledRegion
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
                void diff.refetch().finally(() => setRefreshing(false));
              }}
            >
              Refresh changes
            </button>
          )}
          {noFolder ? null : (
            <OpenFolderButton pending={openFolder.isPending} onOpen={() => openFolder.mutate(run.id)}>
              Open folder
            </OpenFolderButton>
          )}
        </div>
      }
    >
      {noFolder ? null : (
        <FolderPath path={openFolder.data?.path} opening={openFolder} folderName="the run’s folder" errorPrefix="Could not open the folder." />
      )}
      {body}
    </RunPanel>
  );
}
