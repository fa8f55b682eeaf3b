import { fetchHostWork } from '../host-work';
import { need, type AttemptScope } from './attempt-scope';

/**
 * Step 6b, for a run on an SSH host: once its agent has ended, the run's work comes back (issue 28;
 * runs/host-work.ts). A failure is not the run's: its work stays on the host, marked so in the
 * ledger, the timeline says why, and a notice says what to do and offers Fetch the work again.
 */
export async function bringWorkBack(scope: AttemptScope): Promise<void> {
  const { context, active, services } = scope;
  const { connection, layout } = need(scope.host, 'host');
  await fetchHostWork(context, services.workspace, {
    runId: active.runId,
    attemptId: active.attemptId ?? null,
    agentId: active.agentId,
    admission: active.admission,
    projectId: need(scope.projectId, 'project'),
    taskRoot: need(scope.taskRoot, 'task root'),
    connection,
    layout,
  });
}
