import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { fetchRunCommits } from '../hosts/remote-git/fetch-run-commits';
import { showRemoteWorkInView } from '../hosts/remote-git/remote-work-in-view';
import { remoteStoreFor } from '../hosts/remote-git/send-base-revision';
import type { HostConnection, RunHosts } from '../hosts/remote-run/host-connection';
import { remoteRunLayout, type RemoteRunLayout } from '../hosts/remote-run/remote-supervisor';
import { describeError } from '../platform/log';
import { openTaskRoot } from '../task-root/task-root';
import type { TaskRoot } from '../task-root/task-root-layout';
import { savedAdmission, type Admission } from './admission';
import { raiseHostWorkNotice, resolveHostWorkNotice } from './notices/host-work-notices';
import type { RunContext } from './run-context';
import { endedStatuses } from './run-transitions';
import type { RunWorkspace } from './run-workspace';

/**
 * A run on an SSH host, its work brought back (issue 28): its commits and what its agent left
 * uncommitted, as one pack checked here (hosts/remote-git/), into the run's local repository and view,
 * where review, compare and landing read it as a local run's. Done once the agent ended
 * (attempt/bring-work-back.ts) and again when the operator asks (Fetch the work again, from the
 * notice a failure raised). A failure is not the run's: its work stays on the host, the ledger marks
 * it so (nothing removes the host's task root meanwhile without the operator's say), the timeline
 * says why, and one notice says what to do.
 */

export interface HostWorkTarget {
  runId: string;
  attemptId: string | null;
  agentId: string | null;
  admission: Admission;
  projectId: string;
  taskRoot: TaskRoot;
  connection: HostConnection;
  layout: RemoteRunLayout;
}

export type HostWorkOutcome = { fetched: true } | { fetched: false; failure: OperatorErrorShape };

export async function fetchHostWork(context: RunContext, workspace: RunWorkspace, target: HostWorkTarget): Promise<HostWorkOutcome> {
  const { runId, attemptId, connection, layout, taskRoot } = target;
  // A project that is not a git repository has no commits to bring back (admission refuses those on hosts).
  if (!taskRoot.repository || !taskRoot.branch) return { fetched: true };
  try {
    const fetched = await fetchRunCommits({
      ssh: connection,
      host: connection.name,
      remoteRepository: layout.taskRoot.view,
      remoteStore: remoteStoreFor(layout.consoleRoot, target.projectId),
      localRepository: taskRoot.repository.gitDir,
      ref: `refs/heads/${taskRoot.branch}`,
    });
    await showRemoteWorkInView(taskRoot, await workspace.toolsFor(target.admission, 'read'), fetched);
    context.note(runId, attemptId, 'host_work_fetched', { host: connection.name, head: fetched.head, uncommitted: fetched.workTree !== null });
    if (context.ledger.runs.hostWorkUnfetchedSince(runId) !== null) {
      context.ledger.runs.setHostWorkUnfetched(runId, null);
      context.announce(runId);
    }
    resolveHostWorkNotice(context, runId, `The run’s work was brought back from ${connection.name}: its Changes show it.`);
    return { fetched: true };
  } catch (error) {
    const failure: OperatorErrorShape =
      error instanceof OperatorError ? error.toShape() : { code: 'internal', message: `The console could not bring the work back (${describeError(error)}).` };
    context.log.warn('a host run’s work was not brought back', { runId, host: connection.name, error: describeError(error) });
    context.note(runId, attemptId, 'host_work_not_fetched', { host: connection.name, code: failure.code, reason: failure.reason ?? null, message: failure.message });
    context.ledger.runs.setHostWorkUnfetched(runId, context.now());
    context.announce(runId);
    raiseHostWorkNotice(context, { runId, agentId: target.agentId, hostName: connection.name }, failure);
    return { fetched: false, failure };
  }
}

/**
 * Fetch the work again, the operator's action for an ended run whose work was left on its host:
 * fetched as when its agent ended. Refused, saying why and what to do, for a run that is not such a
 * run (any more); a failure again answers its reason (and rewrites the notice). The caller holds the
 * run's turn (RunWorkspace.operations).
 */
export async function fetchHostWorkAgain(context: RunContext, workspace: RunWorkspace, hosts: RunHosts | null, runId: string): Promise<{ alreadyBack: boolean }> {
  const row = context.ledger.runs.row(runId);
  if (!row) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.', actionUrl: actionRoute({ kind: 'runs' }) });
  const admission = savedAdmission(row.admission_json);
  const runLink = actionRoute({ kind: 'run', runId });
  if (!admission?.host) throw new OperatorError({ code: 'conflict', message: 'This run did not execute on an SSH host: its work is here already.', actionUrl: runLink });
  if (context.active.has(runId) || !endedStatuses.includes(row.status)) {
    throw new OperatorError({ code: 'conflict', message: 'This run is still going: its work comes back by itself once its agent ends.', actionUrl: runLink });
  }
  if (row.files_removed_at !== null) {
    throw new OperatorError({ code: 'conflict', message: 'This run’s files were removed, here and on its host: there is no work left to fetch.', actionUrl: runLink });
  }
  if (context.ledger.runs.hostWorkUnfetchedSince(runId) === null) return { alreadyBack: true };
  if (!hosts || !context.ledger.hosts.get(admission.host.id)) {
    throw new OperatorError({
      code: 'conflict',
      reason: 'host_removed',
      message: `${admission.host.name} is no longer in Settings → Hosts, so the console cannot reach the run’s work there. Add it again (the same name), test it, then fetch the work again.`,
      actionUrl: actionRoute({ kind: 'settings-hosts' }),
    });
  }
  const task = context.ledger.tasks.get(row.task_id);
  const taskRoot = await openTaskRoot(context.options.dataDir, runId);
  if (!task || !taskRoot) throw new OperatorError({ code: 'not_found', message: 'This run’s folder here is gone, so its work has nowhere to come back to.', actionUrl: runLink });
  const connection = await hosts.connection(admission.host.id);
  const outcome = await fetchHostWork(context, workspace, {
    runId,
    attemptId: context.ledger.runs.lastAttempt(runId)?.id ?? null,
    agentId: row.agent_id,
    admission,
    projectId: task.projectId,
    taskRoot,
    connection,
    layout: remoteRunLayout(connection, runId),
  });
  if (!outcome.fetched) throw new OperatorError(outcome.failure);
  return { alreadyBack: false };
}
