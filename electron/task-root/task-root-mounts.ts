import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SandboxOverlay } from '../sandbox/bwrap';
import { writeWorktreeLinks } from './run-git-repository';
import { ensureFolderWithin, type Owner } from '../platform/safe-path';
import { kindAt, taskWritableRoots, type TaskRoot } from './task-root-layout';

/** What a sandboxed run of this task root mounts beyond the system (see sandbox/bwrap.ts for the order). */
export interface TaskRootMounts {
  writableRoots: string[];
  /** The project's objects the run's repository borrows. */
  readOnlyRebinds: string[];
  /** The run's git repository's config, hooks and worktree links, read-only and immovable. */
  overlays: SandboxOverlay[];
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
