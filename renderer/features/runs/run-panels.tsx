import { Fragment, useId } from 'react';
import { attemptCauseText } from '../../../shared/attempt-cause';
import type { RunDetail } from '../../../shared/entities';
import { formatFullTimestamp, formatTimestamp } from '../../ui/format';
import { isActiveRunStatus, unverifiableStatus } from '../../ui/run-status';
import { useTransportState } from '../../app/use-core-sync';
import { attemptExit, locatorFacts, locatorSummary, shortDigest } from './run-detail-format';
import { RunPanel } from './run-panel';

const attemptStatusLabels: Record<RunDetail['attempts'][number]['status'], { label: string; tone: string }> = {
  running: { label: 'Running', tone: 'progress' },
  succeeded: { label: 'Succeeded', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
  cancelled: { label: 'Cancelled', tone: 'muted' },
  stranded: { label: 'Stranded', tone: 'stranded' },
};

type Confinement = RunDetail['confinement'];

const sandboxLabels: Record<Confinement['sandbox'], string> = {
  none: 'None (local)',
  bubblewrap: 'bubblewrap',
  seatbelt: 'Seatbelt',
};

const networkLabels: Record<Confinement['network'], string> = {
  open: 'Open (the host’s network)',
  none: 'None',
  'provider-only': 'Provider API only',
};

const environmentKindLabels: Record<Confinement['environmentKind'], string> = {
  local: 'Local',
  sandboxed: 'Sandboxed',
};

/** A path inside the task root reads relative to it (`view`, `tmp`); the full path is in the tooltip. */
function withinTaskRoot(path: string, taskRoot: string | null): string {
  if (!taskRoot) return path;
  const prefix = taskRoot.endsWith('/') ? taskRoot : `${taskRoot}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function When({ iso, now }: { iso: string | null; now: number }) {
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={formatFullTimestamp(iso)}>
      {formatTimestamp(iso, now)}
    </time>
  );
}

export function AttemptsPanel({ run, now }: { run: RunDetail; now: number }) {
  // An attempt still running is Unverifiable while the console service cannot be reached, as its run is.
  const connected = useTransportState() === 'connected';
  return (
    <RunPanel title="Attempts">
      {(headingId) =>
        run.attempts.length === 0 ? (
          <p className="muted">No attempt has started yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="data-table data-table--compact" aria-labelledby={headingId}>
              <thead>
                <tr>
                  <th scope="col" className="numeric">
                    #
                  </th>
                  <th scope="col">Why it started</th>
                  <th scope="col">Status</th>
                  <th scope="col">Failure</th>
                  <th scope="col">Exit</th>
                  <th scope="col">Retry at</th>
                  <th scope="col">Started</th>
                  <th scope="col">Ended</th>
                </tr>
              </thead>
              <tbody>
                {run.attempts.map((attempt, index) => {
                  const status = attempt.status === 'running' && !connected ? unverifiableStatus : attemptStatusLabels[attempt.status];
                  // As the ledger recorded it (the same words as the terminal's separator); unknown for an older attempt.
                  const cause = attemptCauseText(attempt, run.attempts[index - 1] ?? null);
                  return (
                    <tr key={attempt.number}>
                      <th scope="row" className="numeric">
                        {attempt.number}
                      </th>
                      <td>{cause ? capitalize(cause) : <span className="muted">Not recorded</span>}</td>
                      <td className="nowrap">
                        <span className={`status-badge tone-${status.tone}`} data-status={status === unverifiableStatus ? 'unverifiable' : attempt.status}>
                          <span className="status-badge__mark" aria-hidden="true" />
                          {status.label}
                        </span>
                      </td>
                      <td>{attempt.failureCode ? <code>{attempt.failureCode}</code> : <span className="muted">—</span>}</td>
                      <td className="nowrap">{attemptExit(attempt)}</td>
                      <td className="nowrap">
                        <When iso={attempt.retryAt} now={now} />
                      </td>
                      <td className="nowrap">
                        <When iso={attempt.startedAt} now={now} />
                      </td>
                      <td className="nowrap">
                        <When iso={attempt.endedAt} now={now} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )
      }
    </RunPanel>
  );
}

/** Where the run's live parts are: in words first; the raw record (what recovery reads) behind a toggle. */
export function LocatorsPanel({ run }: { run: RunDetail }) {
  if (run.locators.length === 0) return null;
  return (
    <RunPanel title="Locators">
      {(headingId) => (
        <ul className="locator-list" aria-labelledby={headingId}>
          {run.locators.map((locator) => {
            const summary = locatorSummary(locator, run.attempts, (iso) => formatFullTimestamp(iso));
            return (
              <li key={locator.kind} className="locator">
                <p className="locator__title">{summary.title}</p>
                <dl className="facts facts--compact locator__facts" aria-label={summary.title}>
                  {summary.facts.map((fact) => (
                    <Fragment key={fact.label}>
                      <dt>{fact.label}</dt>
                      <dd>{fact.value}</dd>
                    </Fragment>
                  ))}
                </dl>
                <details className="locator__raw">
                  <summary>Raw values</summary>
                  <p className="muted">What the console reads to find this again after a restart.</p>
                  <ul>
                    {locatorFacts(locator.data).map((fact) => (
                      <li key={fact.label}>
                        <span className="muted">{fact.label}</span> <code>{fact.value}</code>
                      </li>
                    ))}
                    <li>
                      <span className="muted">revision</span> <code title={locator.revision}>{shortDigest(locator.revision, 12)}</code>
                    </li>
                  </ul>
                  {locator.kind === 'process' && locator.data.startTime !== undefined ? (
                    <p className="muted">startTime is in clock ticks after the machine booted: it tells this process from a later one that reuses its pid.</p>
                  ) : null}
                </details>
              </li>
            );
          })}
        </ul>
      )}
    </RunPanel>
  );
}

export function SubmissionPanel({ run }: { run: RunDetail }) {
  if (!run.submission) return null;
  return (
    <RunPanel title="Submission">
      <dl className="facts facts--compact">
        <dt>Ready for review</dt>
        <dd>{run.submission.readyForReview ? 'Yes' : 'No'}</dd>
        <dt>Artifact identity</dt>
        <dd>
          <code title={run.submission.artifactIdentity}>{shortDigest(run.submission.artifactIdentity)}</code>
        </dd>
      </dl>
    </RunPanel>
  );
}

export function RunDetailsPanel({ run, providerName }: { run: RunDetail; providerName: string }) {
  return (
    <RunPanel title="Details">
      <dl className="facts facts--compact">
        <dt>Provider</dt>
        <dd>{providerName}</dd>
        <dt>Model</dt>
        <dd>
          <code>{run.model}</code>
        </dd>
        <dt>Profile</dt>
        <dd>
          <code>{run.profileId}</code>
          {run.profileRevision ? (
            <span className="muted" title={run.profileRevision}>
              {' '}
              rev <code>{shortDigest(run.profileRevision, 8)}</code>
            </span>
          ) : null}
        </dd>
        <dt>Working directory</dt>
        <dd>{run.cwd ? <code title={run.cwd}>{withinTaskRoot(run.cwd, run.taskRoot)}</code> : <span className="muted">Not prepared</span>}</dd>
        {run.baseRevision ? (
          <>
            <dt>Base revision</dt>
            <dd>
              <code title={run.baseRevision}>{shortDigest(run.baseRevision)}</code>
            </dd>
          </>
        ) : null}
        {run.configFingerprint ? (
          <>
            <dt>Configuration</dt>
            <dd>
              <code title={run.configFingerprint}>{shortDigest(run.configFingerprint)}</code>
            </dd>
          </>
        ) : null}
        <dt>Output</dt>
        <dd>{run.outputBytes.toLocaleString()} bytes</dd>
        <dt>Run id</dt>
        <dd>
          <code>{run.id}</code>
        </dd>
      </dl>
    </RunPanel>
  );
}

/** How the run is confined (DESIGN.md section 4): what it could reach, and where it could write. */
export function ConfinementPanel({ run }: { run: RunDetail }) {
  const rootsId = useId();
  const { confinement } = run;
  const kind = environmentKindLabels[confinement.environmentKind];
  return (
    <RunPanel title="Confinement" labelledRegion>
      <dl className="facts facts--compact">
        <dt>Environment</dt>
        <dd>
          {confinement.environmentName === kind ? (
            kind
          ) : (
            <>
              {confinement.environmentName} <span className="muted">({kind})</span>
            </>
          )}
        </dd>
        {confinement.host ? (
          <>
            <dt>SSH host</dt>
            <dd>
              {confinement.host} <span className="muted">· runs there, confined as here; its writable roots are on the host</span>
            </dd>
          </>
        ) : null}
        <dt>Sandbox</dt>
        <dd>
          {sandboxLabels[confinement.sandbox]}
          {confinement.sandbox === 'none' ? <span className="muted"> · runs as you, with your rights</span> : null}
        </dd>
        {confinement.sandbox !== 'none' ? (
          <>
            <dt>Runs as</dt>
            <dd>{confinement.runsAs ?? 'You, inside the sandbox'}</dd>
            <dt>System calls</dt>
            <dd>{confinement.syscallFilter ? 'Filtered (no new namespaces, mounts, ptrace, keyrings, bpf, kernel modules)' : 'Not filtered'}</dd>
          </>
        ) : null}
        <dt>Network</dt>
        <dd>{networkLabels[confinement.network]}</dd>
        <dt>Home</dt>
        <dd>{confinement.homeMode === 'isolated' ? 'Isolated' : 'Preconfigured (your own login)'}</dd>
        {run.taskRoot ? (
          <>
            <dt>Task root</dt>
            <dd>
              <code>{run.taskRoot}</code>
              {run.archived ? <span className="muted"> · removed when the run was archived</span> : null}
            </dd>
          </>
        ) : null}
        <dt id={rootsId}>Writable roots</dt>
        <dd>
          {confinement.writableRoots.length > 0 ? (
            <ul className="plain-list" aria-labelledby={rootsId}>
              {confinement.writableRoots.map((root) => (
                <li key={root} title={root}>
                  <code>{withinTaskRoot(root, run.taskRoot)}</code>
                </li>
              ))}
            </ul>
          ) : (
            <span className="muted">{isActiveRunStatus(run.status) ? 'None yet: made when the run starts' : 'None: the run never had a task root'}</span>
          )}
        </dd>
      </dl>
    </RunPanel>
  );
}
