import type { RunStatus } from '../../shared/entities';
import type { Ledger } from '../ledger/ledger';
import type { RunRecordChanges } from '../ledger/runs-repository';
import type { Logger } from '../platform/log';

/**
 * The run lifecycle, as the one table every status change is checked against:
 *
 *   queued → admitted → preparing → [setting_up →] running → succeeded | failed | cancelled
 *
 * plus `refused` (admission said no; nothing started, nothing follows), `stranded` (the console
 * stopped while the run was live), `setting_up` (the project's setup command runs before the agent;
 * a failed setup fails the run and no agent starts), `running → preparing` (a retry's next attempt) and
 * `ended → admitted` (Resume). A run is created `queued` or `refused` (runs-repository `insert`).
 */
export const allowedTransitions: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  queued: ['admitted', 'refused', 'cancelled'],
  // Admitted: a launch that throws before it prepares fails it; a stop or a dead console ends it.
  admitted: ['preparing', 'failed', 'cancelled', 'stranded'],
  preparing: ['setting_up', 'running', 'failed', 'cancelled', 'stranded'],
  setting_up: ['running', 'failed', 'cancelled', 'stranded'],
  running: ['preparing', 'succeeded', 'failed', 'cancelled', 'stranded'],
  succeeded: ['admitted'],
  failed: ['admitted'],
  cancelled: ['admitted'],
  stranded: ['admitted'],
  refused: [],
};

export const endedStatuses: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'];
/** The statuses in which the console drives the run (it has or is getting a process). */
export const liveStatuses: readonly RunStatus[] = ['admitted', 'preparing', 'setting_up', 'running'];

export function isAllowedTransition(from: RunStatus, to: RunStatus): boolean {
  return allowedTransitions[from].includes(to);
}

/**
 * The one way a run's status changes. An illegal move (for example a second ending of a run that has
 * ended, or a refused run made running) is refused and logged, and the record is left as it was:
 * false tells the caller the run is not where it thought.
 */
export function transitionRun(
  context: { ledger: Ledger; log: Logger },
  runId: string,
  to: RunStatus,
  changes: RunRecordChanges = {},
): boolean {
  const from = context.ledger.runs.row(runId)?.status;
  if (from === undefined) {
    context.log.error('run status change refused: no such run', { runId, to });
    return false;
  }
  if (!isAllowedTransition(from, to)) {
    context.log.error('run status change refused: not a lifecycle step', { runId, from, to });
    return false;
  }
  // Compare and set: a writer that read the same `from` a moment ago loses, and is told so.
  if (!context.ledger.runs.setStatus(runId, from, to, changes)) {
    context.log.error('run status change refused: the run moved meanwhile', { runId, from, to });
    return false;
  }
  return true;
}
