import { remoteStoreFor, sendBaseRevision } from '../../hosts/remote-git/send-base-revision';
import { installSupervisor, prepareOnHost as prepareFolders, remoteRunLayout } from '../../hosts/remote-run/remote-supervisor';
import { abortable, takeStop } from './abortable';
import { need, type AttemptScope } from './attempt-scope';

/**
 * Step 1b, for a run on an SSH host (issue 28): the run's task root there, under the remote user's
 * home in the folder the console owns (remote-supervisor.ts has the layout), its folders 0700, the
 * console's supervisor script in place, and the run's base revision checked out in its view, borrowing
 * the objects of the project's store on the host. The local task root (step 1) stays: review, compare
 * and landing read the run's work there once it comes back (bring-work-back.ts). A retry or a resume
 * finds the view as the agent left it and sends nothing.
 */
export async function prepareOnHost(scope: AttemptScope, signal: AbortSignal): Promise<void> {
  const { active, services } = scope;
  const admitted = need(active.admission.host, 'host');
  if (!services.hosts) throw new Error('This console was started without SSH hosts.');
  const connection = await abortable(services.hosts.connection(admitted.id), signal);
  const layout = remoteRunLayout(connection, active.runId);
  const taskRoot = need(scope.taskRoot, 'task root');
  const { repository, baseRevision } = taskRoot;
  // Admission refuses a project that is not a git repository on a host (admission.ts), before anything is made here or there.
  if (!repository || !baseRevision) throw new Error('A run on an SSH host was admitted for a project that is not a git repository.');
  await installSupervisor(connection, layout);
  const { root, view, tmp, cache, home } = layout.taskRoot;
  await prepareFolders(connection, layout, { folders: [root, tmp, cache, home, `${root}/attempts`], directories: [], realpaths: [], executable: '', path: '' });
  if (active.attemptNumber === 0) {
    // Only what the host's store for the project lacks crosses (hosts/remote-git/): a second run of the project sends almost nothing.
    await sendBaseRevision({
      ssh: connection,
      host: connection.name,
      localRepository: repository.gitDir,
      baseRevision,
      remoteRepository: view,
      remoteStore: remoteStoreFor(layout.consoleRoot, need(scope.projectId, 'project')),
    });
  }
  scope.host = { connection, layout };
  takeStop(signal);
}
