import { promises as fs } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '../../shared/errors';
import { asGitFailure } from '../git/git-errors';
import { prepareProjectCopy } from './project-copy';
import { prepareRunGitRepository } from './run-git-repository';
import { ensureFolderWithin } from '../platform/safe-path';
import { assertRunId, taskRootPaths, type PrepareTaskRootInput, type TaskRoot, type TaskRootKind } from './task-root-layout';
import { readRecord, toTaskRoot, type TaskRootRecordV2 } from './task-root-record';

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
 * a repository on the run's store (git/hardened-git.ts reads only its objects, a copy of the index and the
 * work tree, in a tool sandbox), never follows a link inside the writable roots (platform/safe-path.ts), and
 * removes a task root by emptying its writable roots inside a tool sandbox (task-root-removal.ts).
 *
 * Where each part lives: task-root-layout.ts (its folders and types), task-root-record.ts (the
 * record), run-git-repository.ts (a git project's run git repository and view), project-copy.ts (a plain
 * folder's copy and snapshot), task-root-mounts.ts (what a sandboxed launch binds), task-view-diff.ts
 * (the run's changes) and task-root-removal.ts.
 *
 * A task root made by an earlier console (record version 1: a worktree inside the project's own
 * repository) can still be diffed and removed, never launched again.
 */

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
        ? await prepareRunGitRepository(paths, projectPath, input, record)
        : await prepareProjectCopy(paths, projectPath, dataDir, input, record);
  } catch (error) {
    // git's refusals reach the run as a code and a remedy (no commit yet, a stale lock, ...), not as "internal".
    throw asGitFailure(error, { repository: projectPath, doing: kind === 'worktree' ? 'prepare the run’s worktree' : 'snapshot the run’s copy of the project' });
  }
  return toTaskRoot(paths, prepared);
}
