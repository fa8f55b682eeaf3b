import type { NetworkMode } from './bwrap';

/**
 * The macOS OS sandbox: a profile for `/usr/bin/sandbox-exec -p <profile> -- <command>`.
 *
 * Deny by default, then allow: process creation, reading the system, reading everything outside the
 * operator's home and the hidden folders (plus read-only re-binds inside them), reading and writing
 * the writable roots, the PTY devices, and the network per mode. Every rule is an `allow`, so the
 * result never depends on how Seatbelt orders competing allow and deny rules; protected paths inside
 * a writable root (the run's git repository's config, hooks and worktree links, delivered credential files,
 * and the folders on the way to them, so none can be renamed away) are carved out with `require-not`.
 *
 * Seatbelt has no mount namespace: where bubblewrap binds a console-owned file over a path, here the
 * console writes the file at that path (platform/safe-path.ts) and the profile forbids changing it.
 *
 * macOS has no network namespace: in `provider-only` the run may only connect to the egress proxy's
 * TCP port on localhost (the proxy listens there on macOS instead of a Unix socket), so the
 * run's own servers on localhost are not reachable either.
 */

export interface SeatbeltInput {
  writableRoots: string[];
  operatorHome: string;
  /** Readable inside the home or the hidden folders: CLI installation, link targets, git common dir. */
  readOnlyRebinds: string[];
  /** More folders to hide, e.g. the project's original directory. */
  hiddenPaths?: string[];
  networkMode: NetworkMode;
  /** The egress proxy's port on localhost; required for `provider-only`. */
  proxyPort?: number;
  /** Inside the writable roots, never writable: files and folders (`literal`) and whole trees (`subpath`). */
  protectedPaths?: { literal: string[]; subpath: string[] };
}

export const sandboxExecPath = '/usr/bin/sandbox-exec';

/** SBPL string literal: backslashes and double quotes escaped. */
function quote(value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function subpaths(paths: string[]): string {
  return paths.map((entry) => `(subpath ${quote(entry)})`).join(' ');
}

export function buildSeatbeltProfile(input: SeatbeltInput): string {
  if (input.networkMode === 'provider-only' && (input.proxyPort === undefined || !Number.isInteger(input.proxyPort))) {
    throw new Error('The provider-only network mode needs the egress proxy port.');
  }
  const hidden = [input.operatorHome, ...(input.hiddenPaths ?? [])];
  const readable = input.readOnlyRebinds;
  const protectedPaths = [
    ...(input.protectedPaths?.subpath ?? []).map((entry) => `(require-not (subpath ${quote(entry)}))`),
    ...(input.protectedPaths?.literal ?? []).map((entry) => `(require-not (literal ${quote(entry)}))`),
  ];

  const lines: string[] = [
    '(version 1)',
    '(deny default)',
    '',
    '; Processes: the agent runs tools, and children inherit this profile.',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow user-preference-read)',
    '(allow ipc-posix-sem)',
    '(allow mach-host*)',
    '; User lookups (getpwuid) and power assertions; not the keychain (com.apple.SecurityServer).',
    '(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.PowerManagement.control") (global-name "com.apple.system.notification_center") (global-name "com.apple.logd"))',
    '',
    '; Reading: everything but the operator\'s home and the hidden folders; metadata everywhere, so',
    '; paths through the home (to a data directory inside it) still resolve.',
    '(allow file-read-metadata)',
    `(allow file-read* (require-all ${hidden.map((entry) => `(require-not (subpath ${quote(entry)}))`).join(' ')}))`,
  ];
  if (readable.length > 0) lines.push(`(allow file-read* ${subpaths(readable)})`);

  lines.push('', '; Writing: only the writable roots.');
  if (input.writableRoots.length > 0) {
    const roots = `(require-any ${subpaths(input.writableRoots)})`;
    lines.push(`(allow file-read* file-write* ${protectedPaths.length > 0 ? `(require-all ${roots} ${protectedPaths.join(' ')})` : roots})`);
  }
  lines.push(
    '',
    '; Devices: the null and random devices, the controlling terminal and the PTY devices.',
    '(allow file-read* file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/random") (literal "/dev/urandom") (literal "/dev/tty"))',
    '(allow file-ioctl (literal "/dev/tty"))',
    '(allow pseudo-tty)',
    '(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))',
    '(allow file-read* file-write* file-ioctl (regex #"^/dev/ttys[0-9]+$"))',
    '',
    `; Network: ${input.networkMode}.`,
  );
  if (input.networkMode === 'open') {
    lines.push('(allow network*)', '(allow system-socket)', '(allow mach-lookup (global-name "com.apple.trustd") (global-name "com.apple.trustd.agent") (global-name "com.apple.dnssd.service"))');
  } else if (input.networkMode === 'provider-only') {
    lines.push(
      `(allow network-outbound (remote ip ${quote(`localhost:${input.proxyPort}`)}))`,
      '(allow system-socket)',
      '; TLS certificate checks go through trustd; the proxy resolves names, so no DNS here.',
      '(allow mach-lookup (global-name "com.apple.trustd") (global-name "com.apple.trustd.agent"))',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Arguments for `/usr/bin/sandbox-exec`: the profile inline, then the command. */
export function buildSeatbeltArgs(input: SeatbeltInput & { command: string[] }): string[] {
  if (input.command.length === 0) throw new Error('A sandboxed run needs a command.');
  return ['-p', buildSeatbeltProfile(input), '--', ...input.command];
}

export interface SeatbeltToolInput {
  operatorHome: string;
  hiddenPaths: string[];
  readOnly: string[];
  writable: string[];
  command: string[];
}

/**
 * The profile for the console's own tools on a run's files (tool-sandbox.ts): read the system and the
 * given paths, write only the given paths, no network, nothing of the home or the hidden folders.
 */
export function buildSeatbeltToolProfile(input: SeatbeltToolInput): string {
  const hidden = [input.operatorHome, ...input.hiddenPaths];
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow file-read-metadata)',
    `(allow file-read* (require-all ${hidden.map((entry) => `(require-not (subpath ${quote(entry)}))`).join(' ')}))`,
    '(allow file-read* file-write-data (literal "/dev/null"))',
  ];
  if (input.readOnly.length > 0) lines.push(`(allow file-read* ${subpaths(input.readOnly)})`);
  if (input.writable.length > 0) lines.push(`(allow file-read* file-write* ${subpaths(input.writable)})`);
  return `${lines.join('\n')}\n`;
}

export function buildSeatbeltToolArgs(input: SeatbeltToolInput): string[] {
  if (input.command.length === 0) throw new Error('A tool sandbox needs a command.');
  return ['-p', buildSeatbeltToolProfile(input), '--', ...input.command];
}
