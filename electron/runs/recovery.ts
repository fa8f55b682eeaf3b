import type { OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../platform/log';
import type { NoticeService } from '../notices/notice-service';
import type { ProviderCatalog } from '../providers/catalog';
import { isProcessGroupAlive, ProcessGroupWatch, signalProcessGroup } from '../platform/process-group';
import { savedAdmission } from './admission';
import { endAttempt } from './attempt/attempt-record';
import { processStartTime } from '../platform/process-identity';
import { removeLeftoverCredentials } from './run-credentials';
import { liveStatuses, transitionRun } from './run-transitions';

export interface RecoveryOptions {
  ledger: Ledger;
  catalog: ProviderCatalog;
  notices: NoticeService;
  log: Logger;
  now: () => number;
  /** A run is stranded now, with this failure: the run service announces it and tells the lifecycle. */
  stranded: (runId: string, failure: OperatorErrorShape) => void;
  /** Live runs the scheduler took up again (waiting between attempts): not stranded. */
  resumed?: ReadonlySet<string>;
  /** Stops an agent a dead console left on an SSH host (its locator names the host and the attempt's folder there). */
  stopOnHost?: (hostId: string, attemptDir: string) => Promise<void>;
}

/**
 * At start: runs the ledger says were live belong to a console that is gone. A process it left
 * behind cannot be reattached to (its PTY died with it), so it is stopped; the run becomes stranded
 * with a notice, and offers Resume where the CLI has a native session.
 */
export async function strandOrphanedRuns({ ledger, catalog, notices, log, now, stranded, resumed, stopOnHost }: RecoveryOptions): Promise<void> {
  const orphans = ledger.runs.withStatus(liveStatuses).filter((row) => !resumed?.has(row.id));
  for (const row of orphans) {
    const process = ledger.runs.locators(row.id).find((locator) => locator.kind === 'process');
    if (process) await stopOrphanedProcess(process.data, log);
    // On a host, the supervisor stops it (it outlives any console by design); a host that does not
    // answer now keeps it until Clean up, which kills what is left before it removes the run's folder.
    const { hostId, attemptDir } = process?.data ?? {};
    if (typeof hostId === 'string' && typeof attemptDir === 'string' && stopOnHost) {
      await stopOnHost(hostId, attemptDir).catch((error: unknown) => log.warn('could not stop a run left on its host', { runId: row.id, hostId, error: String(error) }));
    }
    // The console died before it could remove the connection's files from the run's home.
    await removeLeftoverCredentials(row, catalog, log);
    const attempt = ledger.runs.lastAttempt(row.id);
    if (attempt && attempt.status === 'running') {
      endAttempt({ ledger, log }, attempt.id, { status: 'stranded', failureCode: 'stranded', exitCode: null, signal: null, retryAt: null, endedAt: now() });
    }
    // A retry it was waiting for will not come: the run is stranded instead.
    ledger.runs.clearPendingRetry(row.id);
    const admission = savedAdmission(row.admission_json);
    const provider = admission ? catalog.findProvider(admission.providerId) : undefined;
    const hasSession =
      provider !== undefined &&
      provider.definition.launch.resumable &&
      ledger.runs.locators(row.id).some((locator) => locator.kind === 'session' && typeof locator.data.id === 'string');
    const failure: OperatorErrorShape = {
      code: 'stranded',
      message: hasSession
        ? 'The console stopped while this run was running. Resume continues the CLI’s session in the same task root.'
        : 'The console stopped while this run was running. Run again starts the task over.',
      actionUrl: actionRoute({ kind: 'run', runId: row.id }),
    };
    if (!transitionRun({ ledger, log }, row.id, 'stranded', { failure, endedAt: now() })) continue;
    const task = ledger.tasks.get(row.task_id);
    notices.raise({
      kind: 'run_stranded',
      severity: 'warning',
      title: 'Run stranded',
      message: `“${task?.title ?? 'A task'}” was running when the console stopped. ${hasSession ? 'Resume it to continue its session.' : 'Run it again to start over.'}`,
      actionUrl: actionRoute({ kind: 'run', runId: row.id }),
      actionLabel: hasSession ? 'Resume the run' : 'Open the run',
      code: 'stranded',
      runId: row.id,
      agentId: row.agent_id,
      taskId: row.task_id,
      dedupeKey: `stranded:${row.id}`,
    });
    log.warn('run stranded', { runId: row.id });
    stranded(row.id, failure);
  }
}

/**
 * Stops what a dead console left running. The process locator's start time guards against a pid
 * that the OS has since given to an unrelated process.
 */
async function stopOrphanedProcess(data: Record<string, unknown>, log: Logger): Promise<void> {
  const pgid = typeof data.pgid === 'number' ? data.pgid : null;
  const pid = typeof data.pid === 'number' ? data.pid : null;
  if (pgid === null || pid === null) return;
  const recordedStart = typeof data.startTime === 'string' ? data.startTime : null;
  const currentStart = processStartTime(pid);
  if (recordedStart && currentStart && recordedStart !== currentStart) return; // The pid was reused.
  if (!isProcessGroupAlive(pgid)) return;
  log.warn('stopping a process left by a previous console', { pid, pgid });
  signalProcessGroup(pgid, 'SIGTERM');
  const group = new ProcessGroupWatch(pgid);
  for (let waited = 0; waited < 3000 && (await group.alive()); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (await group.alive()) signalProcessGroup(pgid, 'SIGKILL');
}
