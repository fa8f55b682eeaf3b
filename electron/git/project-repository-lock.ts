import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * Host-side git that changes a project's repository (a run's keep-ref, its removal, bringing its
 * commits in, landing) runs one at a time per project. git locks each file it writes and gives up,
 * rather than waits, when another git holds it (`packed-refs.lock`, a worktree's `locked`): two runs
 * started at once on one project must not fail because the console raced itself. Reads need no turn.
 *
 * Keyed by the project's real path, so two spellings of one folder share a turn. In-process: one
 * console owns a data directory (platform/data-dir-lock.ts); the operator's own git is not waited for.
 */

const lastInLine = new Map<string, Promise<void>>();

export async function withProjectRepository<T>(projectPath: string, work: () => Promise<T>): Promise<T> {
  const key = await fs.realpath(projectPath).catch(() => path.resolve(projectPath));
  const before = lastInLine.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const turn = before.then(() => mine);
  lastInLine.set(key, turn);
  await before;
  try {
    return await work();
  } finally {
    done();
    // The last in line leaves no entry behind: the map holds only projects with git under way.
    if (lastInLine.get(key) === turn) lastInLine.delete(key);
  }
}
