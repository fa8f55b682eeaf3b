import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { DirectoryListing } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';

/** Folders listed at most per directory; a listing past it says it was truncated. */
const maxEntries = 500;

export function isGitRepo(dir: string): boolean {
  // A worktree or submodule has a `.git` file rather than a folder; both count.
  return existsSync(path.join(dir, '.git'));
}

/**
 * Lists the sub-folders of a directory, for the "Browse…" picker that works the same in the desktop
 * app and in a browser (which cannot hand the host a local path). Hidden folders are left out. With
 * no directory asked, the picker opens at the operator's home.
 */
export async function browseDirectory(dir: string | undefined, operatorHome: string): Promise<DirectoryListing> {
  const target = path.resolve(dir ?? operatorHome);
  let info;
  try {
    info = await stat(target);
  } catch {
    throw new OperatorError({ code: 'path_not_found', message: `${target} does not exist. Check the path and try again.` });
  }
  if (!info.isDirectory()) {
    throw new OperatorError({ code: 'not_a_directory', message: `${target} is a file, not a folder. Choose a folder.` });
  }
  let dirents;
  try {
    dirents = await readdir(target, { withFileTypes: true });
  } catch {
    throw new OperatorError({
      code: 'path_not_readable',
      message: `The console cannot read ${target}. Check its permissions, or choose another folder.`,
    });
  }
  const folders = dirents
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
  const entries = folders.slice(0, maxEntries).map((name) => {
    const full = path.join(target, name);
    return { name, path: full, isGitRepo: isGitRepo(full) };
  });
  const parent = path.dirname(target);
  return { path: target, parent: parent === target ? null : parent, entries, truncated: folders.length > maxEntries };
}
