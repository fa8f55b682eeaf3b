import type { RunDetail } from '../../../shared/entities';
import type { RunHoldings } from '../../../shared/landing';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { pluralize } from '../../ui/format';
import { formatBytes } from '../terminal/output-markers';
import { listFew } from './landing-format';
import { useDiscardRun } from './use-landing';

/**
 * A run whose work was never brought back from its SSH host: what it holds here says nothing of that
 * work, which goes too. Said in Discard's and Delete's confirmations.
 */
export function WorkLeftOnHost({ run, doing }: { run: RunDetail; doing: 'Discarding' | 'Deleting' }) {
  const host = run.confinement.host ?? 'its SSH host';
  return (
    <p className="callout callout--warning">
      Its work on {host} was never brought back, so it is not counted here. {doing} the run removes it on {host} too. To keep it, use Fetch the work
      again on the run’s notice first.
    </p>
  );
}

/** Discard…: asks first, naming what goes (the work the project does not have, the disk it takes). */
export function DiscardDialog({ run, holdings, branch, onClose }: { run: RunDetail; holdings: RunHoldings; branch: string; onClose: () => void }) {
  const discard = useDiscardRun();
  const { uncommittedFiles, unlandedCommits, diskBytes } = holdings;
  const losses = [
    uncommittedFiles.length > 0 ? `${pluralize(uncommittedFiles.length, 'uncommitted file')}: ${listFew(uncommittedFiles)}` : null,
    unlandedCommits.length > 0
      ? `${pluralize(unlandedCommits.length, 'commit')} not landed: ${listFew(unlandedCommits.map((commit) => commit.subject))}`
      : null,
    diskBytes !== null ? `${formatBytes(diskBytes)} on disk` : null,
  ].filter((loss): loss is string => loss !== null);
  return (
    <ConfirmDialog
      title="Discard the run’s work"
      description={
        <p>
          Discard this run’s work? Its store, its branch <code>{branch}</code> and its files are removed; its history and output stay in the console.
          {run.canResume ? ' It can no longer be resumed.' : ''}
        </p>
      }
      confirmLabel="Discard"
      pendingNote="Removing the run’s files…"
      error={discard.error}
      errorPrefix="Could not discard the run."
      onConfirm={() => discard.mutateAsync(run.id).then(onClose)}
      onClose={onClose}
    >
      {run.hostWorkLeftSince !== null ? <WorkLeftOnHost run={run} doing="Discarding" /> : null}
      {uncommittedFiles.length > 0 || unlandedCommits.length > 0 ? (
        <div className="callout callout--warning">
          <p>Lost with it, since the project does not have them:</p>
          <ul aria-label="What is lost">
            {losses.map((loss) => (
              <li key={loss}>{loss}</li>
            ))}
          </ul>
        </div>
      ) : run.hostWorkLeftSince !== null ? null : (
        <p>
          It holds nothing the project does not have already{diskBytes !== null ? `; ${formatBytes(diskBytes)} on disk are freed` : ''}.
        </p>
      )}
    </ConfirmDialog>
  );
}
