import path from 'node:path';
import { openHardenedGit, type HardenedGit } from '../git/hardened-git';
import type { Owner } from '../platform/safe-path';
import type { RunFileTools, TaskRepository, TaskRoot } from '../task-root/task-root-layout';
import { toolsForRecord, readRecord } from '../task-root/task-root-record';

/**
 * Hardened git (git/hardened-git.ts) over a run's store, for landing: the store is
 * agent-written, so git reads only its objects (and the project's it borrows), a copy of the view's
 * index and the view itself, in the tool sandbox, never its config, hooks or attributes.
 */

export interface RunStoreGit {
  git: HardenedGit;
  repository: TaskRepository;
  /** Who owns what the console writes into the store: the sandbox's user when there is one. */
  owner: Owner | null;
  tools: RunFileTools;
  /** Hidden inside every tool sandbox of this run: the console's data directory and the project. */
  hiddenPaths: string[];
}

export async function openRunStoreGit(
  taskRoot: TaskRoot,
  tools: RunFileTools,
  options: { writeObjects?: boolean; env?: Record<string, string> } = {},
): Promise<RunStoreGit> {
  const record = await readRecord(taskRoot.root);
  const repository = record?.version === 2 ? record.repository : null;
  if (!record || !repository) throw new Error(`${taskRoot.root} has no store of its own to land from.`);
  tools = toolsForRecord(tools, record);
  const owner = tools.isolation.kind === 'bubblewrap' ? tools.isolation.setup.user : null;
  const ownObjects = path.join(repository.gitDir, 'objects');
  const objectDirs = [ownObjects, ...repository.borrowedObjects];
  const hiddenPaths = [path.dirname(path.dirname(taskRoot.root)), taskRoot.projectPath];
  const git = await openHardenedGit({
    isolation: tools.isolation,
    operatorHome: tools.operatorHome,
    hiddenPaths,
    readOnly: [taskRoot.view, ...repository.borrowedObjects, repository.adminDir, ...(options.writeObjects ? [] : [ownObjects])],
    // A commit for the run goes into the run's own store, which its sandboxed user already writes.
    writable: options.writeObjects ? [ownObjects] : [],
    objectDirs,
    runObjectDirs: [ownObjects],
    workTree: taskRoot.view,
    objectFormat: repository.objectFormat,
    user: owner,
    ...(options.writeObjects ? { objectDirectory: ownObjects } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  return { git, repository, owner, tools, hiddenPaths };
}
