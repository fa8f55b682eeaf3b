import path from 'node:path';
import { OperatorError } from '../../shared/errors';
import { inspectWithin, readRegularFile, UnsafePathError } from '../platform/safe-path';
import type { TaskRoot } from './task-root-layout';

/**
 * The commit a branch of a run's store points at, read as data: the store is agent-written, so host
 * git never opens it as a repository (no config, no hooks, no reference backend of the agent's
 * choosing). A loose ref beats packed-refs, as in git. Only regular files are read, never through a
 * link and never a FIFO (readRegularFile), so a planted ref can neither hang the console nor point it
 * at a file of the operator's.
 */

const objectName = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * The branch's commit; null when the store has no such branch (or names no commit for it). A loose
 * ref that is a link, a FIFO or anything but a regular file throws UnsafePathError.
 */
export async function readBranchCommit(gitDir: string, branch: string): Promise<string | null> {
  // Every folder from the store down to the ref must be a real folder (a linked `refs/heads/x` would
  // be followed by the open, which checks only the last component).
  for (const relative of [path.join('refs', 'heads', ...branch.split('/')), 'packed-refs']) {
    const { unsafe } = await inspectWithin(path.dirname(gitDir), path.join(path.basename(gitDir), relative));
    if (unsafe) throw new UnsafePathError(unsafe, 'not a real folder');
  }
  const loose = await readRegularFile(path.join(gitDir, 'refs', 'heads', ...branch.split('/')), 256).catch((error: unknown) => {
    // A folder on the way that is not a folder (ENOTDIR) is a branch that is not there; a link or FIFO is refused.
    if (error instanceof UnsafePathError) throw error;
    return null;
  });
  const looseHash = loose?.toString('utf8').trim();
  if (looseHash && objectName.test(looseHash)) return looseHash;
  const packed = await readRegularFile(path.join(gitDir, 'packed-refs'), 16 * 1024 * 1024).catch((error: unknown) => {
    if (error instanceof UnsafePathError) throw error;
    return null;
  });
  for (const line of packed?.toString('utf8').split('\n') ?? []) {
    const [value, ref] = line.trim().split(' ');
    if (ref === `refs/heads/${branch}` && value && objectName.test(value)) return value;
  }
  return null;
}

/** The tip of the run's branch in its store, for landing; a store or branch that is not there, or an unsafe ref, is the operator's error. */
export async function readRunBranchTip(taskRoot: TaskRoot): Promise<string> {
  if (!taskRoot.repository || !taskRoot.branch) {
    throw new OperatorError({ code: 'conflict', message: 'This run has no store of its own to commit on or land from: it worked on a copy of a plain folder, or was made by an earlier console.' });
  }
  let tip: string | null;
  try {
    tip = await readBranchCommit(taskRoot.repository.gitDir, taskRoot.branch);
  } catch (error) {
    if (!(error instanceof UnsafePathError)) throw error;
    throw new OperatorError({
      code: 'conflict',
      message: `The run's branch ${taskRoot.branch} is not a plain ref file in its store (${error.found}); the console will not follow it. Discard the run, or ask the agent to restore its branch.`,
    });
  }
  if (!tip) {
    throw new OperatorError({ code: 'conflict', message: `The run's branch ${taskRoot.branch} is missing from its store (the agent deleted or renamed it).` });
  }
  return tip;
}

export function isObjectName(value: string): boolean {
  return objectName.test(value);
}
