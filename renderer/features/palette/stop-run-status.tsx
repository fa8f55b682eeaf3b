import { useEffect } from 'react';
import { Link } from 'wouter';
import type { RunStatus } from '../../../shared/entities';
import { actionPath } from '../../../shared/routes';
import { isActiveRunStatus, runStatusLabel } from '../../ui/run-status';
import { useRun } from '../runs/use-runs';

/** How a Stop chosen in the palette went; the palette has closed by then, so this says it instead. */
export type StopRunOutcome =
  /** The request is on its way. */
  | { state: 'stopping'; runId: string; label: string }
  /** The agent was told to stop and has not exited yet. */
  | { state: 'asked'; runId: string; label: string }
  | { state: 'ended'; runId: string; label: string; status: RunStatus }
  | { state: 'failed'; runId: string; label: string; message: string };

function outcomeText(outcome: StopRunOutcome): string {
  switch (outcome.state) {
    case 'stopping':
      return `Stopping ${outcome.label}…`;
    case 'asked':
      return `Stopping ${outcome.label}: the agent was told to stop…`;
    case 'ended':
      return outcome.status === 'cancelled' ? `Stopped ${outcome.label}.` : `${outcome.label} ended before it could be stopped: ${runStatusLabel(outcome.status)}.`;
    case 'failed':
      return `Could not stop ${outcome.label}. ${outcome.message}`;
  }
}

/** Follows a run the agent was told to stop until it has (runsChanged keeps the query fresh). */
export function StoppingRunFollower({ runId, onEnded }: { runId: string; onEnded: (status: RunStatus) => void }) {
  const run = useRun(runId);
  const status = run.data?.status;
  useEffect(() => {
    if (status && !isActiveRunStatus(status)) onEnded(status);
  }, [status, onEnded]);
  return null;
}

/**
 * A small note in the corner. Its live region is always there so screen readers hear each change (a
 * region added with its text is often not read); a failure is an alert. It stays until dismissed or replaced: a note that vanishes on a timer may
 * vanish before it is read.
 */
export function StopRunStatus({ outcome, onDismiss }: { outcome: StopRunOutcome | null; onDismiss: () => void }) {
  const failed = outcome?.state === 'failed';
  const body = outcome ? (
    <div className={`palette-toast${failed ? ' palette-toast--failed' : ''}`}>
      <p className="palette-toast__text">{outcomeText(outcome)}</p>
      <Link href={actionPath({ kind: 'run', runId: outcome.runId })} className="palette-toast__link" onClick={onDismiss}>
        Open the run
      </Link>
      <button type="button" className="button button--small button--quiet" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  ) : null;
  return (
    <div className="palette-toasts">
      <div aria-live="polite" aria-atomic="true">
        {failed ? null : body}
      </div>
      {failed ? <div role="alert">{body}</div> : null}
    </div>
  );
}
