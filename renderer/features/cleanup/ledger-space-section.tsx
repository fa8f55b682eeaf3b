import type { LedgerSpace } from '../../../shared/landing';
import { ErrorAlert } from '../../ui/error-alert';
import { formatBytes } from '../../ui/format';
import { Loading, QueryError } from '../../ui/query-error';
import { useDiskUsage, useReclaimLedgerSpace } from './use-cleanup';

type Reclaim = ReturnType<typeof useReclaimLedgerSpace>;

function LedgerFigures({ ledger, reclaim }: { ledger: LedgerSpace; reclaim: Reclaim }) {
  const { file, fileBytes, walBytes, reclaimableBytes, mode } = ledger;
  const working = reclaim.isPending || ledger.reclaiming;
  const status = working
    ? `Giving space back to the disk… ${formatBytes(reclaimableBytes)} left.`
    : reclaim.isSuccess
      ? `Gave ${formatBytes(reclaim.data.reclaimedBytes)} back to the disk; the ledger now takes ${formatBytes(reclaim.data.ledger.fileBytes + reclaim.data.ledger.walBytes)}.`
      : reclaimableBytes > 0
        ? `${formatBytes(reclaimableBytes)} of it is free space deleted runs left.`
        : mode === 'incremental'
          ? 'Nothing in it is waiting to go back to the disk.'
          : '';
  return (
    <>
      <p className="section-intro">
        The ledger keeps every run’s history and output. <code>{file}</code> takes <strong>{formatBytes(fileBytes + walBytes)}</strong> on the disk
        {walBytes > 0 ? ` (its write-ahead log ${formatBytes(walBytes)} of it)` : ''}.{' '}
        {mode === 'incremental'
          ? 'Deleting a run gives the room its output took back to the disk at once.'
          : 'It was made by an earlier console: the room deleted runs leave stays inside it, for new output, until the console converts it, which it does at a start when the disk has about the ledger’s size free.'}
      </p>
      <div className="list-footer">
        {mode === 'incremental' && (reclaimableBytes > 0 || working) ? (
          <button
            type="button"
            className="button"
            aria-disabled={working || undefined}
            onClick={() => {
              if (!working) reclaim.mutate();
            }}
          >
            Give {formatBytes(reclaimableBytes)} back to the disk
          </button>
        ) : null}
        <span className="muted" aria-live="polite">
          {status}
        </span>
      </div>
      {reclaim.isError ? <ErrorAlert error={reclaim.error} prefix="Could not give the space back." /> : null}
    </>
  );
}

/**
 * The ledger on Clean up: what it takes on the disk, what deleted runs left free inside it, and Give
 * back. Deleting a run gives its output's room back by itself (electron/ledger/ledger-space.ts); what
 * is left over (a give-back the full disk refused, other deletions) goes with the button, and the
 * figures follow it while it works.
 */
export function LedgerSpaceSection() {
  const reclaim = useReclaimLedgerSpace();
  const usage = useDiskUsage({ watching: reclaim.isPending });
  return (
    <section className="settings-section" aria-labelledby="cleanup-ledger-heading">
      <h2 id="cleanup-ledger-heading" className="section-title">
        The ledger
      </h2>
      {usage.isPending ? (
        <Loading what="the ledger’s size" />
      ) : usage.isError ? (
        <QueryError what="the ledger’s size" error={usage.error} onRetry={() => void usage.refetch()} />
      ) : (
        <LedgerFigures ledger={usage.data.ledger} reclaim={reclaim} />
      )}
    </section>
  );
}
