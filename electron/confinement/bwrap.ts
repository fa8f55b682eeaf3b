import { execFile } from 'node:child_process';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { GitProtection, TaskRoot } from './task-root';

/**
 * The Linux OS sandbox: the argument vector for bubblewrap (`bwrap <args> -- <command>`).
 *
 * The mount table is built in this order, and the order is the design: bubblewrap applies its
 * operations one after another, and a later mount covers an earlier one at the same or a deeper path.
 *   1. `--ro-bind / /`: the whole system, read-only.
 *   2. `--dev`, `--proc`: a minimal /dev and a /proc for the new PID namespace.
 *   3. tmpfs over what must not be seen: the operator's home, the project's original folder (and any
 *      other hidden path), /run (the docker socket, the D-Bus system bus, per-user runtime sockets
 *      of the keyring and ssh-agent), and /tmp and /var/tmp (X11 and ssh-agent sockets, other
 *      programs' files; the run gets a private, empty, writable one).
 *   4. read-only re-binds of only what the run needs from inside those: the CLI's installation
 *      under the home, the targets of a preconfigured home's links, the project's git directory.
 *   5. the writable roots (view, tmp, cache, home of the task), after the tmpfs so they stay
 *      visible when the data directory lives under the operator's home.
 *   6. the egress proxy's socket folder, read-only (connecting to a socket needs no write access).
 *   7. the git paths a commit writes (objects, this worktree's admin folder, the run's branch ref),
 *   8. then `.git/hooks`, `.git/config` and the files tying the worktree to its repository
 *      (`view/.git`, the admin folder's `commondir` and `gitdir`) re-bound read-only, last, so no
 *      earlier writable bind (view, admin folder) exposes them.
 *   9. `--remount-ro` of the hidden tmpfs mounts, once everything has been mounted inside them.
 * Every capability is dropped (run as root, bubblewrap would keep them, and CAP_SYS_ADMIN can unmount
 * the tmpfs over the home). Namespaces: a new PID namespace (the run sees only its own processes), IPC
 * namespace, and a network namespace unless the mode is `open`. `--die-with-parent` kills the sandbox with the console.
 * `--new-session` is not used: it stops a PTY's SIGWINCH from reaching the agent. A run started
 * without a PTY should be spawned detached (its own session) so it cannot reach the console's
 * controlling terminal.
 * The environment is not set here: the caller spawns bwrap with the confined environment.
 */

export type NetworkMode = 'open' | 'none' | 'provider-only';

export interface BwrapInput {
  taskRoot: Pick<TaskRoot, 'view'>;
  /** Bound read-write; normally `taskWritableRoots(taskRoot)`. */
  writableRoots: string[];
  networkMode: NetworkMode;
  operatorHome: string;
  /** Paths to show read-only inside hidden folders: CLI installation dirs under home, link targets. */
  readOnlyRebinds: string[];
  /** More folders to hide (empty tmpfs), e.g. the project's original directory. */
  hiddenPaths?: string[];
  gitProtection?: GitProtection | null;
  /** The egress proxy's Unix socket; required for `provider-only`. Its folder is bound read-only. */
  proxySocket?: string;
  command: string[];
}

/** Hidden system folders a run may still write to (private and empty, gone when the run ends). */
const privateScratchFolders = ['/tmp', '/var/tmp'];
/** Hidden system folders with nothing a run needs but plenty it must not reach (sockets). */
const hiddenSystemFolders = ['/run'];

export function buildBwrapArgs(input: BwrapInput): string[] {
  if (input.command.length === 0) throw new Error('A sandboxed run needs a command.');
  if (input.networkMode === 'provider-only' && !input.proxySocket) {
    throw new Error('The provider-only network mode needs the egress proxy socket.');
  }
  const args: string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];

  const scratch = privateScratchFolders.filter(isRealDirectory);
  // Resolved, so a home reached through a symbolic link (/home/me -> /data/me) is hidden where it
  // really is. A path that does not exist is kept: bubblewrap then fails to mount it and the run
  // fails closed rather than running with something unhidden.
  const readOnlyHidden = uniquePaths([
    ...hiddenSystemFolders.filter(isRealDirectory),
    ...[input.operatorHome, ...(input.hiddenPaths ?? [])].map((folder) => realpathOrNull(folder) ?? folder),
  ]).filter((folder) => folder !== '/');
  for (const folder of byDepth(uniquePaths([...scratch, ...readOnlyHidden]))) args.push('--tmpfs', folder);

  const hidden = [...scratch, ...readOnlyHidden];
  const isHidden = (candidate: string) => hidden.some((folder) => isInside(candidate, folder));

  // DNS still has to work in `open` mode when /etc/resolv.conf points into /run.
  const resolvConf = realpathOrNull('/etc/resolv.conf');
  if (resolvConf && resolvConf !== '/etc/resolv.conf' && isHidden(resolvConf)) args.push('--ro-bind-try', resolvConf, resolvConf);

  if (input.gitProtection) args.push('--ro-bind', input.gitProtection.commonDir, input.gitProtection.commonDir);
  for (const rebind of byDepth(uniquePaths(input.readOnlyRebinds))) args.push('--ro-bind-try', rebind, rebind);

  for (const root of byDepth(uniquePaths(input.writableRoots))) args.push('--bind', root, root);

  if (input.proxySocket && input.networkMode === 'provider-only') {
    const socketFolder = path.dirname(input.proxySocket);
    args.push('--ro-bind', socketFolder, socketFolder);
  }

  if (input.gitProtection) {
    const git = input.gitProtection;
    for (const writable of [git.objectStore, git.worktreeAdminDir, ...git.branchRefDirs]) args.push('--bind', writable, writable);
    for (const locked of [git.hooksDir, git.configFile, ...git.lockedFiles]) args.push('--ro-bind-try', locked, locked);
  }

  for (const folder of byDepth(readOnlyHidden)) args.push('--remount-ro', folder);

  // Running as root, bubblewrap would otherwise keep every capability, and CAP_SYS_ADMIN undoes the
  // mounts above (umount the tmpfs over the home and read ~/.ssh).
  args.push('--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc');
  if (input.networkMode !== 'open') args.push('--unshare-net');
  args.push('--die-with-parent', '--chdir', input.taskRoot.view, '--', ...input.command);
  return args;
}

/** The paths a preconfigured home and the CLI need visible, for `readOnlyRebinds`. */
export function readOnlyRebindsFor(input: { linkTargets: string[]; installationDirs: string[] }): string[] {
  return uniquePaths([...input.installationDirs, ...input.linkTargets]);
}

export type SandboxLevel = 'bubblewrap' | 'seatbelt' | 'none';

export interface SandboxProbe {
  available: boolean;
  level: SandboxLevel;
  reason?: string;
  /** What the operator can install or enable; shown in the `sandbox_unavailable` notice. */
  hint?: string;
}

export interface ProbeSandboxOptions {
  platform?: NodeJS.Platform;
  bwrapPath?: string;
  sandboxExecPath?: string;
  timeoutMs?: number;
}

const bubblewrapInstallHint =
  'Install bubblewrap (apt install bubblewrap, or dnf install bubblewrap) and allow unprivileged user namespaces.';
const userNamespaceHint =
  'Allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 on Debian; on Ubuntu 24.04 and later, ' +
  'sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile that lets bwrap use user namespaces.';

/**
 * Starts a throwaway sandbox with the features runs rely on (read-only root, tmpfs, new /dev and
 * /proc, PID and network namespaces) and reports whether it worked. Runs in a sandboxed environment
 * are refused with `sandbox_unavailable` and this hint when it did not.
 */
export async function probeSandbox(options: ProbeSandboxOptions = {}): Promise<SandboxProbe> {
  const platform = options.platform ?? process.platform;
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (platform === 'linux') {
    const bwrap = options.bwrapPath ?? 'bwrap';
    const result = await tryRun(
      bwrap,
      ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--cap-drop', 'ALL',
        '--unshare-pid', '--unshare-net', '--die-with-parent', 'true'],
      timeoutMs,
    );
    if (result.ok) return { available: true, level: 'bubblewrap' };
    if (result.missing) return { available: false, level: 'none', reason: `${bwrap} was not found.`, hint: bubblewrapInstallHint };
    const reason = result.timedOut ? `bubblewrap did not finish within ${timeoutMs} ms.` : firstLine(result.stderr) || 'bubblewrap failed.';
    const namespaces = /namespace|uid map|permission denied|operation not permitted/i.test(result.stderr);
    return { available: false, level: 'none', reason, hint: namespaces ? userNamespaceHint : bubblewrapInstallHint };
  }
  if (platform === 'darwin') {
    const sandboxExec = options.sandboxExecPath ?? '/usr/bin/sandbox-exec';
    const result = await tryRun(sandboxExec, ['-p', '(version 1)(allow default)', '/usr/bin/true'], timeoutMs);
    if (result.ok) return { available: true, level: 'seatbelt' };
    return {
      available: false,
      level: 'none',
      reason: result.missing ? `${sandboxExec} was not found.` : firstLine(result.stderr) || 'sandbox-exec failed.',
      hint: 'sandbox-exec ships with macOS in /usr/bin; check that it has not been removed or blocked by a management profile.',
    };
  }
  return {
    available: false,
    level: 'none',
    reason: `No OS sandbox is supported on ${platform}.`,
    hint: 'Use a local environment on this machine, or run sandboxed environments on Linux (bubblewrap) or macOS.',
  };
}

interface RunOutcome {
  ok: boolean;
  missing: boolean;
  timedOut: boolean;
  stderr: string;
}

function tryRun(file: string, args: string[], timeoutMs: number): Promise<RunOutcome> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8' }, (error, _stdout, stderr) => {
      if (!error) {
        resolve({ ok: true, missing: false, timedOut: false, stderr });
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      resolve({ ok: false, missing: code === 'ENOENT', timedOut: error.killed === true, stderr: stderr || error.message });
    });
  });
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '')?.trim() ?? '';
}

function isRealDirectory(folder: string): boolean {
  try {
    const stat = lstatSync(folder);
    return stat.isDirectory() && !stat.isSymbolicLink();
  } catch {
    return false;
  }
}

function realpathOrNull(file: string): string | null {
  try {
    return existsSync(file) ? realpathSync(file) : null;
  } catch {
    return null;
  }
}

function uniquePaths(paths: string[]): string[] {
  return [...new Set(paths.map((entry) => path.resolve(entry)))];
}

/** Parents before children, so a deeper mount is not covered by its parent's later mount. */
function byDepth(paths: string[]): string[] {
  return [...paths].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

function isInside(candidate: string, folder: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
