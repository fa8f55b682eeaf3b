import { promises as fs } from 'node:fs';
import path from 'node:path';
import { GitToolError, openHardenedGit, type HardenedGit } from '../git/hardened-git';
import { baseSnapshotDirName, type RunFileTools, type TaskRoot } from './task-root-layout';
import { readRecord, toolsForRecord, type TaskRootRecord } from './task-root-record';
import { runTool } from '../sandbox/tool-sandbox';

export type TaskFileStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface TaskFileChange {
  path: string;
  status: TaskFileStatus;
  /** For a rename: where the file was. */
  oldPath?: string;
  /** Lines added and removed; null for a binary file. */
  additions: number | null;
  deletions: number | null;
}

export interface TaskViewDiff {
  files: TaskFileChange[];
  unifiedDiff: string;
  /** The unified diff was cut at `maxDiffBytes`; the file list is always complete. */
  truncated: boolean;
  /** Folders holding a repository of their own that the agent made in the view: never entered. */
  nestedRepositories: string[];
}

/**
 * The diff of the view against the run's base: files changed and the unified diff, including files
 * the agent created but never added, and commits it made on its branch.
 *
 * All of it through hardened git in a tool sandbox (git/hardened-git.ts). The agent's index is copied
 * inside the sandbox, bounded in time (it may be a FIFO, or swapped for one while the run goes on);
 * untracked files are marked intent-to-add in that copy only, so the agent's own index is never
 * touched and no object is written anywhere.
 */
export async function diffTaskView(taskRoot: TaskRoot, tools: RunFileTools, options: { maxDiffBytes?: number } = {}): Promise<TaskViewDiff> {
  const question = await openViewQuestion(taskRoot, tools);
  const { git, base } = question;
  try {
    const nameStatus = await git.run([...viewDiffArgs, '--name-status', '-z', base, '--']);
    const numstat = await git.run([...viewDiffArgs, '--numstat', '-z', base, '--']);
    const maxDiffBytes = options.maxDiffBytes ?? 8 * 1024 * 1024;
    const unified = await git.run([...viewDiffArgs, '--src-prefix=a/', '--dst-prefix=b/', base, '--'], { maxOutputBytes: maxDiffBytes });
    return {
      files: withLineCounts(parseNameStatus(nameStatus.stdout.toString('utf8')), parseNumstat(numstat.stdout.toString('utf8'))),
      unifiedDiff: unified.stdout.toString('utf8'),
      truncated: unified.truncated,
      nestedRepositories: question.nestedRepositories,
    };
  } finally {
    await git.dispose();
  }
}

/** How every question compares the view with a commit or tree: no external diff, no textconv, no submodule entered. */
export const viewDiffArgs = ['diff', '-M', '--no-ext-diff', '--no-textconv', '--ignore-submodules=all', '--no-color', '--no-relative'];

/**
 * Hardened git set up to compare the view with a commit or tree of the run's: the agent's index
 * copied, its untracked (not ignored) files marked intent-to-add in the copy, so `git diff <tree>`
 * sees every file the agent left. The caller asks its questions, then disposes `git`.
 */
export interface ViewQuestion {
  git: HardenedGit;
  record: TaskRootRecord;
  /** The run's base: its base revision, or for a copy the snapshot's tree. */
  base: string;
  /** Folders holding a repository of their own (untracked, or a gitlink in the index): never entered. */
  nestedRepositories: string[];
}

export async function openViewQuestion(taskRoot: TaskRoot, tools: RunFileTools): Promise<ViewQuestion> {
  const record = await readRecord(taskRoot.root);
  if (!record) throw new Error(`${taskRoot.root} has no task root record; prepare it first.`);
  tools = toolsForRecord(tools, record);
  const question = diffQuestion(taskRoot, record);
  const hiddenPaths = [path.dirname(path.dirname(taskRoot.root)), taskRoot.projectPath];
  const git = await openHardenedGit({
    isolation: tools.isolation,
    operatorHome: tools.operatorHome,
    hiddenPaths,
    readOnly: [taskRoot.view, ...question.objectDirs, path.dirname(question.indexSource)],
    objectDirs: question.objectDirs,
    runObjectDirs: question.runObjectDirs,
    workTree: taskRoot.view,
    objectFormat: question.objectFormat,
    user: tools.isolation.kind === 'bubblewrap' ? tools.isolation.setup.user : null,
  });
  try {
    await copyIndex(git, question.indexSource, tools, hiddenPaths);
    const index = await settleIndex(git, question.base);
    git.refuseUnreadableTracked(index.map((entry) => entry.path));
    const untracked = (await git.run(['ls-files', '-z', '--others', '--exclude-standard'])).stdout;
    const entries = untracked.toString('utf8').split('\0').filter(Boolean);
    // A folder in this list holds a repository of its own, and so does a gitlink the agent added to its
    // index: never entered, only named.
    const gitlinks = index.filter((entry) => entry.mode === '160000').map((entry) => entry.path);
    const nestedRepositories = [...entries.filter((entry) => entry.endsWith('/')).map((entry) => entry.slice(0, -1)), ...gitlinks].sort();
    const files = entries.filter((entry) => !entry.endsWith('/'));
    if (files.length > 0) {
      await git.run(['add', '--intent-to-add', '--pathspec-from-file=-', '--pathspec-file-nul'], { stdin: Buffer.from(`${files.join('\0')}\0`) });
    }
    return { git, record, base: question.base, nestedRepositories };
  } catch (error) {
    await git.dispose();
    throw error;
  }
}

interface DiffQuestion {
  base: string;
  objectDirs: string[];
  /** The ones the run could write (its store's). */
  runObjectDirs: string[];
  indexSource: string;
  objectFormat: 'sha1' | 'sha256';
}

function diffQuestion(taskRoot: TaskRoot, record: TaskRootRecord): DiffQuestion {
  if (record.kind === 'copy' && record.baseTree) {
    const snapshot = path.join(taskRoot.root, baseSnapshotDirName);
    // The snapshot is the console's own, never the run's to write.
    return { base: record.baseTree, objectDirs: [path.join(snapshot, 'objects')], runObjectDirs: [], indexSource: path.join(snapshot, 'index'), objectFormat: 'sha1' };
  }
  if (record.version === 2 && record.repository && record.baseRevision) {
    const repository = record.repository;
    const ownObjects = path.join(repository.gitDir, 'objects');
    return {
      base: record.baseRevision,
      objectDirs: [ownObjects, ...repository.borrowedObjects],
      runObjectDirs: [ownObjects],
      indexSource: path.join(repository.adminDir, 'index'),
      objectFormat: repository.objectFormat,
    };
  }
  if (record.version === 1 && record.git && record.baseRevision) {
    return {
      base: record.baseRevision,
      objectDirs: [path.join(record.git.commonDir, 'objects')],
      // An earlier console's run kept its objects in the project's repository, which is the operator's.
      runObjectDirs: [],
      indexSource: path.join(record.git.worktreeAdminDir, 'index'),
      objectFormat: record.baseRevision.length === 64 ? 'sha256' : 'sha1',
    };
  }
  throw new Error(`${taskRoot.root} has an incomplete task root record; prepare it again.`);
}

// Copies the index if it is a regular file (not a link, a FIFO or a device); a swap between the test
// and the copy can only make the copy wait, and the time limit ends that. Landing's commit
// (landing/run-store-commit.ts) starts from the same copy.
const copyIndexScript = 'if [ -f "$1" ] && [ ! -L "$1" ]; then exec head -c 536870912 -- "$1" > "$2"; fi; exit 3';

export async function copyIndex(git: HardenedGit, indexSource: string, tools: RunFileTools, hiddenPaths: string[]): Promise<void> {
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

export interface IndexEntry {
  /** 100644, 100755, 120000, or 160000 for a gitlink (a repository of its own). */
  mode: string;
  path: string;
}

/**
 * The index git compares the work tree with: the agent's, copied, if git can read it; else (none, a
 * damaged one, one split by the agent) `tree`'s, so files tracked despite .gitignore stay tracked.
 * Its entries are read from the index alone (`ls-files --stage` opens no file of the work tree). Only
 * git's refusal of the index falls back: a timeout is an answer, never run again.
 */
export async function settleIndex(git: HardenedGit, tree: string): Promise<IndexEntry[]> {
  const stage = ['ls-files', '-z', '--stage'];
  let listing: Buffer | null = null;
  if (await fs.access(git.indexFile).then(() => true, () => false)) {
    listing = await git.run(stage).then(
      (listed) => listed.stdout,
      (error: unknown) => {
        if (error instanceof GitToolError && !error.result.timedOut) return null;
        throw error;
      },
    );
  }
  if (listing === null) {
    await git.run(['read-tree', tree]);
    listing = (await git.run(stage)).stdout;
  }
  // "mode SP object SP stage TAB path NUL"
  return listing
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .map((entry) => ({ mode: entry.slice(0, entry.indexOf(' ')), path: entry.slice(entry.indexOf('\t') + 1) }));
}

type LineCounts = Pick<TaskFileChange, 'additions' | 'deletions'>;

/** `--numstat -z`: "added TAB removed TAB path NUL", or for a rename "added TAB removed TAB NUL old NUL new NUL"; "-" for binary. */
function parseNumstat(output: string): Map<string, LineCounts> {
  const tokens = output.split('\0');
  const counts = new Map<string, LineCounts>();
  let i = 0;
  while (i < tokens.length) {
    const head = tokens[i++];
    if (!head) continue;
    const [added = '-', removed = '-', inline = ''] = head.split('\t');
    let filePath = inline;
    if (!inline) {
      i++; // the rename's old path
      filePath = tokens[i++] ?? '';
    }
    counts.set(filePath, { additions: added === '-' ? null : Number(added), deletions: removed === '-' ? null : Number(removed) });
  }
  return counts;
}

function withLineCounts(files: Array<Omit<TaskFileChange, 'additions' | 'deletions'>>, counts: Map<string, LineCounts>): TaskFileChange[] {
  return files.map((file) => ({ ...file, ...(counts.get(file.path) ?? { additions: null, deletions: null }) }));
}

function parseNameStatus(output: string): Array<Omit<TaskFileChange, 'additions' | 'deletions'>> {
  const tokens = output.split('\0');
  const files: Array<Omit<TaskFileChange, 'additions' | 'deletions'>> = [];
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
