import { constants as fsConstants, promises as fs } from 'node:fs';
import path from 'node:path';
import { openHardenedGit } from '../../git/hardened-git';
import { handToSandboxUser } from '../../sandbox/sandbox-user';
import type { RunFileTools, TaskRoot } from '../../task-root/task-root-layout';
import { readRecord, toolsForRecord } from '../../task-root/task-root-record';
import type { FetchedRunCommits } from './fetch-run-commits';

/**
 * A remote run's work as its local view shows it (issue 28): once fetchRunCommits brought the run's
 * commits and its host work tree into the run's local repository, the view's files become the host's
 * work tree and its index the run's HEAD, so what the agent committed is on the branch and what it
 * left uncommitted shows as uncommitted, exactly as in a local run's view. Review, compare, commit and
 * landing then read it as they read any run.
 *
 * Hardened git in the tool sandbox (as task-root's restoreView checks a view out again): it reads the
 * run's objects as data and writes only the view, and the index into its scratch folder, which then
 * replaces the view's. Nothing ran in the local view (the agent ran on the host), so it is rewritten
 * from what it showed before (`shownBefore`), files that are gone since removed.
 */
export async function showRemoteWorkInView(taskRoot: TaskRoot, tools: RunFileTools, fetched: FetchedRunCommits): Promise<void> {
  const record = await readRecord(taskRoot.root);
  const repository = record?.version === 2 ? record.repository : null;
  if (!record || !repository) throw new Error(`${taskRoot.root} has no repository of its own to show the run's work in.`);
  tools = toolsForRecord(tools, record);
  const owner = tools.isolation.kind === 'bubblewrap' ? tools.isolation.setup.user : null;
  const ownObjects = path.join(repository.gitDir, 'objects');
  const objectDirs = [ownObjects, ...repository.borrowedObjects];
  const git = await openHardenedGit({
    isolation: tools.isolation,
    operatorHome: tools.operatorHome,
    hiddenPaths: [path.dirname(path.dirname(taskRoot.root)), taskRoot.projectPath],
    readOnly: objectDirs,
    writable: [taskRoot.view],
    objectDirs,
    runObjectDirs: [ownObjects],
    workTree: taskRoot.view,
    objectFormat: repository.objectFormat,
    user: owner,
  });
  try {
    // The index as the view is now, then the files as the host's work tree is (files gone there go here
    // too), then the index at the run's HEAD: what the agent did not commit shows as not committed.
    if (fetched.shownBefore) await git.run(['read-tree', fetched.shownBefore]);
    await git.run(['read-tree', '-u', '--reset', fetched.workTree ?? fetched.head]);
    await git.run(['read-tree', '--reset', fetched.head]);
    await fs.rm(path.join(repository.adminDir, 'index.shown'), { force: true });
    await fs.copyFile(git.indexFile, path.join(repository.adminDir, 'index.shown'), fsConstants.COPYFILE_EXCL);
    await fs.rename(path.join(repository.adminDir, 'index.shown'), path.join(repository.adminDir, 'index'));
  } finally {
    await git.dispose();
  }
  // The run's files are its sandbox user's (when the console runs as root): what the fetch and this wrote
  // in its repository too, so Clean up, which removes them as that user, can.
  await handToSandboxUser([taskRoot.view, repository.gitDir], owner);
}
