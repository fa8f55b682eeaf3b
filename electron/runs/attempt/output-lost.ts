import { describeBytes } from '../../platform/disk-space';
import type { PtyExit } from '../../pty/pty-session';
import { runDiskFullFailure } from '../notices/disk-full-notices';
import { stopReason, type ActiveRun, type RunContext } from '../run-context';

/** The bus hears the run was stopped by a full disk (the Disk full notice is a subscriber: notices/disk-full-reactions.ts). */
export function tellDiskFull(context: RunContext, active: ActiveRun): void {
  let taskId: string | null = null;
  try {
    taskId = context.ledger.runs.row(active.runId)?.task_id ?? null;
  } catch {
    // Reading a full disk's ledger still works; if it did not, the notice names no task.
  }
  context.lifecycle.emit('diskFull', { runId: active.runId, agent: { id: active.agentId, name: active.admission.agentName }, taskId });
}

/**
 * The ledger gave up storing the attempt's output (a full disk), and its process was stopped (the
 * setup command's or the agent's): the attempt and the run end with what was stored, and are not
 * retried. A Stop that came first wins.
 */
export function outputLost(context: RunContext, active: ActiveRun, exit: PtyExit, storedBytes: number): void {
  const stopped = stopReason(active) === 'operator';
  const endedAt = context.now();
  // The disk is full: the attempt's end and the run's are retried together until the ledger takes
  // them. Once the attempt's end is in, it is not ended again.
  const finishAttempt = () => {
    if (!active.attempt?.running) return;
    active.attempt.finish({
      exitCode: exit.exitCode,
      signal: exit.signal,
      retryAt: null,
      endedAt,
      status: stopped ? 'cancelled' : 'failed',
      failureCode: stopped ? 'cancelled' : 'disk_full',
    });
  };
  context.log.warn('run stopped: its output could not be stored', { runId: active.runId, storedBytes });
  tellDiskFull(context, active);
  if (stopped) return context.endWhenWritable(active.runId, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator.' }, finishAttempt);
  context.endWhenWritable(
    active.runId,
    'failed',
    runDiskFullFailure(context.options.dataDir, `The run’s output could not be stored after ${describeBytes(storedBytes)}, so it was stopped`),
    finishAttempt,
  );
}
