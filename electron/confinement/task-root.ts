import { constants as fsConstants, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitCommandError, runGit } from './git-command';

/**
 * A run's task root: `<dataDir>/tasks/<runId>/{view,tmp,cache,home}`.
 *
 * `view` is where the agent works. For a git project it is a worktree on its own branch
 * (`operator-console/<runId>`) at a pinned base revision, so the agent's commits never touch the
 * operator's branches and the diff is always against a known commit. For a plain directory it is a
 * copy, and a snapshot of the copy (a tree in a private git dir, `<root>/base.git`) is the base the
 * diff is taken against, so later edits to the original directory do not show up as the agent's work.
 *
 * What the console learned while preparing (base revision, the worktree's admin folder) is recorded
 * in `<root>/task-root.json`. Later steps trust that record rather than `view/.git`, which the agent
 * can rewrite: the host runs git against the view when it computes the diff, and a `.git` file
 * pointing at an agent-made repository with a `core.fsmonitor` command would run code on the host.
 */

export type TaskRootKind = 'worktree' | 'copy';

export interface TaskRootGit {
  /** The project's git directory shared by all its worktrees (objects, refs, hooks, config). */
  commonDir: string;
  /** This worktree's own folder inside the common dir (`.git/worktrees/<name>`: HEAD, index). */
  worktreeAdminDir: string;
}

export interface TaskRoot {
  root: string;
  view: string;
  tmp: string;
  cache: string;
  home: string;
  /** The commit the worktree started from; null for a copy. */
  baseRevision: string | null;
  /** The worktree's branch; null for a copy. */
  branch: string | null;
  kind: TaskRootKind;
  /** The project's directory, resolved (symbolic links followed). */
  projectPath: string;
  git: TaskRootGit | null;
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
}

export interface TaskRootLocation {
  dataDir: string;
  runId: string;
  project: TaskProject;
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
}

/** Paths the OS sandbox needs to let the agent commit in its worktree and nothing more. */
export interface GitProtection {
  /** Bound read-only: the worktree reads refs, packs and config from here. */
  commonDir: string;
  /** Writable: new commits write objects here. */
  objectStore: string;
  /** Writable: this worktree's HEAD, index and logs. */
  worktreeAdminDir: string;
  /** Writable: the folders holding this run's branch ref and its reflog. */
  branchRefDirs: string[];
  /** Re-bound read-only last: a planted hook would run on the operator's next commit. */
  hooksDir: string;
  /** Re-bound read-only last: `core.hooksPath`, `core.fsmonitor` and aliases run commands. */
  configFile: string;
  /**
   * Re-bound read-only last: the files that tie the worktree to its repository (`view/.git`, and
   * `commondir` and `gitdir` in the admin folder). Rewritten, they would point git, when the operator
   * later runs it in the view, at an agent-made config whose filters and fsmonitor run commands.
   */
  lockedFiles: string[];
}

const recordFileName = 'task-root.json';
const baseSnapshotDirName = 'base.git';
export const taskBranchPrefix = 'operator-console/';

interface TaskRootRecord {
  version: 1;
  kind: TaskRootKind;
  projectPath: string;
  baseRevision: string | null;
  branch: string | null;
  git: TaskRootGit | null;
  /** For a copy: the tree object (in `base.git`) of the view as it was copied. */
  baseTree: string | null;
}

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
export function taskWritableRoots(taskRoot: Pick<TaskRoot, 'view' | 'tmp' | 'cache' | 'home'>): string[] {
  return [taskRoot.view, taskRoot.tmp, taskRoot.cache, taskRoot.home];
}

export async function prepareTaskRoot(input: PrepareTaskRootInput): Promise<TaskRoot> {
  assertRunId(input.runId);
  await fs.mkdir(input.dataDir, { recursive: true, mode: 0o700 });
  // Resolved paths: bubblewrap and Seatbelt match paths after symbolic links are followed.
  const dataDir = await fs.realpath(input.dataDir);
  const projectPath = await fs.realpath(input.project.path);
  const paths = taskRootPaths(dataDir, input.runId);
  for (const dir of [paths.root, paths.tmp, paths.cache, paths.home]) {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  }

  const kind: TaskRootKind = input.project.isGitRepo ? 'worktree' : 'copy';
  const record = await readRecord(paths.root);
  if (record) {
    if (record.projectPath !== projectPath) {
      throw new Error(`Task root ${paths.root} belongs to ${record.projectPath}, not ${projectPath}.`);
    }
    if (record.kind !== kind) {
      throw new Error(`Task root ${paths.root} holds a ${record.kind}; the project now asks for a ${kind}.`);
    }
  }

  const prepared =
    kind === 'worktree'
      ? await prepareWorktree(paths, projectPath, input, record)
      : await prepareCopy(paths, projectPath, dataDir, record);
  return toTaskRoot(paths, prepared);
}

async function prepareWorktree(
  paths: ReturnType<typeof taskRootPaths>,
  projectPath: string,
  input: PrepareTaskRootInput,
  record: TaskRootRecord | null,
): Promise<TaskRootRecord> {
  const branch = `${taskBranchPrefix}${input.runId}`;
  if (record?.baseRevision && input.baseRevision !== undefined) {
    const wanted = await resolveCommit(projectPath, input.baseRevision);
    if (wanted !== record.baseRevision) {
      throw new Error(
        `Task root ${paths.root} is pinned at ${record.baseRevision}; it cannot be prepared again at ${wanted}.`,
      );
    }
  }
  if (record?.git && (await isIntactWorktree(paths.view, record.git))) return record;

  if (!record) {
    // No record: whatever is there is debris of a preparation that stopped half-way (no agent ran
    // in it yet), so start clean rather than adopt a worktree whose base nobody recorded.
    await discardWorktree(projectPath, paths.view, branch);
  } else {
    // Recorded but broken (the view folder was deleted, or its registration pruned): rebuild it on
    // the run's branch so commits the agent made survive; uncommitted edits are already gone.
    await runGit(['worktree', 'prune'], { cwd: projectPath });
    await removeIfEmptyDir(paths.view);
    if (await pathExists(paths.view)) {
      throw new Error(`${paths.view} exists but is not a worktree of ${projectPath}; move it away and prepare again.`);
    }
  }

  const commonDir = await fs.realpath(
    path.resolve(projectPath, (await runGit(['rev-parse', '--git-common-dir'], { cwd: projectPath })).stdout.trim()),
  );
  const baseRevision = record?.baseRevision ?? (await resolveCommit(projectPath, input.baseRevision ?? 'HEAD'));
  if (await hasBranch(projectPath, branch)) {
    await runGit(['worktree', 'add', '--quiet', paths.view, branch], { cwd: projectPath });
  } else {
    await runGit(['worktree', 'add', '--quiet', '-b', branch, paths.view, baseRevision], { cwd: projectPath });
  }
  // Read right after git made it, before any agent could have touched `view/.git`.
  const worktreeAdminDir = await readGitFileTarget(paths.view);
  const prepared: TaskRootRecord = {
    version: 1,
    kind: 'worktree',
    projectPath,
    baseRevision,
    branch,
    git: { commonDir, worktreeAdminDir },
    baseTree: null,
  };
  await writeRecord(paths.root, prepared);
  return prepared;
}

async function prepareCopy(
  paths: ReturnType<typeof taskRootPaths>,
  projectPath: string,
  dataDir: string,
  record: TaskRootRecord | null,
): Promise<TaskRootRecord> {
  const snapshotEnv = { GIT_DIR: path.join(paths.root, baseSnapshotDirName), GIT_WORK_TREE: paths.view };
  if (record?.baseTree) {
    if (await pathExists(paths.view)) return record;
    // The view went missing: restore it from the base snapshot rather than copy the project again,
    // which would silently move the base to whatever the project holds today.
    await fs.mkdir(paths.view, { recursive: true, mode: 0o700 });
    await runGit(['read-tree', record.baseTree], { env: snapshotEnv });
    await runGit(['checkout-index', '--all', '--force', '-u'], { env: snapshotEnv });
    return record;
  }

  // No record: a copy that stopped half-way is discarded and made again.
  await fs.rm(paths.view, { recursive: true, force: true });
  await fs.rm(snapshotEnv.GIT_DIR, { recursive: true, force: true });
  await fs.cp(projectPath, paths.view, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => shouldCopy(source, dataDir),
  });
  await runGit(['init', '--quiet'], { env: snapshotEnv });
  await runGit(['config', 'gc.auto', '0'], { env: snapshotEnv });
  await runGit(['-c', 'core.fsmonitor=false', 'add', '--all', '--force'], { env: snapshotEnv });
  const baseTree = (await runGit(['write-tree'], { env: snapshotEnv })).stdout.trim();
  const prepared: TaskRootRecord = {
    version: 1,
    kind: 'copy',
    projectPath,
    baseRevision: null,
    branch: null,
    git: null,
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

export async function removeTaskRoot(location: TaskRootLocation): Promise<void> {
  assertRunId(location.runId);
  if (!(await pathExists(location.dataDir))) return;
  const dataDir = await fs.realpath(location.dataDir);
  const paths = taskRootPaths(dataDir, location.runId);
  const record = await readRecord(paths.root);
  const isWorktree = record ? record.kind === 'worktree' : location.project.isGitRepo;
  const projectPath = record?.projectPath ?? location.project.path;
  const branch = record?.branch ?? `${taskBranchPrefix}${location.runId}`;

  if (isWorktree && (await pathExists(projectPath))) {
    // A project that is no longer a git repository (or is gone) has no worktree to unregister;
    // the task root is removed all the same.
    await discardWorktree(projectPath, paths.view, branch).catch(() => undefined);
  }
  await fs.rm(paths.root, { recursive: true, force: true });
  if (isWorktree && (await pathExists(projectPath))) {
    await runGit(['worktree', 'prune'], { cwd: projectPath }).catch(() => undefined);
  }
}

/** Removes a worktree, its registration and its branch, tolerating any of them being gone already. */
async function discardWorktree(projectPath: string, view: string, branch: string): Promise<void> {
  if (await pathExists(view)) {
    await runGit(['worktree', 'remove', '--force', view], { cwd: projectPath }).catch(() => undefined);
    await fs.rm(view, { recursive: true, force: true });
  }
  await runGit(['worktree', 'prune'], { cwd: projectPath });
  if (await hasBranch(projectPath, branch)) {
    await runGit(['branch', '-D', '--end-of-options', branch], { cwd: projectPath });
  }
}

/**
 * The diff of the view against the run's base: files changed and the unified diff, including files
 * the agent created but never added, and commits it made on its branch.
 *
 * Untracked files are marked intent-to-add in a throwaway copy of the index, so the agent's own
 * index is never touched (it may be running) and no objects are written into the project's store.
 */
export async function diffTaskView(taskRoot: TaskRoot, options: { maxDiffBytes?: number } = {}): Promise<TaskViewDiff> {
  const record = await readRecord(taskRoot.root);
  if (!record) throw new Error(`${taskRoot.root} has no task root record; prepare it first.`);

  let gitEnv: Record<string, string>;
  let base: string;
  let indexSource: string;
  if (record.kind === 'worktree' && record.git && record.baseRevision) {
    gitEnv = {
      GIT_DIR: record.git.worktreeAdminDir,
      GIT_COMMON_DIR: record.git.commonDir,
      GIT_WORK_TREE: taskRoot.view,
    };
    base = record.baseRevision;
    indexSource = path.join(record.git.worktreeAdminDir, 'index');
  } else if (record.kind === 'copy' && record.baseTree) {
    const snapshotDir = path.join(taskRoot.root, baseSnapshotDirName);
    gitEnv = { GIT_DIR: snapshotDir, GIT_WORK_TREE: taskRoot.view };
    base = record.baseTree;
    indexSource = path.join(snapshotDir, 'index');
  } else {
    throw new Error(`${taskRoot.root} has an incomplete task root record; prepare it again.`);
  }

  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'operator-console-diff-'));
  try {
    const index = path.join(scratch, 'index');
    const env = { ...gitEnv, GIT_INDEX_FILE: index, GIT_LITERAL_PATHSPECS: '1' };
    // Hooks and daemons have no business in a read-only question about the view.
    const safe = ['-c', 'core.fsmonitor=false', '-c', 'core.untrackedCache=false', '-c', 'core.quotePath=false'];
    try {
      await fs.copyFile(indexSource, index);
    } catch {
      await runGit([...safe, 'read-tree', base], { env });
    }
    const untracked = (await runGit([...safe, 'ls-files', '-z', '--others', '--exclude-standard'], { env })).stdout;
    if (untracked.length > 0) {
      const list = path.join(scratch, 'untracked');
      await fs.writeFile(list, untracked);
      await runGit([...safe, 'add', '--intent-to-add', `--pathspec-from-file=${list}`, '--pathspec-file-nul'], { env });
    }
    const diffArgs = [...safe, 'diff', '-M', '--no-ext-diff', '--no-textconv', '--no-color', '--no-relative'];
    const nameStatus = await runGit([...diffArgs, '--name-status', '-z', base, '--'], { env });
    const unified = await runGit(
      [...diffArgs, '--src-prefix=a/', '--dst-prefix=b/', base, '--'],
      { env, maxBuffer: 512 * 1024 * 1024 },
    );
    const maxDiffBytes = options.maxDiffBytes ?? 8 * 1024 * 1024;
    const truncated = Buffer.byteLength(unified.stdout) > maxDiffBytes;
    const unifiedDiff = truncated ? Buffer.from(unified.stdout).subarray(0, maxDiffBytes).toString('utf8') : unified.stdout;
    return { files: parseNameStatus(nameStatus.stdout), unifiedDiff, truncated };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
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

/**
 * The bind points that let the agent commit on its own branch inside the OS sandbox, and the ones
 * that must stay read-only. Only the folders of the run's branch ref (shared with other runs of the
 * console, never with the operator's branches) become writable, not `refs/` as a whole.
 */
export async function gitProtectionFor(taskRoot: TaskRoot): Promise<GitProtection | null> {
  const record = await readRecord(taskRoot.root);
  if (!record?.git || !record.branch) return null;
  const { commonDir, worktreeAdminDir } = record.git;
  const branchFolder = path.posix.dirname(record.branch);
  const branchRefDirs = [
    path.join(commonDir, 'refs', 'heads', ...branchFolder.split('/')),
    path.join(commonDir, 'logs', 'refs', 'heads', ...branchFolder.split('/')),
  ];
  // Bind sources must exist; an empty folder under refs/ means nothing to git.
  for (const dir of branchRefDirs) await fs.mkdir(dir, { recursive: true });
  return {
    commonDir,
    objectStore: path.join(commonDir, 'objects'),
    worktreeAdminDir,
    branchRefDirs,
    hooksDir: path.join(commonDir, 'hooks'),
    configFile: path.join(commonDir, 'config'),
    lockedFiles: [path.join(taskRoot.view, '.git'), path.join(worktreeAdminDir, 'commondir'), path.join(worktreeAdminDir, 'gitdir')],
  };
}

async function resolveCommit(projectPath: string, revision: string): Promise<string> {
  try {
    const result = await runGit(['rev-parse', '--verify', '--end-of-options', `${revision}^{commit}`], { cwd: projectPath });
    return result.stdout.trim();
  } catch (error) {
    if (error instanceof GitCommandError) {
      throw new Error(`"${revision}" is not a commit of ${projectPath}; a worktree needs a commit to start from.`);
    }
    throw error;
  }
}

async function hasBranch(projectPath: string, branch: string): Promise<boolean> {
  const result = await runGit(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], {
    cwd: projectPath,
    okExitCodes: [0, 1],
  });
  return result.exitCode === 0;
}

async function readGitFileTarget(view: string): Promise<string> {
  const content = await fs.readFile(path.join(view, '.git'), 'utf8');
  const match = /^gitdir: (.+)$/m.exec(content);
  if (!match?.[1]) throw new Error(`${view}/.git does not name a git directory.`);
  return fs.realpath(path.resolve(view, match[1].trim()));
}

async function isIntactWorktree(view: string, git: TaskRootGit): Promise<boolean> {
  try {
    const target = await readGitFileTarget(view);
    if (target !== git.worktreeAdminDir) return false;
    const backLink = (await fs.readFile(path.join(git.worktreeAdminDir, 'gitdir'), 'utf8')).trim();
    return path.resolve(backLink) === path.join(view, '.git');
  } catch {
    return false;
  }
}

async function readRecord(root: string): Promise<TaskRootRecord | null> {
  try {
    const parsed = JSON.parse(await fs.readFile(path.join(root, recordFileName), 'utf8')) as TaskRootRecord;
    return parsed.version === 1 ? parsed : null;
  } catch {
    return null;
  }
}

async function writeRecord(root: string, record: TaskRootRecord): Promise<void> {
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
    git: record.git,
  };
}

async function pathExists(target: string): Promise<boolean> {
  try {
    await fs.access(target, fsConstants.F_OK);
    return true;
  } catch {
    return false;
  }
}

async function removeIfEmptyDir(target: string): Promise<void> {
  try {
    await fs.rmdir(target);
  } catch {
    // Not there, or not empty: the caller decides what that means.
  }
}
