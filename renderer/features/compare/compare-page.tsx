import { useState } from 'react';
import { Link } from 'wouter';
import type { RunComparison } from '../../../shared/landing';
import { actionPath } from '../../../shared/routes';
import { EmptyState } from '../../ui/empty-state';
import { formatDuration, pluralize } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { StatusBadge } from '../../ui/status-badge';
import { DiffStat } from '../runs/diff-file-labels';
import { RunLandingBadge } from '../runs/run-landing-badge';
import { CompareDiffs } from './compare-diffs';
import { CompareLandDialog, type LandResult } from './compare-land-dialog';
import { asRunStatus, canLandComparedRun, comparedRunNames } from './compare-labels';
import { useTaskComparison } from './use-compare';

const none = <span className="muted">—</span>;

function CompareRow({
  run,
  name,
  picked,
  onPick,
  onLand,
}: {
  run: RunComparison;
  name: string;
  picked: boolean;
  onPick: (on: boolean) => void;
  onLand: () => void;
}) {
  const status = asRunStatus(run.status);
  const counted = run.changesNote ? <span className="muted" title={run.changesNote}>—</span> : none;
  return (
    <tr>
      <td>
        <input type="checkbox" checked={picked} onChange={(event) => onPick(event.target.checked)} aria-label={`Compare ${name}`} />
      </td>
      <th scope="row" className="data-table__primary">
        <Link href={actionPath({ kind: 'run', runId: run.runId })} className="table-link">
          {name}
        </Link>
      </th>
      <td className="nowrap">{status ? <StatusBadge status={status} /> : run.status}</td>
      <td className="numeric">{run.durationMs === null ? none : formatDuration(run.durationMs)}</td>
      <td className="numeric">{run.attempts}</td>
      <td className="numeric">{run.tokens === null ? none : run.tokens.toLocaleString()}</td>
      <td className="numeric">{run.filesChanged === null ? counted : run.filesChanged}</td>
      <td className="numeric nowrap">
        {run.linesAdded === null || run.linesRemoved === null ? counted : <DiffStat additions={run.linesAdded} deletions={run.linesRemoved} />}
      </td>
      <td className="nowrap">
        <RunLandingBadge landing={run.landing} />
      </td>
      <td className="nowrap">
        {canLandComparedRun(run) ? (
          <button type="button" className="button button--small button--primary" aria-label={`Land ${name}`} onClick={onLand}>
            Land this one
          </button>
        ) : null}
      </td>
    </tr>
  );
}

/** What Land this one did, once it answered: said on the page, where the table now shows it. */
function LandedNote({ result }: { result: { land: LandResult; name: string } }) {
  const { landing, workingCopyUpdated, discarded } = result.land;
  return (
    <p className="callout callout--success">
      Landed {result.name}’s run{landing.landed ? ` in ${landing.landed.target} (${landing.landed.strategy})` : ''}.
      {workingCopyUpdated ? ' Your working copy was updated.' : ''}
      {discarded.length > 0 ? ` Discarded ${pluralize(discarded.length, 'other run')}.` : ''}
    </p>
  );
}

/**
 * Compare: a task's runs side by side (status, duration, attempts, tokens, files and lines changed,
 * landing), any two of them picked for their diffs next to each other, and Land this one.
 */
export function ComparePage({ taskId }: { taskId: string }) {
  const comparison = useTaskComparison(taskId);
  // Null until the operator picks: the first two runs are compared.
  const [picked, setPicked] = useState<string[] | null>(null);
  const [landing, setLanding] = useState<string | null>(null);
  const [landed, setLanded] = useState<{ land: LandResult; name: string } | null>(null);

  const back = (
    <Link href="/tasks" className="button">
      Back to the tasks
    </Link>
  );

  if (comparison.isPending) {
    return (
      <Page title="Compare runs" actions={back}>
        <Loading what="the task’s runs" />
      </Page>
    );
  }
  if (comparison.isError && !comparison.data) {
    return (
      <Page title="Compare runs" actions={back}>
        <QueryError what="the task’s runs" error={comparison.error} onRetry={() => void comparison.refetch()} />
      </Page>
    );
  }

  const { taskTitle, runs } = comparison.data;
  const names = comparedRunNames(runs);
  const present = (picked ?? runs.slice(0, 2).map((run) => run.runId)).filter((runId) => runs.some((run) => run.runId === runId));
  const [left, right] = present.map((runId) => runs.find((run) => run.runId === runId)!);
  const landingRun = runs.find((run) => run.runId === landing);

  const pick = (runId: string, on: boolean) =>
    // Two at a time: a third pick lets go of the one picked first.
    setPicked(on ? [...present.filter((id) => id !== runId), runId].slice(-2) : present.filter((id) => id !== runId));

  return (
    <Page title="Compare runs" subtitle={taskTitle} documentTitle={`Compare · ${taskTitle}`} actions={back} className="compare-page">
      {comparison.isRefetchError ? <QueryError what="the latest runs" error={comparison.error} onRetry={() => void comparison.refetch()} /> : null}
      <div aria-live="polite" className="live-region">
        {landed ? <LandedNote result={landed} /> : null}
      </div>
      {runs.length === 0 ? (
        <EmptyState title="This task has not run yet">
          <p>Run it on several agents from the Tasks page to compare what each did.</p>
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table className="data-table compare-table">
              <caption className="visually-hidden">Runs of {taskTitle}, side by side</caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span className="visually-hidden">Compare</span>
                  </th>
                  <th scope="col">Agent</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="numeric">
                    Duration
                  </th>
                  <th scope="col" className="numeric">
                    Attempts
                  </th>
                  <th scope="col" className="numeric">
                    Tokens
                  </th>
                  <th scope="col" className="numeric">
                    Files changed
                  </th>
                  <th scope="col" className="numeric">
                    Lines
                  </th>
                  <th scope="col">Landing</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {runs.map((run) => (
                  <CompareRow
                    key={run.runId}
                    run={run}
                    name={names.get(run.runId)!}
                    picked={present.includes(run.runId)}
                    onPick={(on) => pick(run.runId, on)}
                    onLand={() => setLanding(run.runId)}
                  />
                ))}
              </tbody>
            </table>
          </div>
          <h2 className="section-title">Changes side by side</h2>
          {left && right ? (
            <CompareDiffs left={left} right={right} names={names} />
          ) : (
            <p className="muted">{runs.length < 2 ? 'This task has one run: run it on another agent to compare.' : 'Tick two runs above to see their changes next to each other.'}</p>
          )}
        </>
      )}
      {landingRun ? (
        <CompareLandDialog
          run={landingRun}
          name={names.get(landingRun.runId)!}
          taskTitle={taskTitle}
          others={runs.filter((run) => run.runId !== landingRun.runId)}
          names={names}
          onLanded={(land) => {
            setLanded({ land, name: names.get(landingRun.runId)! });
            setLanding(null);
          }}
          onClose={() => setLanding(null)}
        />
      ) : null}
    </Page>
  );
}
