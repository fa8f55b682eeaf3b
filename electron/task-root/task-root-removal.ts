import { promises as fs } from 'node:fs';
import path from 'node:path';
import { runGit } from '../git/git-command';
import { withProjectRepository } from '../git/project-repository-lock';
import {
  assertRunId,
  kindAt,
  projectImportedRefPrefix,
  projectKeepRefPrefix,
  repositoryDirName,
  taskRootPaths,
  type RunFileTools,
  type TaskRootLocation,
} from './task-root-layout';
import { readRecord, toolsForRecord } from './task-root-record';
import { runTool } from '../sandbox/tool-sandbox';

/**
 * Removes a task root without trusting anything in it: the writable roots are emptied by `rm` inside
 * a tool sandbox in which only they are writable (so a link the agent left points at nothing the
 * removal can reach), then the console removes its own files and the empty folders. For a git project
 * the project's keep-ref goes too, and for a task root made by an earlier console its worktree
 * registration and branch in the project.
 */
export async function removeTaskRoot(location: TaskRootLocation, tools: RunFileTools): Promise<void> {
  assertRunId(location.runId);
  if ((await kindAt(location.dataDir)) === 'missing') return;
  const dataDir = await fs.realpath(location.dataDir);
  const paths = taskRootPaths(dataDir, location.runId);
  if ((await kindAt(paths.root)) === 'missing') return;
  const record = await readRecord(paths.root).catch(() => null);
  if (record) tools = toolsForRecord(tools, record);
  const projectPath = record?.projectPath ?? location.project.path;
  const projectIsGit = (record ? record.kind === 'worktree' : location.project.isGitRepo) && (await kindAt(projectPath)) === 'dir';

  const writable = [paths.view, paths.tmp, paths.cache, paths.home, path.join(paths.root, repositoryDirName)];
  const legacyAdmin = record?.version === 1 ? (record.git?.worktreeAdminDir ?? null) : null;
  if (legacyAdmin) writable.push(legacyAdmin);
  await emptyFolders(writable, { ...tools, hiddenPaths: [dataDir, projectPath] });
  for (const folder of writable) {
    const kind = await kindAt(folder);
    if (kind === 'missing') continue;
    // A link (or anything else) a local run left in a root's place is unlinked, never followed.
    if (kind !== 'dir') await fs.unlink(folder);
    else await fs.rmdir(folder).catch((error: NodeJS.ErrnoException) => {
      throw new Error(`${folder} could not be removed (${error.code}); its files were left where they are.`);
    });
  }
  // What is left belongs to the console (the record, the base snapshot, delivered files, the proxy's
  // socket folder): a run never writes the task root itself.
  for (const entry of await fs.readdir(paths.root)) await fs.rm(path.join(paths.root, entry), { recursive: true, force: true });
  await fs.rmdir(paths.root);

  if (projectIsGit) await withProjectRepository(projectPath, () => forgetRunRefs(projectPath, location.runId, record?.version === 1 ? record.branch : null));
}

/** The project's refs for the run, and for a task root of an earlier console its worktree registration and branch. */
async function forgetRunRefs(projectPath: string, runId: string, legacyBranch: string | null | undefined): Promise<void> {
  const noHooks = ['-c', 'core.hooksPath=/dev/null'];
  await runGit([...noHooks, 'update-ref', '-d', `${projectKeepRefPrefix}${runId}`], { cwd: projectPath }).catch(() => undefined);
  // The run's commits landing copied in go with it (what landed is in its target branch).
  await runGit([...noHooks, 'update-ref', '-d', `${projectImportedRefPrefix}${runId}`], { cwd: projectPath }).catch(() => undefined);
  if (legacyBranch) {
    await runGit(['worktree', 'prune'], { cwd: projectPath }).catch(() => undefined);
    if (await hasBranch(projectPath, legacyBranch)) {
      await runGit([...noHooks, 'branch', '-D', '--end-of-options', legacyBranch], { cwd: projectPath }).catch(() => undefined);
    }
  }
}

const emptyFoldersScript = [
  'status=0',
  'for d in "$@"; do',
  // Only a real folder: never a link given in its place (chmod and find would follow one named here).
  '  if [ -L "$d" ] || [ ! -d "$d" ]; then continue; fi',
  // Folders the agent made unwritable would keep their files; chmod -R does not follow links.
  '  chmod -R u+rwX -- "$d" 2>/dev/null',
  '  find "$d" -mindepth 1 -maxdepth 1 -exec rm -rf --one-file-system -- {} + || status=1',
  'done',
  'exit $status',
].join('\n');

async function emptyFolders(folders: string[], tools: RunFileTools & { hiddenPaths: string[] }): Promise<void> {
  const present: string[] = [];
  for (const folder of folders) if ((await kindAt(folder)) === 'dir') present.push(folder);
  if (present.length === 0) return;
  const result = await runTool(tools.isolation, {
    command: ['/bin/sh', '-c', emptyFoldersScript, 'sh', ...present],
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    readOnly: [],
    writable: present,
    hiddenPaths: tools.hiddenPaths,
    operatorHome: tools.operatorHome,
    cwd: '/',
    timeoutMs: 10 * 60_000,
    maxOutputBytes: 64 * 1024,
  });
  if (result.timedOut || result.exitCode !== 0) {
    throw new Error(`The run's files could not all be removed${result.timedOut ? ' in time' : ''}: ${result.stderr.trim().split('\n')[0] ?? ''}`.trim());
  }
}

async function hasBranch(projectPath: string, branch: string): Promise<boolean> {
  const result = await runGit(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: projectPath, okExitCodes: [0, 1] });
  return result.exitCode === 0;
}
