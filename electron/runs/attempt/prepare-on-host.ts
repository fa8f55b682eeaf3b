import path from 'node:path';
import { deliverFilesOnHost } from '../../hosts/host-credential-files';
import { remoteStoreFor, sendBaseRevision } from '../../hosts/remote-git/send-base-revision';
import type { SshHost } from '../../hosts/remote-script';
import { inspectWithin, readRegularFile } from '../../platform/safe-path';
import type { DeliveredFile } from '../../providers/credential-delivery';
import { maxFileBytes } from '../../task-root/run-file-copies';
import { installSupervisor, prepareOnHost as prepareFolders, remoteRunLayout } from '../../hosts/remote-run/remote-supervisor';
import { abortable, takeStop } from './abortable';
import { need, type AttemptScope } from './attempt-scope';

/**
 * Step 1b, for a run on an SSH host (issue 28): the run's task root there, under the remote user's
 * home in the folder the console owns (remote-supervisor.ts has the layout), its folders 0700, the
 * console's supervisor script in place, and the run's base revision checked out in its view, borrowing
 * the objects of the project's store on the host, and the files the project's copy patterns name
 * copied there too (at every preparation, as locally). The local task root (step 1) stays: review, compare
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
  // The files the project's copy patterns name, copied into the local view at every preparation (a
  // retry gets today's), reach the host's view too, where the setup command and the agent read them.
  await copyFilesToHost({ ssh: connection, host: connection.name }, taskRoot.view, view, need(scope.setup, 'setup').record.copiedFiles);
  scope.host = { connection, layout };
  takeStop(signal);
}

/**
 * The local view's copies, read as the console wrote them (no link on the way or at the file), written
 * into the host's view as a delivered file is (host-credential-files.ts: never through a link an earlier
 * attempt's agent left there, a linked folder on the way refused), 0600.
 */
async function copyFilesToHost(target: SshHost, localView: string, remoteView: string, copied: ReadonlyArray<{ path: string }>): Promise<void> {
  const files: DeliveredFile[] = [];
  for (const { path: relative } of copied) {
    // The copy step wrote it a moment ago; a path that is no longer plain (a linked folder the run's
    // work brought back) is left out, as the copy step leaves out what it cannot write plainly.
    const { unsafe } = await inspectWithin(localView, relative);
    const content = unsafe ? null : await readRegularFile(path.join(localView, ...relative.split('/')), maxFileBytes).catch(() => null);
    if (content) files.push({ relativePath: relative, content });
  }
  await deliverFilesOnHost(target, remoteView, files);
}
