import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Where the console service of a data directory listens: `<data dir>/service/console.sock`, the socket
 * 0600 in a folder that is 0700.
 *
 * In the data directory rather than $XDG_RUNTIME_DIR: there is one service per data directory, and it
 * holds that directory's lock, so the socket belongs beside the lock, and any client finds it from the
 * data directory alone (no mapping to keep). $XDG_RUNTIME_DIR is also often unset (root, ssh, containers,
 * macOS), and the data directory is the operator's and private already.
 *
 * A Unix socket's path is limited (108 bytes on Linux, 104 on macOS). A data directory too deep for
 * that gets its socket in `$XDG_RUNTIME_DIR` (else the temporary directory) under
 * `operator-console-<uid>/` (0700, ours, not a link: checked), named by a digest of the data directory.
 */

export const serviceFolderName = 'service';
export const serviceSocketName = 'console.sock';
/** The smaller of the two limits, less the terminating NUL. */
const maxSocketPathBytes = 103;

export function serviceSocketPath(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const inDataDir = path.join(path.resolve(dataDir), serviceFolderName, serviceSocketName);
  if (Buffer.byteLength(inDataDir) <= maxSocketPathBytes) return inDataDir;
  const digest = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 24);
  return path.join(env.XDG_RUNTIME_DIR || tmpdir(), `operator-console-${process.getuid?.() ?? 'user'}`, `${digest}.sock`);
}

/**
 * Makes the socket's folder private before anything listens in it: created 0700, and an existing one
 * must be a real folder of this user (not a link another user planted), set to 0700.
 */
export function prepareServiceSocketFolder(socketPath: string): void {
  const folder = path.dirname(socketPath);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stats = lstatSync(folder);
  if (!stats.isDirectory()) throw new Error(`${folder} is not a folder (a link or a file is in the way); remove it and start again.`);
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) throw new Error(`${folder} belongs to another user (uid ${stats.uid}); the console's socket must be in a folder of its own.`);
  chmodSync(folder, 0o700);
}
