import { execFile } from 'node:child_process';
import type { Owner } from '../platform/safe-path';

/**
 * Who a sandbox's programs run as. Normally the operator (the console's own user, inside a user
 * namespace). When the console itself runs as root (CI, containers, some servers) a sandbox would
 * otherwise run as uid 0, which without any capability still owns every root file: it could read
 * /etc/shadow and host keys, and write whatever root may write under its binds. So the sandbox runs as
 * nobody instead, and what it must write (its writable roots) is handed to nobody first.
 */
export const nobody: Owner = { uid: 65534, gid: 65534 };

export function sandboxUser(): Owner | null {
  return process.platform === 'linux' && process.getuid?.() === 0 ? nobody : null;
}

/**
 * Hands folders the console just made (a fresh checkout, empty roots) to the sandbox's user:
 * `chown -R` without following links, in a child process so a large checkout does not hold the
 * event loop. Nothing happens when the sandbox runs as the console's own user.
 */
export function handToSandboxUser(paths: string[], user: Owner | null, timeoutMs = 120_000): Promise<void> {
  if (!user || paths.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    execFile('chown', ['-R', '-P', '-h', `${user.uid}:${user.gid}`, '--', ...paths], { timeout: timeoutMs, killSignal: 'SIGKILL' }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`Could not hand ${paths.join(', ')} to the sandbox's user: ${String(stderr).trim() || error.message}`));
      else resolve();
    });
  });
}
