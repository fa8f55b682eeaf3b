import { promises as fs } from 'node:fs';
import path from 'node:path';
import { runGit } from '../git/git-command';
import { handToSandboxUser } from '../sandbox/sandbox-user';
import { baseSnapshotDirName, kindAt, type PrepareTaskRootInput, type taskRootPaths } from './task-root-layout';
import { writeRecord, type TaskRootRecordV2 } from './task-root-record';

/**
 * A plain folder's task root: `view` is a copy of the project, and `base.git` a private snapshot of
 * that copy as it started, the base its diff is taken against.
 */

export async function prepareProjectCopy(
  paths: ReturnType<typeof taskRootPaths>,
  projectPath: string,
  dataDir: string,
  input: PrepareTaskRootInput,
  record: TaskRootRecordV2 | null,
): Promise<TaskRootRecordV2> {
  const snapshotEnv = { GIT_DIR: path.join(paths.root, baseSnapshotDirName), GIT_WORK_TREE: paths.view };
  const noHooks = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];
  if (record?.baseTree) {
    if ((await kindAt(paths.view)) !== 'missing') return record;
    // The view went missing: restore it from the base snapshot (the console's own, never the run's)
    // rather than copy the project again, which would silently move the base to what it holds today.
    await fs.mkdir(paths.view, { mode: 0o700 });
    await runGit([...noHooks, 'read-tree', record.baseTree], { env: snapshotEnv });
    await runGit([...noHooks, 'checkout-index', '--all', '--force', '-u'], { env: snapshotEnv });
    await handToSandboxUser([paths.view], input.owner ?? null);
    return record;
  }

  // No record: a copy that stopped half-way (no agent ran in it) is discarded and made again.
  await fs.rm(paths.view, { recursive: true, force: true });
  await fs.rm(snapshotEnv.GIT_DIR, { recursive: true, force: true });
  await fs.cp(projectPath, paths.view, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => shouldCopy(source, dataDir),
  });
  await runGit(['init', '--quiet', '--template='], { env: snapshotEnv });
  await runGit(['config', 'gc.auto', '0'], { env: snapshotEnv });
  await runGit([...noHooks, 'add', '--all', '--force'], { env: snapshotEnv });
  const baseTree = (await runGit(['write-tree'], { env: snapshotEnv })).stdout.trim();
  await handToSandboxUser([paths.view, snapshotEnv.GIT_DIR], input.owner ?? null);
  const prepared: TaskRootRecordV2 = {
    version: 2,
    kind: 'copy',
    projectPath,
    baseRevision: null,
    branch: null,
    repository: null,
    baseTree,
    baseBranch: null,
  };
  await writeRecord(paths.root, prepared);
  return prepared;
}

async function shouldCopy(source: string, dataDir: string): Promise<boolean> {
  // A data directory inside the project would otherwise copy itself into itself forever.
  if (source === dataDir || source.startsWith(dataDir + path.sep)) return false;
  const stat = await fs.lstat(source);
  // Sockets, pipes and devices cannot be copied and mean nothing in another folder.
  return stat.isFile() || stat.isDirectory() || stat.isSymbolicLink();
}
