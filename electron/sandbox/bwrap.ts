import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Owner } from '../platform/safe-path';
import { seccompFd, withSeccompFile } from './seccomp';

/**
 * The Linux OS sandbox: the argument vectors for bubblewrap, for a run (`buildBwrapArgs`) and for the
 * console's own tools when they read or remove a run's files (`buildToolBwrapArgs`).
 *
 * The mount table is built in this order, and the order is the design: bubblewrap applies its
 * operations one after another, and a later mount covers an earlier one at the same or a deeper path.
 *   1. `--ro-bind / /`: the whole system, read-only; then a fresh /dev, a /proc for the new PID
 *      namespace, and /proc/sys and /proc/sysrq-trigger re-bound read-only (bubblewrap leaves them
 *      writable when it runs as root, and a rewritten kernel.core_pattern runs a program as host root).
 *   2. tmpfs over what must not be seen: the operator's home, the console's data directory (the
 *      ledger, the secrets key, every other run's task root and egress socket), the project's folder,
 *      /run (the docker socket, the D-Bus system bus, per-user runtime sockets of the keyring and
 *      ssh-agent), and /tmp and /var/tmp (X11 and ssh-agent sockets, other programs' files; the run
 *      gets a private, empty, writable one).
 *   3. read-only re-binds of only what the run needs from inside those: the CLI's installation
 *      under the home, the targets of a preconfigured home's links, the project's git objects (which
 *      the run's own repository borrows through its alternates).
 *   4. the writable roots (view, tmp, cache, home and the run's repository), after the tmpfs so they
 *      stay visible when the data directory lives under the operator's home.
 *   5. the egress proxy's socket folder, read-only (connecting to a socket needs no write access).
 *   6. the overlays, in order: files and folders the console owns inside the writable roots (the run
 *      repository's config, hooks and worktree links; a managed connection's delivered files), each
 *      bound from the console's own copy, read-only, so the agent can neither change nor move them.
 *   7. `--remount-ro` of the hidden tmpfs mounts, once everything has been mounted inside them.
 * Namespaces: PID, IPC, UTS and (unless the mode is `open`) network. Privileges: every capability is
 * dropped, from all five sets (inheritable and bounding included). When the console runs as root, the
 * run does not: bubblewrap mounts as root and the command starts through `setpriv` as an unprivileged
 * user (`Owner`, nobody), so the kernel sees a uid with no power over root's files or /proc/sys; otherwise bubblewrap runs as the operator in a user namespace,
 * and `--disable-userns` stops the run from making more. A seccomp filter (seccomp.ts) refuses the
 * calls an agent never needs. `--die-with-parent` kills the sandbox with the console.
 * `--new-session` is not used for runs: it stops a PTY's SIGWINCH from reaching the agent (TIOCSTI, the
 * reason to use it, is refused by the seccomp filter). The console's tools have no terminal and get it.
 * The environment is not set here: the caller spawns bwrap with the confined environment.
 */

export type NetworkMode = 'open' | 'none' | 'provider-only';

/** A bind mount placed after the writable roots: `source` is the console's, `dest` may be inside a writable root. */
export interface SandboxOverlay {
  source: string;
  dest: string;
  /** Read-write binds keep a folder immovable while its contents stay writable (the worktree admin folder). */
  writable?: boolean;
  /** A folder, not a file (Seatbelt protects a folder's whole tree). */
  folder?: boolean;
}

/**
 * What the argv depends on in the file system of the machine the sandbox runs on: this one
 * (`localFileSystemFacts`), or an SSH host, whose supervisor answers the same questions there.
 */
export interface SandboxFileSystemFacts {
  /** A folder that is no link. */
  isRealDirectory(folder: string): boolean;
  /** The path with every link resolved; null when it does not exist. */
  realpath(file: string): string | null;
  /** Its mode bits; null when it cannot be looked at. */
  mode(file: string): number | null;
}

export const localFileSystemFacts: SandboxFileSystemFacts = {
  isRealDirectory,
  realpath: realpathOrNull,
  mode: (file) => {
    try {
      return statSync(file).mode;
    } catch {
      return null;
    }
  },
};

export interface BwrapInput {
  taskRoot: { view: string };
  /** Bound read-write; normally `taskWritableRoots(taskRoot)`. */
  writableRoots: string[];
  networkMode: NetworkMode;
  operatorHome: string;
  /** Paths to show read-only inside hidden folders: CLI installation dirs under home, link targets, git objects. */
  readOnlyRebinds: string[];
  /** More folders to hide (empty tmpfs): the project's directory, the console's data directory. */
  hiddenPaths?: string[];
  /** See step 6 above. Every destination inside a writable root must have been made a real file or folder first (platform/safe-path.ts). */
  overlays?: SandboxOverlay[];
  /** The egress proxy's Unix socket; required for `provider-only`. Its folder is bound read-only. */
  proxySocket?: string;
  command: string[];
}

/** How the console's sandboxes are set up on this machine: what the probe found, once. */
export interface SandboxSetup {
  /** The BPF program bubblewrap loads (`--seccomp`); null where the architecture has no filter. */
  seccompFile: string | null;
  /** When the console runs as root: the unprivileged user sandboxed programs run as. */
  user: Owner | null;
}

/** Hidden system folders a run may still write to (private and empty, gone when the run ends). */
const privateScratchFolders = ['/tmp', '/var/tmp'];
/** Hidden system folders with nothing a run needs but plenty it must not reach (sockets). */
const hiddenSystemFolders = ['/run'];

export const setprivPath = '/usr/bin/setpriv';

/** The system, read-only, with its kernel interfaces read-only too. */
function systemArgs(): string[] {
  return [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--ro-bind', '/proc/sys', '/proc/sys',
    '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger',
  ];
}

/**
 * Capabilities and user: with `user` (the console is root) bubblewrap keeps only what `setpriv` needs
 * to become that user and to empty every capability set on the way: CAP_SETUID and CAP_SETGID for the
 * uid change (which clears the permitted, effective and ambient sets), CAP_SETPCAP to empty the
 * bounding set. bubblewrap also leaves the kept capabilities in the inheritable set, so setpriv
 * empties that too: all five sets are zero when the command starts, and bubblewrap's no_new_privs
 * stops anything from regaining one. Without `user`, bubblewrap runs as the operator in a user
 * namespace, where nested user namespaces are disabled and `--cap-drop ALL` already empties every set.
 */
function privilegeArgs(user: Owner | null): string[] {
  if (user) return ['--cap-drop', 'ALL', ...keptForSetpriv.flatMap((capability) => ['--cap-add', capability])];
  return ['--unshare-user', '--disable-userns', '--cap-drop', 'ALL'];
}

const keptForSetpriv = ['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP'];

function asUser(user: Owner | null, command: string[]): string[] {
  if (!user) return command;
  return [
    setprivPath,
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--',
    ...command,
  ];
}

/**
 * The hidden folders (tmpfs) and the read-only re-binds, parents before children whichever they are:
 * a re-bind inside a hidden folder shows through it, and a hidden folder inside a re-bind stays
 * hidden. (A CLI in ~/.local/bin re-binds ~/.local, which holds the default data directory,
 * ~/.local/share/operator-console: the data directory is hidden again on top of it.)
 *
 * The folders on the way from a hidden folder to anything bound inside it (`binds`: the re-binds and
 * every later mount) are made first, 0755: bubblewrap would make them 0700 and root's, and a sandbox
 * running as nobody could not walk through them to its own roots.
 */
function visibilityArgs(hidden: string[], rebinds: string[], rebindFlag: '--ro-bind' | '--ro-bind-try', binds: string[]): string[] {
  type Operation = { flag: '--tmpfs' | '--dir' | typeof rebindFlag; folder: string };
  const operations: Operation[] = [
    ...uniquePaths(hidden).map((folder) => ({ flag: '--tmpfs' as const, folder })),
    ...uniquePaths(rebinds).map((folder) => ({ flag: rebindFlag, folder })),
  ];
  const mounted = new Set(operations.map((operation) => operation.folder));
  const ways = new Set<string>();
  for (const bind of uniquePaths([...rebinds, ...binds])) {
    for (let folder = path.dirname(bind); folder !== path.dirname(folder); folder = path.dirname(folder)) {
      if (mounted.has(folder)) break;
      // Only inside a tmpfs: a folder inside a re-bind is the host's own, with its own modes.
      const covering = operations.filter((operation) => operation.flag !== '--dir' && isInside(folder, operation.folder) && operation.folder !== folder);
      const deepest = covering.sort((a, b) => b.folder.length - a.folder.length)[0];
      if (deepest?.flag === '--tmpfs') ways.add(folder);
    }
  }
  operations.push(...[...ways].map((folder) => ({ flag: '--dir' as const, folder })));
  const depth = (folder: string) => folder.split('/').length;
  const rank = (operation: Operation) => (operation.flag === '--tmpfs' ? 0 : operation.flag === '--dir' ? 1 : 2);
  // At the same path a re-bind wins: it was asked for by name.
  operations.sort((a, b) => depth(a.folder) - depth(b.folder) || rank(a) - rank(b) || a.folder.localeCompare(b.folder));
  return operations.flatMap(({ flag, folder }) => {
    if (flag === '--tmpfs') return [flag, folder];
    if (flag === '--dir') return ['--perms', '0755', flag, folder];
    return [flag, folder, folder];
  });
}

/**
 * Hidden folders resolved, so one reached through a link (/home/me -> /data/me) is hidden where it
 * really is. With `user` (the sandbox runs as nobody): also every folder on the way to what is bound
 * that nobody could not walk through (a data directory under a 0700 folder): hidden, it is replaced
 * by a tmpfs whose folders on the way are made walkable (visibilityArgs), and it shows even less.
 */
function hiddenFolders(
  operatorHome: string,
  hiddenPaths: string[],
  user: Owner | null,
  bound: string[],
  facts: SandboxFileSystemFacts,
): { scratch: string[]; readOnly: string[] } {
  const scratch = privateScratchFolders.filter((folder) => facts.isRealDirectory(folder));
  // A path that does not exist is kept: bubblewrap then fails to mount it and the sandbox fails
  // closed rather than running with something unhidden.
  const requested = [
    ...hiddenSystemFolders.filter((folder) => facts.isRealDirectory(folder)),
    ...[operatorHome, ...hiddenPaths].map((folder) => facts.realpath(folder) ?? folder),
  ];
  if (user) requested.push(...closedFoldersOnTheWay(uniquePaths(bound), [...scratch, ...requested], facts));
  const readOnly = uniquePaths(requested).filter((folder) => folder !== '/' && !scratch.includes(folder));
  return { scratch, readOnly };
}

/** The highest folder on the way to each path that others may not search (no o+x), unless already hidden. */
function closedFoldersOnTheWay(paths: string[], hidden: string[], facts: SandboxFileSystemFacts): string[] {
  const closed = new Set<string>();
  for (const target of paths) {
    const parts = target.split('/').filter(Boolean);
    for (let depth = 1; depth < parts.length; depth += 1) {
      const folder = `/${parts.slice(0, depth).join('/')}`;
      if (hidden.some((entry) => isInside(folder, entry))) break;
      const mode = facts.mode(folder);
      if (mode === null) break;
      if ((mode & 0o001) === 0) {
        closed.add(folder);
        break;
      }
    }
  }
  return [...closed];
}

export function buildBwrapArgs(input: BwrapInput, setup: SandboxSetup, facts: SandboxFileSystemFacts = localFileSystemFacts): string[] {
  if (input.command.length === 0) throw new Error('A sandboxed run needs a command.');
  if (input.networkMode === 'provider-only' && !input.proxySocket) {
    throw new Error('The provider-only network mode needs the egress proxy socket.');
  }
  const args = systemArgs();
  const socketFolder = input.proxySocket && input.networkMode === 'provider-only' ? path.dirname(input.proxySocket) : null;
  const laterBinds = [...input.writableRoots, ...(socketFolder ? [socketFolder] : []), ...(input.overlays ?? []).map((overlay) => overlay.dest)];
  const { scratch, readOnly: readOnlyHidden } = hiddenFolders(input.operatorHome, input.hiddenPaths ?? [], setup.user, [...input.readOnlyRebinds, ...laterBinds], facts);
  const hidden = [...scratch, ...readOnlyHidden];
  const isHidden = (candidate: string) => hidden.some((folder) => isInside(candidate, folder));
  const rebinds = [...input.readOnlyRebinds];
  // DNS still has to work in `open` mode when /etc/resolv.conf points into /run.
  const resolvConf = facts.realpath('/etc/resolv.conf');
  if (resolvConf && resolvConf !== '/etc/resolv.conf' && isHidden(resolvConf)) rebinds.push(resolvConf);
  args.push(...visibilityArgs(hidden, rebinds, '--ro-bind-try', laterBinds));

  for (const root of byDepth(uniquePaths(input.writableRoots))) args.push('--bind', root, root);

  if (socketFolder) args.push('--ro-bind', socketFolder, socketFolder);
  for (const overlay of input.overlays ?? []) args.push(overlay.writable ? '--bind' : '--ro-bind', overlay.source, overlay.dest);

  for (const folder of byDepth(readOnlyHidden)) args.push('--remount-ro', folder);

  args.push(...privilegeArgs(setup.user), '--unshare-pid', '--unshare-ipc', '--unshare-uts');
  if (input.networkMode !== 'open') args.push('--unshare-net');
  if (setup.seccompFile) args.push('--seccomp', String(seccompFd));
  args.push('--die-with-parent', '--chdir', input.taskRoot.view, '--', ...asUser(setup.user, input.command));
  return args;
}

export interface ToolBwrapInput {
  operatorHome: string;
  /** Folders to hide besides the home and the system's scratch and socket folders. */
  hiddenPaths: string[];
  /** Shown read-only (the run's files a tool reads). */
  readOnly: string[];
  /** Shown read-write (a tool's scratch folder; the writable roots a removal empties). */
  writable: string[];
  cwd: string;
  command: string[];
}

/**
 * The sandbox the console's own tools run in when they touch a run's files (git for the diff,
 * removing a task root): the system and the given paths read-only, only the given paths writable,
 * every hidden folder empty and read-only, no network, no terminal, the same privileges as a run.
 */
export function buildToolBwrapArgs(input: ToolBwrapInput, setup: SandboxSetup): string[] {
  if (input.command.length === 0) throw new Error('A tool sandbox needs a command.');
  const args = systemArgs();
  const { scratch, readOnly: readOnlyHidden } = hiddenFolders(input.operatorHome, input.hiddenPaths, setup.user, [...input.readOnly, ...input.writable], localFileSystemFacts);
  args.push(...visibilityArgs([...scratch, ...readOnlyHidden], input.readOnly, '--ro-bind', input.writable));
  for (const folder of byDepth(uniquePaths(input.writable))) args.push('--bind', folder, folder);
  for (const folder of byDepth(readOnlyHidden)) args.push('--remount-ro', folder);
  args.push(...privilegeArgs(setup.user), '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--new-session');
  if (setup.seccompFile) args.push('--seccomp', String(seccompFd));
  args.push('--die-with-parent', '--chdir', input.cwd, '--', ...asUser(setup.user, input.command));
  return args;
}

/**
 * What to spawn for bubblewrap with these arguments: a shell opens the seccomp filter as fd 3 and
 * execs bwrap (node-pty cannot hand a child extra file descriptors).
 */
export function bwrapCommand(args: string[], setup: SandboxSetup, bwrapPath = 'bwrap'): { file: string; args: string[] } {
  const command = setup.seccompFile ? withSeccompFile(setup.seccompFile, [bwrapPath, ...args]) : [bwrapPath, ...args];
  return { file: command[0]!, args: command.slice(1) };
}

/** The paths a preconfigured home and the CLI need visible, for `readOnlyRebinds`. */
export function readOnlyRebindsFor(input: { linkTargets: string[]; installationDirs: string[] }): string[] {
  return uniquePaths([...input.installationDirs, ...input.linkTargets]);
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
