import { OperatorError } from '../../../shared/errors';
import { fetchRunCommits } from '../../hosts/remote-git/fetch-run-commits';
import { showRemoteWorkInView } from '../../hosts/remote-git/remote-work-in-view';
import { remoteStoreFor } from '../../hosts/remote-git/send-base-revision';
import { describeError } from '../../platform/log';
import { need, type AttemptScope } from './attempt-scope';

/**
 * Step 6b, for a run on an SSH host: once its agent has ended, the run's work comes back (issue 28):
 * its commits and what it left uncommitted, as one pack checked here (hosts/remote-git/), into the
 * run's local repository and view, where review, compare and landing read it as a local run's. A
 * failure is not the run's: the agent's work stays on the host, the timeline says why, and a notice
 * says what to do.
 */
export async function bringWorkBack(scope: AttemptScope): Promise<void> {
  const { context, active, services } = scope;
  const { connection, layout } = need(scope.host, 'host');
  const taskRoot = need(scope.taskRoot, 'task root');
  if (!taskRoot.repository || !taskRoot.branch) return;
  const attemptId = active.attemptId ?? null;
  try {
    const fetched = await fetchRunCommits({
      ssh: connection,
      host: connection.name,
      remoteRepository: layout.taskRoot.view,
      remoteStore: remoteStoreFor(layout.consoleRoot, need(scope.projectId, 'project')),
      localRepository: taskRoot.repository.gitDir,
      ref: `refs/heads/${taskRoot.branch}`,
    });
    await showRemoteWorkInView(taskRoot, await services.workspace.toolsFor(active.admission, 'read'), fetched);
    context.note(active.runId, attemptId, 'host_work_fetched', { host: connection.name, head: fetched.head, uncommitted: fetched.workTree !== null });
  } catch (error) {
    const shape = error instanceof OperatorError ? error.toShape() : null;
    context.log.warn('a host run’s work was not brought back', { runId: active.runId, host: connection.name, error: describeError(error) });
    context.note(active.runId, attemptId, 'host_work_not_fetched', { host: connection.name, ...(shape ? { code: shape.code, reason: shape.reason ?? null, message: shape.message } : {}) });
  }
}
