import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Owner } from '../platform/safe-path';
import type { ToolIsolation } from '../sandbox/tool-sandbox';

/**
 * What a task root is made of and where each part lies (task-root.ts describes the whole). Paths and
 * types only: nothing here opens a run's files.
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
  /** The project's branch the run started from (task-root-record.ts); null when none. */
  baseBranch: string | null;
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
  /** A sandboxed run's user when the console is root (sandbox/sandbox-user.ts): the writable roots are handed to it. */
  owner?: Owner | null;
  /** How a deleted view is checked out again from the run's repository; the hardened git alone without. */
  tools?: RunFileTools;
}

export interface TaskRootLocation {
  dataDir: string;
  runId: string;
  project: TaskProject;
}

/** How the console's tools work on a run's files (sandbox/tool-sandbox.ts). */
export interface RunFileTools {
  isolation: ToolIsolation;
  operatorHome: string;
}

export const baseSnapshotDirName = 'base.git';
export const repositoryDirName = 'git';
export const worktreeName = 'view';
export const taskBranchPrefix = 'operator-console/';
/** The project's ref that keeps a run's base (and so everything its store borrows) from a gc. */
export const projectKeepRefPrefix = 'refs/operator-console/runs/';
/** The project's ref that holds a run's commits once landing copied them in (landing/run-import.ts). */
export const projectImportedRefPrefix = 'refs/operator-console/imported/';

// Run ids become folder names and branch names: keep them to characters that are safe in both.
const runIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function assertRunId(runId: string): void {
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

/** What is at a path, without following a link there. */
export async function kindAt(target: string): Promise<'missing' | 'dir' | 'file' | 'other'> {
  try {
    const stat = await fs.lstat(target);
    return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}
