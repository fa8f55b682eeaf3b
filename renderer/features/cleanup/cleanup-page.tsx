import { useState } from 'react';
import { Link } from 'wouter';
import type { ChannelOutput } from '../../../shared/contract';
import type { CleanupCandidate } from '../../../shared/landing';
import { actionPath } from '../../../shared/routes';
import { Choice } from '../../ui/choice';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { EmptyState } from '../../ui/empty-state';
import { formatBytes, pluralize } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { StatusBadge } from '../../ui/status-badge';
import { BackToRuns } from '../runs/back-to-runs';
import { landingStateLabels } from '../runs/landing-labels';
import { asRunStatus } from '../compare/compare-labels';
import { CleanupPolicySection } from './cleanup-policy-form';
import { LedgerSpaceSection } from './ledger-space-section';
import { candidateName, cleanupRequest, needsConfirmation, preselectedRunIds, removalLabel } from './cleanup-rules';
import { useCleanupPlan, useCleanUpRuns } from './use-cleanup';

type CleanupResult = ChannelOutput<'cleanUpRuns'>;

const none = <span className="muted">—</span>;

function CandidateRow({ candidate, selected, onSelect }: { candidate: CleanupCandidate; selected: boolean; onSelect: (on: boolean) => void }) {
  const status = asRunStatus(candidate.status);
  const { uncommittedFiles, unlandedCommits, diskBytes } = candidate.holdings;
  return (
    <tr>
      <td>
        {needsConfirmation(candidate) ? (
          // Named in full beside the box: ticking it is the confirmation the core asks for.
          <Choice type="checkbox" value={candidate.runId} checked={selected} onChange={onSelect} label={removalLabel(candidate)} />
        ) : (
          <input type="checkbox" checked={selected} onChange={(event) => onSelect(event.target.checked)} aria-label={removalLabel(candidate)} />
        )}
      </td>
      <th scope="row" className="data-table__primary">
        <Link href={actionPath({ kind: 'run', runId: candidate.runId })} className="table-link">
          {candidateName(candidate)}
        </Link>
      </th>
      <td className="nowrap">{status ? <StatusBadge status={status} /> : candidate.status}</td>
      <td className="nowrap">{landingStateLabels[candidate.landingState]}</td>
      <td className="numeric">{diskBytes === null ? none : formatBytes(diskBytes)}</td>
      <td className="numeric" title={uncommittedFiles.join('\n') || undefined}>
        {uncommittedFiles.length === 0 ? none : uncommittedFiles.length}
      </td>
      <td className="numeric" title={unlandedCommits.map((commit) => `${commit.sha.slice(0, 7)} ${commit.subject}`).join('\n') || undefined}>
        {unlandedCommits.length === 0 ? none : unlandedCommits.length}
      </td>
      <td>{candidate.resumable ? 'Yes' : 'No'}</td>
    </tr>
  );
}

/** What cleanUpRuns did: the runs whose files went, the bytes freed, and each run kept with why. */
function CleanupOutcome({ result, names }: { result: CleanupResult; names: Map<string, string> }) {
  return (
    <div className="callout callout--success cleanup-result">
      <p>
        Removed the files of {pluralize(result.removed.length, 'run')}, freeing {formatBytes(result.freedBytes)}. Their history stays.
      </p>
      {result.gitStores.length > 0 ? (
        <ul aria-label="Git stores on SSH hosts">
          {result.gitStores.map((host) => (
            <li key={host.host}>
              {host.error === null
                ? `Removed ${pluralize(host.removed, 'project git store')} on ${host.host} that no run there needs any more (${formatBytes(host.freedBytes)}).`
                : `Could not remove the unused git stores on ${host.host} (${host.error}); the next clean-up tries again.`}
            </li>
          ))}
        </ul>
      ) : null}
      {result.kept.length > 0 ? (
        <ul aria-label="Runs kept">
          {result.kept.map((kept) => (
            <li key={kept.runId}>
              Kept “{names.get(kept.runId) ?? kept.runId}”: {kept.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function CleanupList() {
  const plan = useCleanupPlan();
  const cleanUp = useCleanUpRuns();
  // Null until the operator ticks or unticks a run: then only the freely removable ones are ticked.
  const [selection, setSelection] = useState<Set<string> | null>(null);
  const [confirming, setConfirming] = useState(false);
  // Names outlive the plan's refetch, which no longer lists the runs just removed.
  const [outcome, setOutcome] = useState<{ result: CleanupResult; names: Map<string, string> } | null>(null);

  if (plan.isPending) return <Loading what="the runs to clean up" />;
  if (plan.isError && !plan.data) return <QueryError what="the runs to clean up" error={plan.error} onRetry={() => void plan.refetch()} />;

  const { candidates } = plan.data;
  const selected = selection ?? new Set(preselectedRunIds(candidates));
  const request = cleanupRequest(candidates, selected);
  const chosen = candidates.filter((candidate) => selected.has(candidate.runId));
  const unlanded = chosen.filter(needsConfirmation);
  const freeing = chosen.reduce((sum, candidate) => sum + (candidate.holdings.diskBytes ?? 0), 0);

  const select = (runId: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(runId);
    else next.delete(runId);
    setSelection(next);
  };

  return (
    <>
      <div aria-live="polite" className="live-region">
        {outcome ? <CleanupOutcome result={outcome.result} names={outcome.names} /> : null}
      </div>
      {plan.isRefetchError ? <QueryError what="the latest runs to clean up" error={plan.error} onRetry={() => void plan.refetch()} /> : null}
      {candidates.length === 0 ? (
        <EmptyState title="Nothing to clean up">
          <p>No finished run has files on disk. Runs still working are never listed here.</p>
        </EmptyState>
      ) : (
        <>
          <p className="section-intro">
            Nothing is removed yet: this is what would go. Landed and discarded runs are ticked; a run with work not landed, or one that
            could still be resumed, goes only when you tick it by name.
          </p>
          <div className="table-wrap">
            <table className="data-table cleanup-table">
              <caption className="visually-hidden">Finished runs whose files could be removed</caption>
              <thead>
                <tr>
                  <th scope="col">Remove</th>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">Landing</th>
                  <th scope="col" className="numeric">
                    Size
                  </th>
                  <th scope="col" className="numeric">
                    Uncommitted files
                  </th>
                  <th scope="col" className="numeric">
                    Commits not landed
                  </th>
                  <th scope="col">Resumable</th>
                </tr>
              </thead>
              <tbody>
                {candidates.map((candidate) => (
                  <CandidateRow
                    key={candidate.runId}
                    candidate={candidate}
                    selected={selected.has(candidate.runId)}
                    onSelect={(on) => select(candidate.runId, on)}
                  />
                ))}
              </tbody>
            </table>
          </div>
          <div className="list-footer">
            <button
              type="button"
              className="button button--danger"
              aria-disabled={chosen.length === 0 || undefined}
              onClick={() => {
                if (chosen.length > 0) setConfirming(true);
              }}
            >
              Remove the files of {pluralize(chosen.length, 'run')}
            </button>
            <span className="muted">{chosen.length > 0 ? `About ${formatBytes(freeing)}` : 'Tick the runs whose files should go.'}</span>
          </div>
        </>
      )}
      {confirming ? (
        <ConfirmDialog
          title={`Remove the files of ${pluralize(chosen.length, 'run')}?`}
          description={<p>Their task roots (files, store and branch) are removed, about {formatBytes(freeing)}. Their history, output and diff summary stay.</p>}
          confirmLabel="Remove files"
          pendingNote="Removing the task roots…"
          error={cleanUp.error}
          errorPrefix="Could not clean up."
          onConfirm={() => {
            const names = new Map(candidates.map((candidate) => [candidate.runId, candidateName(candidate)]));
            return cleanUp.mutateAsync(request).then((result) => {
              setOutcome({ result, names });
              setSelection(null);
              setConfirming(false);
            });
          }}
          onClose={() => setConfirming(false)}
        >
          {unlanded.length > 0 ? (
            <div className="callout callout--warning">
              <p>This includes work that is not landed anywhere, or runs that could still be resumed:</p>
              <ul aria-label="Unlanded work to remove">
                {unlanded.map((candidate) => (
                  <li key={candidate.runId}>{candidateName(candidate)}</li>
                ))}
              </ul>
            </div>
          ) : null}
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/**
 * Clean up: first a dry run of what would be removed and what each run holds, then the removal of
 * the runs ticked; the ledger's size and Give back; the policy that removes settled runs' files by
 * itself after N days.
 */
export function CleanupPage() {
  return (
    <Page title="Clean up" subtitle="Free the disk finished runs take, without losing work that is not landed." actions={<BackToRuns />} className="cleanup-page">
      <CleanupList />
      <LedgerSpaceSection />
      <CleanupPolicySection />
    </Page>
  );
}
