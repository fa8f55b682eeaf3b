import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../platform/safe-path';
import type { RunFileTools, TaskRepository, TaskRoot, TaskRootKind, taskRootPaths } from './task-root-layout';

/**
 * `task-root.json`: what the console learned while preparing a task root. It sits in the task root
 * itself, which no run can write, and later steps trust it, never the run's files.
 */

const recordFileName = 'task-root.json';

export interface TaskRootRecordV2 {
  version: 2;
  kind: TaskRootKind;
  projectPath: string;
  baseRevision: string | null;
  branch: string | null;
  repository: TaskRepository | null;
  /** For a copy: the tree object (in `base.git`) of the view as it was copied. */
  baseTree: string | null;
  /**
   * The project's local branch the run started from (HEAD's branch, or the branch its base revision
   * named), landing's default target; null for a detached HEAD, a tag or commit, a copy, and records
   * written before landing (read as absent).
   */
  baseBranch: string | null;
}

/** Written by consoles before the run's own repository: a worktree of the project's repository. */
export interface TaskRootRecordV1 {
  version: 1;
  kind: TaskRootKind;
  projectPath: string;
  baseRevision: string | null;
  branch: string | null;
  git: { commonDir: string; worktreeAdminDir: string } | null;
  baseTree: string | null;
}

export type TaskRootRecord = TaskRootRecordV2 | TaskRootRecordV1;

export async function readRecord(root: string): Promise<TaskRootRecord | null> {
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

export async function writeRecord(root: string, record: TaskRootRecordV2): Promise<void> {
  // Written whole then renamed, so a crash never leaves half a record that looks complete.
  const file = path.join(root, recordFileName);
  const partial = `${file}.partial`;
  await fs.writeFile(partial, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(partial, file);
}

export function toTaskRoot(paths: ReturnType<typeof taskRootPaths>, record: TaskRootRecord): TaskRoot {
  return {
    ...paths,
    baseRevision: record.baseRevision,
    branch: record.branch,
    kind: record.kind,
    projectPath: record.projectPath,
    repository: record.version === 2 ? record.repository : null,
    baseBranch: record.version === 2 ? (record.baseBranch ?? null) : null,
    legacy: record.version === 1,
  };
}

/**
 * An earlier console's sandbox ran as root and left its files root's: its tools run as the console's
 * own user (still sandboxed and hardened), since nobody could read or remove them.
 */
export function toolsForRecord(tools: RunFileTools, record: TaskRootRecord): RunFileTools {
  if (record.version !== 1 || tools.isolation.kind !== 'bubblewrap' || !tools.isolation.setup.user) return tools;
  return { ...tools, isolation: { kind: 'bubblewrap', setup: { ...tools.isolation.setup, user: null } } };
}
