import { constants as fsConstants, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';

/**
 * File work the console does on the host inside a run's writable roots (DESIGN.md section 4, threat
 * model). Everything under a writable root may have been put there by the agent, so nothing here
 * follows a symbolic link in any path component, opens a FIFO or a device, or reads without a size
 * bound. Paths are always given as a trusted base (the task root, which the console owns and a run
 * cannot write) plus a relative path below it; every component below the base is checked with lstat.
 *
 * Race-freedom: a sandboxed run's processes all die with its PID namespace when an attempt ends, so
 * between attempts nothing can swap a component after it was checked. A `local` run's leftover
 * processes could (they are the operator's own programs, with the operator's rights, and the threat
 * model does not cover them); the checks still refuse every link they see.
 */

export class UnsafePathError extends Error {
  constructor(
    readonly file: string,
    readonly found: string,
  ) {
    super(`${file} is ${found}, not what the console put there; it will not follow or open it.`);
    this.name = 'UnsafePathError';
  }
}

export interface Owner {
  uid: number;
  gid: number;
}

type Kind = 'missing' | 'file' | 'dir' | 'link' | 'fifo' | 'socket' | 'device';

function kindOf(stat: Stats | null): Kind {
  if (!stat) return 'missing';
  if (stat.isSymbolicLink()) return 'link';
  if (stat.isDirectory()) return 'dir';
  if (stat.isFile()) return 'file';
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  return 'device';
}

const describe: Record<Kind, string> = {
  missing: 'missing',
  file: 'a file',
  dir: 'a folder',
  link: 'a symbolic link',
  fifo: 'a FIFO',
  socket: 'a socket',
  device: 'a device',
};

async function lstatOrNull(file: string): Promise<Stats | null> {
  try {
    return await fs.lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function components(relative: string): string[] {
  const normalized = path.normalize(relative);
  if (path.isAbsolute(normalized) || normalized === '..' || normalized.startsWith(`..${path.sep}`) || normalized === '.') {
    throw new Error(`${relative} must be a path below its base.`);
  }
  return normalized.split(path.sep).filter(Boolean);
}

/**
 * Every folder from `base` down to `relative`'s parent is a real folder (created when missing, with
 * `owner` when given). A link or anything else in the way is removed when `replaceLinks` is set (an
 * unlink never follows the link), else refused.
 */
export async function ensureFolderWithin(
  base: string,
  relative: string,
  options: { owner?: Owner | null; replaceLinks?: boolean } = {},
): Promise<string> {
  let current = base;
  for (const part of components(relative)) {
    current = path.join(current, part);
    const kind = kindOf(await lstatOrNull(current));
    if (kind === 'dir') continue;
    if (kind !== 'missing') {
      if (!options.replaceLinks) throw new UnsafePathError(current, describe[kind]);
      await fs.unlink(current);
    }
    await fs.mkdir(current, { mode: 0o700 });
    if (options.owner) await fs.lchown(current, options.owner.uid, options.owner.gid);
  }
  return current;
}

/** The parent folders of `relative` are real folders (see ensureFolderWithin); returns the full path. */
async function ensureParents(base: string, relative: string, options: { owner?: Owner | null; replaceLinks?: boolean }): Promise<string> {
  const parts = components(relative);
  if (parts.length > 1) await ensureFolderWithin(base, parts.slice(0, -1).join(path.sep), options);
  return path.join(base, ...parts);
}

/**
 * A regular file at `relative` for bubblewrap to bind over: bubblewrap creates a missing mount point
 * itself, following links as it goes (on the host), so the console makes it first, through real
 * folders only. A link, FIFO, socket or device found there is unlinked and replaced by an empty file.
 */
export async function ensureFileSlotWithin(base: string, relative: string, options: { owner?: Owner | null } = {}): Promise<string> {
  const file = await ensureParents(base, relative, { ...options, replaceLinks: true });
  const kind = kindOf(await lstatOrNull(file));
  if (kind === 'file') return file;
  if (kind === 'dir') throw new UnsafePathError(file, describe.dir);
  if (kind !== 'missing') await fs.unlink(file);
  const handle = await fs.open(file, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o600);
  try {
    if (options.owner) await handle.chown(options.owner.uid, options.owner.gid);
  } finally {
    await handle.close();
  }
  return file;
}

/**
 * Writes `content` to `relative` as a new file (whatever was there, unless a folder, is unlinked
 * first, so nothing is ever written through a link or into another file's inode), through real
 * folders only, with `mode` whatever the umask says. A link among the parent folders is replaced by a
 * real folder, or with `keepLinkedFolders` refused (UnsafePathError): a folder of the run's own that
 * happens to be a link is then left as it is, and nothing is written.
 */
export async function writeFileWithin(
  base: string,
  relative: string,
  content: string | Uint8Array,
  options: { mode?: number; owner?: Owner | null; keepLinkedFolders?: boolean } = {},
): Promise<string> {
  const file = await ensureParents(base, relative, { owner: options.owner ?? null, replaceLinks: !options.keepLinkedFolders });
  const kind = kindOf(await lstatOrNull(file));
  if (kind === 'dir') throw new UnsafePathError(file, describe.dir);
  if (kind !== 'missing') await fs.unlink(file);
  const mode = options.mode ?? 0o600;
  const handle = await fs.open(file, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, mode);
  try {
    await handle.writeFile(content);
    await handle.chmod(mode);
    if (options.owner) await handle.chown(options.owner.uid, options.owner.gid);
  } finally {
    await handle.close();
  }
  return file;
}

/**
 * Unlinks `relative` when it is not a folder. When a folder on the way is not a real folder (a link
 * the agent put there), nothing of the console's can be behind it, and nothing is touched.
 * Returns whether something was removed.
 */
export async function unlinkWithin(base: string, relative: string): Promise<boolean> {
  let current = base;
  const parts = components(relative);
  for (const part of parts.slice(0, -1)) {
    current = path.join(current, part);
    if (kindOf(await lstatOrNull(current)) !== 'dir') return false;
  }
  const file = path.join(current, parts.at(-1)!);
  const kind = kindOf(await lstatOrNull(file));
  if (kind === 'missing' || kind === 'dir') return false;
  await fs.unlink(file);
  return true;
}

/** What a path below `base` is, without following links; `unsafe` names the first component that is not a real folder. */
export async function inspectWithin(base: string, relative: string): Promise<{ kind: Kind; unsafe: string | null }> {
  let current = base;
  const parts = components(relative);
  for (const part of parts.slice(0, -1)) {
    current = path.join(current, part);
    const kind = kindOf(await lstatOrNull(current));
    if (kind === 'missing') return { kind: 'missing', unsafe: null };
    if (kind !== 'dir') return { kind, unsafe: current };
  }
  return { kind: kindOf(await lstatOrNull(path.join(current, parts.at(-1)!))), unsafe: null };
}

/**
 * Reads a file the console wrote but a run may have replaced: only a regular file (never through a
 * link, never a FIFO, which would block a thread of the pool every file operation shares), of at most
 * `maxBytes`. Null when it is missing.
 */
export async function readRegularFile(file: string, maxBytes: number): Promise<Buffer | null> {
  const before = await lstatOrNull(file);
  const kind = kindOf(before);
  if (kind === 'missing') return null;
  if (kind !== 'file') throw new UnsafePathError(file, describe[kind]);
  if (before!.size > maxBytes) throw new Error(`${file} is larger than the ${maxBytes} bytes the console reads of it.`);
  // O_NONBLOCK: should the file have become a FIFO since the lstat, the open returns at once.
  const handle = await fs.open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK | fsConstants.O_NOCTTY);
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.ino !== before!.ino || stat.dev !== before!.dev) throw new UnsafePathError(file, 'replaced while it was read');
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
