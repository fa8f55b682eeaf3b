import { constants as fsConstants, promises as fs } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '../../shared/errors';
import { asGitFailure } from './git-errors';
import { runGit } from './git-command';
import { openHardenedGit, type HardenedGit } from './hardened-git';
import { ensureFolderWithin, readRegularFile, writeFileWithin, type Owner } from './safe-path';
import { handToSandboxUser } from './sandbox-user';
import type { SandboxOverlay } from './bwrap';
import { runTool, type ToolIsolation } from './tool-sandbox';

/**
 * A run's task root: `<dataDir>/tasks/<runId>/`. The folder itself belongs to the console (a run
 * can never write it); inside it:
 * - `view`, `tmp`, `cache`, `home`: the run's writable roots. `view` is where the agent works.
 * - `git` (git projects): the run's own repository, also writable by the run. It is a bare repository
 *   whose one worktree is `view` (admin folder `git/worktrees/view`), on the branch
 *   `operator-console/<runId>` at a pinned base revision. It borrows the project's objects read-only
 *   through `objects/info/alternates`, so it costs the size of the checkout plus the objects the agent
 *   writes, and nothing of the project's repository (objects, refs, config, hooks) is writable by the
 *   run: the agent's commits stay in its own store until the operator lands them. The project keeps a
 *   ref `refs/operator-console/runs/<runId>` at the base, so a `git gc` there never prunes what the
 *   run's store borrows.
 * - `base.git` (plain folders): a private snapshot of the copy the view started as, the diff's base.
 * - `task-root.json`: what the console learned while preparing. Later steps trust this record, never
 *   the run's files.
 *
 * Everything a run can write is hostile input (DESIGN.md section 4). So the console never runs git as
 * a repository on the run's store (hardened-git.ts reads only its objects, a copy of the index and the
 * work tree, in a tool sandbox), never follows a link inside the writable roots (safe-path.ts), and
 * removes a task root by emptying its writable roots inside a tool sandbox (removeTaskRoot).
 *
 * A task root made by an earlier console (record version 1: a worktree inside the project's own
 * repository) can still be diffed and removed, never launched again.
 */

export type TaskRootKind = 'worktree' | 'copy';

export interface TaskRepository {
  /** The run's own repository: a bare common dir whose one worktree is `view`. */
  gitDir: string;
  /** `view`'s admin folder inside it (HEAD, index). */
  adminDir: string;
  /** The project's object folders it borrows, read-only. */
  borrowedObjects: string[];
  objectFormat: 'sha1' | 'sha256';
}

export interface TaskRoot {
  root: string;
  view: string;
  tmp: string;
  cache: string;
  home: string;
  /** The commit the worktree started from; null for a copy. */
  baseRevision: string | null;
  /** The run's branch in its own repository; null for a copy. */
  branch: string | null;
  kind: TaskRootKind;
  /** The project's directory, resolved (symbolic links followed). */
  projectPath: string;
  repository: TaskRepository | null;
  /** Made by an earlier console: diffed and removed, never launched again. */
  legacy: boolean;
}

export interface TaskProject {
  path: string;
  isGitRepo: boolean;
}

export interface PrepareTaskRootInput {
  dataDir: string;
  runId: string;
  project: TaskProject;
  /** A revision of the project (commit, branch, tag). Default: the commit HEAD points at now. */
  baseRevision?: string;
  /** A sandboxed run's user when the console is root (sandbox-user.ts): the writable roots are handed to it. */
  owner?: Owner | null;
  /** How a deleted view is checked out again from the run's repository; the hardened git alone without. */
  tools?: RunFileTools;
}

export interface TaskRootLocation {
  dataDir: string;
  runId: string;
  project: TaskProject;
}

/** How the console's tools work on a run's files (tool-sandbox.ts). */
export interface RunFileTools {
  isolation: ToolIsolation;
  operatorHome: string;
}

export type TaskFileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface TaskFileChange {
  path: string;
  status: TaskFileStatus;
  /** For a rename: where the file was. */
  oldPath?: string;
}

export interface TaskViewDiff {
  files: TaskFileChange[];
  unifiedDiff: string;
  /** The unified diff was cut at `maxDiffBytes`; the file list is always complete. */
  truncated: boolean;
  /** Folders holding a repository of their own that the agent made in the view: never entered. */
  nestedRepositories: string[];
}

/** What a sandboxed run of this task root mounts beyond the system (see bwrap.ts for the order). */
export interface TaskRootMounts {
  writableRoots: string[];
  /** The project's objects the run's repository borrows. */
  readOnlyRebinds: string[];
  /** The run repository's config, hooks and worktree links, read-only and immovable. */
  overlays: SandboxOverlay[];
}

const recordFileName = 'task-root.json';
const baseSnapshotDirName = 'base.git';
const repositoryDirName = 'git';
const worktreeName = 'view';
export const taskBranchPrefix = 'operator-console/';
/** The project's ref that keeps a run's base (and so everything its store borrows) from a gc. */
export const projectKeepRefPrefix = 'refs/operator-console/runs/';

interface TaskRootRecordV2 {
  version: 2;
  kind: TaskRootKind;
  projectPath: string;
  baseRevision: string | null;
  branch: string | null;
  repository: TaskRepository | null;
  /** For a copy: the tree object (in `base.git`) of the view as it was copied. */
  baseTree: string | null;
}

/** Written by consoles before the run's own repository: a worktree of the project's repository. */
interface TaskRootRecordV1 {
  version: 1;
  kind: TaskRootKind;
  projectPath: string;
  baseRevision: string | null;
  branch: string | null;
  git: { commonDir: string; worktreeAdminDir: string } | null;
  baseTree: string | null;
}

type TaskRootRecord = TaskRootRecordV2 | TaskRootRecordV1;

// Run ids become folder names and branch names: keep them to characters that are safe in both.
const runIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

function assertRunId(runId: string): void {
  if (!runIdPattern.test(runId)) {
    throw new Error(`Run id "${runId}" cannot name a task root: use letters, digits, "_" and "-".`);
  }
}

export function taskRootPaths(dataDir: string, runId: string): Pick<TaskRoot, 'root' | 'view' | 'tmp' | 'cache' | 'home'> {
  assertRunId(runId);
  const root = path.join(dataDir, 'tasks', runId);
  return {
    root,
    view: path.join(root, 'view'),
    tmp: path.join(root, 'tmp'),
    cache: path.join(root, 'cache'),
    home: path.join(root, 'home'),
  };
}

/** The folders a confined run may write to. */
export function taskWritableRoots(taskRoot: Pick<TaskRoot, 'view' | 'tmp' | 'cache' | 'home'> & { repository?: TaskRepository | null }): string[] {
  return [taskRoot.view, taskRoot.tmp, taskRoot.cache, taskRoot.home, ...(taskRoot.repository ? [taskRoot.repository.gitDir] : [])];
}

/** The task root as its record describes it, without changing anything; null when it was never prepared. */
export async function openTaskRoot(dataDir: string, runId: string): Promise<TaskRoot | null> {
  const paths = taskRootPaths(await fs.realpath(dataDir), runId);
  const record = await readRecord(paths.root);
  return record ? toTaskRoot(paths, record) : null;
}

export async function prepareTaskRoot(input: PrepareTaskRootInput): Promise<TaskRoot> {
  assertRunId(input.runId);
  await fs.mkdir(input.dataDir, { recursive: true, mode: 0o700 });
  // Resolved paths: bubblewrap and Seatbelt match paths after symbolic links are followed.
  const dataDir = await fs.realpath(input.dataDir);
  const projectPath = await fs.realpath(input.project.path);
  const paths = taskRootPaths(dataDir, input.runId);
  await fs.mkdir(path.dirname(paths.root), { recursive: true, mode: 0o700 });
  await fs.mkdir(paths.root, { recursive: true, mode: 0o700 });
  for (const dir of ['tmp', 'cache', 'home']) await ensureFolderWithin(paths.root, dir, { owner: input.owner ?? null });

  const kind: TaskRootKind = input.project.isGitRepo ? 'worktree' : 'copy';
  const record = await readRecord(paths.root);
  if (record) {
    if (record.version === 1) {
      // Said on the run, in the operator's words: what was resumed cannot be, and what to do instead.
      throw new OperatorError({
        code: 'conflict',
        message:
          'This run was made by an earlier version of the console, as a worktree inside the project’s own repository, which this ' +
          'version never launches into (a sandboxed run could write the project’s history there). Its changes can still be reviewed; re-run the task to continue.',
      });
    }
    if (record.projectPath !== projectPath) {
      throw new Error(`Task root ${paths.root} belongs to ${record.projectPath}, not ${projectPath}.`);
    }
    if (record.kind !== kind) {
      throw new Error(`Task root ${paths.root} holds a ${record.kind}; the project now asks for a ${kind}.`);
    }
  }

  let prepared: TaskRootRecordV2;
  try {
    prepared =
      kind === 'worktree'
        ? await prepareRepository(paths, projectPath, input, record as TaskRootRecordV2 | null)
        : await prepareCopy(paths, projectPath, dataDir, input, record as TaskRootRecordV2 | null);
  } catch (error) {
    // git's refusals reach the run as a code and a remedy (no commit yet, a stale lock, ...), not as "internal".
    throw asGitFailure(error, { repository: projectPath, doing: kind === 'worktree' ? 'prepare the run’s worktree' : 'snapshot the run’s copy of the project' });
  }
  return toTaskRoot(paths, prepared);
}

async function prepareRepository(
  paths: ReturnType<typeof taskRootPaths>,
  projectPath: string,
  input: PrepareTaskRootInput,
  record: TaskRootRecordV2 | null,
): Promise<TaskRootRecordV2> {
  const branch = `${taskBranchPrefix}${input.runId}`;
  if (record?.baseRevision && input.baseRevision !== undefined) {
    const wanted = await resolveCommit(projectPath, input.baseRevision);
    if (wanted !== record.baseRevision) {
      throw new Error(`Task root ${paths.root} is pinned at ${record.baseRevision}; it cannot be prepared again at ${wanted}.`);
    }
  }
  if (record?.repository) {
    if ((await kindAt(paths.view)) !== 'missing') return record;
    // The view was deleted (the run's repository is still there): check its branch out again, so the
    // agent's commits survive; uncommitted edits are already gone.
    await restoreView(paths, record, input.owner ?? null, input.tools ?? null);
    return record;
  }

  // No record: whatever is there is debris of a preparation that stopped half-way. No agent ran in
  // it yet (a run starts only after the record is written), so it is plainly removed.
  const gitDir = path.join(paths.root, repositoryDirName);
  await fs.rm(paths.view, { recursive: true, force: true });
  await fs.rm(gitDir, { recursive: true, force: true });

  // The project is the operator's (a run can never write it), so git runs there as the operator's git.
  const commonDir = await fs.realpath(path.resolve(projectPath, (await runGit(['rev-parse', '--git-common-dir'], { cwd: projectPath })).stdout.trim()));
  const objectFormat = (await runGit(['rev-parse', '--show-object-format'], { cwd: projectPath })).stdout.trim() === 'sha256' ? 'sha256' : 'sha1';
  const borrowedObjects = await projectObjectFolders(commonDir);
  const baseRevision = await resolveCommit(projectPath, input.baseRevision ?? 'HEAD');
  const noHooks = ['-c', 'core.hooksPath=/dev/null'];

  await runGit(['init', '--quiet', '--bare', '--template=', `--object-format=${objectFormat}`, gitDir]);
  await fs.mkdir(path.join(gitDir, 'objects', 'info'), { recursive: true });
  await fs.writeFile(path.join(gitDir, 'objects', 'info', 'alternates'), `${borrowedObjects.join('\n')}\n`);
  await fs.mkdir(path.join(gitDir, 'hooks'), { recursive: true });
  await fs.writeFile(path.join(gitDir, 'config'), await repositoryConfig(projectPath, objectFormat));
  await runGit([...noHooks, 'update-ref', `refs/heads/${branch}`, baseRevision], { env: { GIT_DIR: gitDir } });
  // The checkout reads the project's committed files with the operator's own git settings (an LFS
  // smudge filter, say): trusted input into a fresh, empty folder.
  await runGit([...noHooks, 'worktree', 'add', '--quiet', paths.view, branch], { env: { GIT_DIR: gitDir } });
  const adminDir = path.join(gitDir, 'worktrees', worktreeName);
  if ((await readGitFileTarget(paths.view)) !== adminDir) throw new Error(`git made ${paths.view}'s worktree somewhere unexpected.`);
  await runGit([...noHooks, 'update-ref', `${projectKeepRefPrefix}${input.runId}`, baseRevision], { cwd: projectPath });
  await handToSandboxUser([paths.view, gitDir], input.owner ?? null);

  const prepared: TaskRootRecordV2 = {
    version: 2,
    kind: 'worktree',
    projectPath,
    baseRevision,
    branch,
    repository: { gitDir, adminDir, borrowedObjects, objectFormat },
    baseTree: null,
  };
  await writeRecord(paths.root, prepared);
  return prepared;
}

/** The run repository's config: the console's own, with the operator's identity for the agent's commits. */
async function repositoryConfig(projectPath: string, objectFormat: 'sha1' | 'sha256'): Promise<string> {
  const identity: string[] = [];
  for (const key of ['user.name', 'user.email']) {
    const value = (await runGit(['config', '--get', key], { cwd: projectPath, okExitCodes: [0, 1] })).stdout.trim();
    if (value) identity.push(`\t${key.split('.')[1]} = ${JSON.stringify(value)}`);
  }
  return [
    '# Written by Operator Console: the repository of one run. Read-only inside the run\'s sandbox.',
    '[core]',
    `\trepositoryformatversion = ${objectFormat === 'sha256' ? 1 : 0}`,
    '\tfilemode = true',
    '\tbare = true',
    ...(objectFormat === 'sha256' ? ['[extensions]', '\tobjectFormat = sha256'] : []),
    ...(identity.length ? ['[user]', ...identity] : []),
    '',
  ].join('\n');
}

/** The project's object folder, and any it borrows itself (its own alternates), resolved. */
async function projectObjectFolders(commonDir: string): Promise<string[]> {
  const objects = path.join(commonDir, 'objects');
  const folders = [objects];
  const alternates = await readRegularFile(path.join(objects, 'info', 'alternates'), 64 * 1024).catch(() => null);
  for (const line of alternates?.toString('utf8').split('\n') ?? []) {
    const entry = line.trim();
    if (!entry || entry.startsWith('#')) continue;
    const resolved = await fs.realpath(path.resolve(objects, entry)).catch(() => null);
    if (resolved && !folders.includes(resolved)) folders.push(resolved);
  }
  return folders;
}

/**
 * Checks the run's branch out again into a new, empty view, reading the run's repository (which the
 * agent wrote) with hardened git only.
 */
async function restoreView(paths: ReturnType<typeof taskRootPaths>, record: TaskRootRecordV2, owner: Owner | null, tools: RunFileTools | null): Promise<void> {
  const repository = record.repository!;
  const commit = (await readBranchCommit(repository.gitDir, record.branch!)) ?? record.baseRevision!;
  await fs.mkdir(paths.view, { mode: 0o700 });
  await writeWorktreeLinks(paths.root, repository, owner);
  await handToSandboxUser([paths.view], owner);
  // Hardened git (it never runs a program of the run's) in the tool sandbox when there is one; it
  // writes only the new view, and the index into its scratch folder.
  const objectDirs = [path.join(repository.gitDir, 'objects'), ...repository.borrowedObjects];
  const git = await openHardenedGit({
    isolation: tools?.isolation ?? { kind: 'none' },
    operatorHome: tools?.operatorHome ?? '/',
    hiddenPaths: [path.dirname(path.dirname(paths.root)), record.projectPath],
    readOnly: objectDirs,
    writable: [paths.view],
    objectDirs,
    workTree: paths.view,
    objectFormat: repository.objectFormat,
    user: owner,
  });
  try {
    await git.run(['read-tree', '--reset', '-u', commit]);
    await fs.copyFile(git.indexFile, path.join(repository.adminDir, 'index.restored'), fsConstants.COPYFILE_EXCL);
    await fs.rename(path.join(repository.adminDir, 'index.restored'), path.join(repository.adminDir, 'index'));
  } finally {
    await git.dispose();
  }
  await handToSandboxUser([paths.view, repository.adminDir], owner);
}

/** The commit a branch of the run's repository points at, read as data (a loose ref, else packed-refs). */
async function readBranchCommit(gitDir: string, branch: string): Promise<string | null> {
  const hash = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
  const loose = await readRegularFile(path.join(gitDir, 'refs', 'heads', ...branch.split('/')), 256).catch(() => null);
  const looseHash = loose?.toString('utf8').trim();
  if (looseHash && hash.test(looseHash)) return looseHash;
  const packed = await readRegularFile(path.join(gitDir, 'packed-refs'), 16 * 1024 * 1024).catch(() => null);
  for (const line of packed?.toString('utf8').split('\n') ?? []) {
    const [value, ref] = line.trim().split(' ');
    if (ref === `refs/heads/${branch}` && value && hash.test(value)) return value;
  }
  return null;
}

/**
 * The files tying `view` to the run's repository, as the console wrote them: rewritten before every
 * sandboxed launch (a run cannot change them, they are bound read-only, but a local run could have).
 */
async function writeWorktreeLinks(root: string, repository: TaskRepository, owner: Owner | null): Promise<void> {
  const relativeAdmin = path.relative(root, repository.adminDir);
  await ensureFolderWithin(root, relativeAdmin, { owner });
  await writeFileWithin(root, path.join('view', '.git'), `gitdir: ${repository.adminDir}\n`, { mode: 0o644, owner });
  await writeFileWithin(root, path.join(relativeAdmin, 'commondir'), '../..\n', { mode: 0o644, owner });
  await writeFileWithin(root, path.join(relativeAdmin, 'gitdir'), `${path.join(root, 'view', '.git')}\n`, { mode: 0o644, owner });
}

async function prepareCopy(
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

/**
 * What a sandboxed run of this task root binds, after checking that every console-owned path inside
 * the writable roots is still a real file or folder reached through real folders (bubblewrap follows
 * links on the host while it makes mount points) and rewriting the small files that tie the view to
 * its repository.
 */
export async function prepareTaskRootMounts(taskRoot: TaskRoot, owner: Owner | null): Promise<TaskRootMounts> {
  if (taskRoot.legacy) throw new Error(`${taskRoot.root} was made by an earlier version of the console; re-run the task.`);
  const repository = taskRoot.repository;
  if (!repository) return { writableRoots: taskWritableRoots(taskRoot), readOnlyRebinds: [], overlays: [] };
  await writeWorktreeLinks(taskRoot.root, repository, owner);
  const relative = (target: string) => path.relative(taskRoot.root, target);
  await ensureFolderWithin(taskRoot.root, relative(path.join(repository.gitDir, 'hooks')), { owner });
  const hooks = await fs.readdir(path.join(repository.gitDir, 'hooks'));
  if (hooks.length > 0) throw new Error(`${path.join(repository.gitDir, 'hooks')} holds files the console did not put there (${hooks.join(', ')}).`);
  const config = path.join(repository.gitDir, 'config');
  if ((await kindAt(config)) !== 'file') throw new Error(`${config} is not the file the console wrote.`);
  const selfBind = (target: string, kind: 'file' | 'folder' | 'writable folder' = 'file'): SandboxOverlay => ({
    source: target,
    dest: target,
    ...(kind !== 'file' ? { folder: true } : {}),
    ...(kind === 'writable folder' ? { writable: true } : {}),
  });
  return {
    writableRoots: taskWritableRoots(taskRoot),
    readOnlyRebinds: repository.borrowedObjects,
    // A bind mount cannot be renamed or removed from inside, and neither can what lies below one
    // bound read-only: so the run can change none of these, nor move a folder on the way to them.
    overlays: [
      selfBind(config),
      selfBind(path.join(repository.gitDir, 'hooks'), 'folder'),
      selfBind(path.join(repository.gitDir, 'worktrees'), 'folder'),
      selfBind(repository.adminDir, 'writable folder'),
      selfBind(path.join(repository.adminDir, 'commondir')),
      selfBind(path.join(repository.adminDir, 'gitdir')),
      selfBind(path.join(taskRoot.view, '.git')),
    ],
  };
}

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
  if (record) tools = forRecord(tools, record);
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

  if (projectIsGit) {
    const noHooks = ['-c', 'core.hooksPath=/dev/null'];
    await runGit([...noHooks, 'update-ref', '-d', `${projectKeepRefPrefix}${location.runId}`], { cwd: projectPath }).catch(() => undefined);
    if (record?.version === 1 && record.branch) {
      await runGit(['worktree', 'prune'], { cwd: projectPath }).catch(() => undefined);
      if (await hasBranch(projectPath, record.branch)) {
        await runGit([...noHooks, 'branch', '-D', '--end-of-options', record.branch], { cwd: projectPath }).catch(() => undefined);
      }
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

/**
 * The diff of the view against the run's base: files changed and the unified diff, including files
 * the agent created but never added, and commits it made on its branch.
 *
 * All of it through hardened git in a tool sandbox (hardened-git.ts). The agent's index is copied
 * inside the sandbox, bounded in time (it may be a FIFO, or swapped for one while the run goes on);
 * untracked files are marked intent-to-add in that copy only, so the agent's own index is never
 * touched and no object is written anywhere.
 */
export async function diffTaskView(taskRoot: TaskRoot, tools: RunFileTools, options: { maxDiffBytes?: number } = {}): Promise<TaskViewDiff> {
  const record = await readRecord(taskRoot.root);
  if (!record) throw new Error(`${taskRoot.root} has no task root record; prepare it first.`);
  tools = forRecord(tools, record);
  const question = diffQuestion(taskRoot, record);
  const hiddenPaths = [path.dirname(path.dirname(taskRoot.root)), taskRoot.projectPath];
  const git = await openHardenedGit({
    isolation: tools.isolation,
    operatorHome: tools.operatorHome,
    hiddenPaths,
    readOnly: [taskRoot.view, ...question.objectDirs, path.dirname(question.indexSource)],
    objectDirs: question.objectDirs,
    workTree: taskRoot.view,
    objectFormat: question.objectFormat,
    user: tools.isolation.kind === 'bubblewrap' ? tools.isolation.setup.user : null,
  });
  try {
    await copyIndex(git, question.indexSource, tools, hiddenPaths);
    let untracked: Buffer;
    try {
      untracked = (await git.run(['ls-files', '-z', '--others', '--exclude-standard'])).stdout;
    } catch {
      // Not an index this git can read (damaged, or split by the agent): start from the base instead.
      await git.run(['read-tree', question.base]);
      untracked = (await git.run(['ls-files', '-z', '--others', '--exclude-standard'])).stdout;
    }
    const entries = untracked.toString('utf8').split('\0').filter(Boolean);
    // A folder in this list holds a repository of its own, and so does a gitlink the agent added to its
    // index: never entered, only named.
    const gitlinks = (await git.run(['ls-files', '-z', '--stage'])).stdout
      .toString('utf8')
      .split('\0')
      .filter((entry) => entry.startsWith('160000 '))
      .map((entry) => entry.slice(entry.indexOf('\t') + 1));
    const nestedRepositories = [...entries.filter((entry) => entry.endsWith('/')).map((entry) => entry.slice(0, -1)), ...gitlinks].sort();
    const files = entries.filter((entry) => !entry.endsWith('/'));
    if (files.length > 0) {
      await git.run(['add', '--intent-to-add', '--pathspec-from-file=-', '--pathspec-file-nul'], { stdin: Buffer.from(`${files.join('\0')}\0`) });
    }
    const diffArgs = ['diff', '-M', '--no-ext-diff', '--no-textconv', '--ignore-submodules=all', '--no-color', '--no-relative'];
    const nameStatus = await git.run([...diffArgs, '--name-status', '-z', question.base, '--']);
    const maxDiffBytes = options.maxDiffBytes ?? 8 * 1024 * 1024;
    const unified = await git.run([...diffArgs, '--src-prefix=a/', '--dst-prefix=b/', question.base, '--'], { maxOutputBytes: maxDiffBytes });
    return {
      files: parseNameStatus(nameStatus.stdout.toString('utf8')),
      unifiedDiff: unified.stdout.toString('utf8'),
      truncated: unified.truncated,
      nestedRepositories,
    };
  } finally {
    await git.dispose();
  }
}

/**
 * An earlier console's sandbox ran as root and left its files root's: its tools run as the console's
 * own user (still sandboxed and hardened), since nobody could read or remove them.
 */
function forRecord(tools: RunFileTools, record: TaskRootRecord): RunFileTools {
  if (record.version !== 1 || tools.isolation.kind !== 'bubblewrap' || !tools.isolation.setup.user) return tools;
  return { ...tools, isolation: { kind: 'bubblewrap', setup: { ...tools.isolation.setup, user: null } } };
}

interface DiffQuestion {
  base: string;
  objectDirs: string[];
  indexSource: string;
  objectFormat: 'sha1' | 'sha256';
}

function diffQuestion(taskRoot: TaskRoot, record: TaskRootRecord): DiffQuestion {
  if (record.kind === 'copy' && record.baseTree) {
    const snapshot = path.join(taskRoot.root, baseSnapshotDirName);
    return { base: record.baseTree, objectDirs: [path.join(snapshot, 'objects')], indexSource: path.join(snapshot, 'index'), objectFormat: 'sha1' };
  }
  if (record.version === 2 && record.repository && record.baseRevision) {
    const repository = record.repository;
    return {
      base: record.baseRevision,
      objectDirs: [path.join(repository.gitDir, 'objects'), ...repository.borrowedObjects],
      indexSource: path.join(repository.adminDir, 'index'),
      objectFormat: repository.objectFormat,
    };
  }
  if (record.version === 1 && record.git && record.baseRevision) {
    return {
      base: record.baseRevision,
      objectDirs: [path.join(record.git.commonDir, 'objects')],
      indexSource: path.join(record.git.worktreeAdminDir, 'index'),
      objectFormat: record.baseRevision.length === 64 ? 'sha256' : 'sha1',
    };
  }
  throw new Error(`${taskRoot.root} has an incomplete task root record; prepare it again.`);
}

// Copies the index if it is a regular file (not a link, a FIFO or a device); a swap between the test
// and the copy can only make the copy wait, and the time limit ends that.
const copyIndexScript = 'if [ -f "$1" ] && [ ! -L "$1" ]; then exec head -c 536870912 -- "$1" > "$2"; fi; exit 3';

async function copyIndex(git: HardenedGit, indexSource: string, tools: RunFileTools, hiddenPaths: string[]): Promise<void> {
  const copied = await runTool(tools.isolation, {
    command: ['/bin/sh', '-c', copyIndexScript, 'sh', indexSource, git.indexFile],
    env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    readOnly: [path.dirname(indexSource)],
    writable: [git.scratch],
    hiddenPaths,
    operatorHome: tools.operatorHome,
    cwd: '/',
    timeoutMs: 10_000,
    maxOutputBytes: 1024,
  });
  if (copied.exitCode !== 0) await fs.rm(git.indexFile, { force: true });
  if (copied.exitCode !== 0 && copied.exitCode !== 3 && !copied.timedOut) {
    throw new Error(`The run's index could not be read: ${copied.stderr.trim() || `exit ${copied.exitCode ?? copied.signal}`}`);
  }
}

function parseNameStatus(output: string): TaskFileChange[] {
  const tokens = output.split('\0');
  const files: TaskFileChange[] = [];
  let i = 0;
  while (i < tokens.length) {
    const code = tokens[i++];
    if (!code) continue;
    const letter = code[0];
    if (letter === 'R' || letter === 'C') {
      const oldPath = tokens[i++] ?? '';
      const newPath = tokens[i++] ?? '';
      // A copy leaves the original in place: to the operator it is a new file.
      files.push(letter === 'R' ? { path: newPath, status: 'renamed', oldPath } : { path: newPath, status: 'added' });
      continue;
    }
    const filePath = tokens[i++] ?? '';
    if (letter === 'A') files.push({ path: filePath, status: 'added' });
    else if (letter === 'D') files.push({ path: filePath, status: 'deleted' });
    else files.push({ path: filePath, status: 'modified' }); // M, T (type change), U
  }
  return files;
}

async function resolveCommit(projectPath: string, revision: string): Promise<string> {
  try {
    const result = await runGit(['rev-parse', '--verify', '--end-of-options', `${revision}^{commit}`], { cwd: projectPath });
    return result.stdout.trim();
  } catch (error) {
    // An empty repository (an unborn HEAD) lands here: the operator is told to make a first commit.
    throw asGitFailure(error, { repository: projectPath, revision, doing: 'find the commit the run starts from' });
  }
}

async function hasBranch(projectPath: string, branch: string): Promise<boolean> {
  const result = await runGit(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: projectPath, okExitCodes: [0, 1] });
  return result.exitCode === 0;
}

/** Read right after git made the worktree, before any agent ran: the folder `view/.git` names. */
async function readGitFileTarget(view: string): Promise<string> {
  const content = (await readRegularFile(path.join(view, '.git'), 4096))?.toString('utf8') ?? '';
  const match = /^gitdir: (.+)$/m.exec(content);
  if (!match?.[1]) throw new Error(`${view}/.git does not name a git directory.`);
  return fs.realpath(path.resolve(view, match[1].trim()));
}

async function readRecord(root: string): Promise<TaskRootRecord | null> {
  // The record sits in the task root itself, which no run can write; read safely all the same.
  const bytes = await readRegularFile(path.join(root, recordFileName), 1024 * 1024).catch(() => null);
  if (!bytes) return null;
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as TaskRootRecord;
    return parsed.version === 1 || parsed.version === 2 ? parsed : null;
  } catch {
    return null;
  }
}

async function writeRecord(root: string, record: TaskRootRecordV2): Promise<void> {
  // Written whole then renamed, so a crash never leaves half a record that looks complete.
  const file = path.join(root, recordFileName);
  const partial = `${file}.partial`;
  await fs.writeFile(partial, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(partial, file);
}

function toTaskRoot(paths: ReturnType<typeof taskRootPaths>, record: TaskRootRecord): TaskRoot {
  return {
    ...paths,
    baseRevision: record.baseRevision,
    branch: record.branch,
    kind: record.kind,
    projectPath: record.projectPath,
    repository: record.version === 2 ? record.repository : null,
    legacy: record.version === 1,
  };
}

async function kindAt(target: string): Promise<'missing' | 'dir' | 'file' | 'other'> {
  try {
    const stat = await fs.lstat(target);
    return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}
