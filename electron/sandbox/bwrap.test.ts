import { describe, expect, it } from 'vitest';
import { buildBwrapArgs, buildToolBwrapArgs, bwrapCommand, readOnlyRebindsFor, type SandboxOverlay, type SandboxSetup } from './bwrap';

/**
 * The order of bubblewrap's mount operations is the design (a later mount covers an earlier one),
 * so it is pinned here; the real-sandbox tests in sandbox.test.ts and attacks.test.ts prove what the
 * order achieves.
 */

const home = '/home/operator';
const dataDir = `${home}/.local/share/operator-console`;
const root = `${dataDir}/tasks/run_1`;
const taskRoot = { view: `${root}/view` };
const gitDir = `${root}/git`;
const adminDir = `${gitDir}/worktrees/view`;
const writableRoots = [`${root}/view`, `${root}/tmp`, `${root}/cache`, `${root}/home`, gitDir];
const projectObjects = `${home}/src/project/.git/objects`;
const overlays: SandboxOverlay[] = [
  { source: `${gitDir}/config`, dest: `${gitDir}/config` },
  { source: `${gitDir}/hooks`, dest: `${gitDir}/hooks`, folder: true },
  { source: `${gitDir}/worktrees`, dest: `${gitDir}/worktrees`, folder: true },
  { source: adminDir, dest: adminDir, folder: true, writable: true },
  { source: `${adminDir}/commondir`, dest: `${adminDir}/commondir` },
  { source: `${root}/delivered/auth.json`, dest: `${root}/cache/codex-home/auth.json` },
];
const rootSetup: SandboxSetup = { seccompFile: `${dataDir}/sandbox/seccomp-x64.bpf`, user: { uid: 65534, gid: 65534 } };
const userSetup: SandboxSetup = { seccompFile: `${dataDir}/sandbox/seccomp-x64.bpf`, user: null };

function args(overrides: Partial<Parameters<typeof buildBwrapArgs>[0]> = {}, setup: SandboxSetup = rootSetup): string[] {
  return buildBwrapArgs(
    {
      taskRoot,
      writableRoots,
      networkMode: 'none',
      operatorHome: home,
      // A CLI in ~/.local/bin re-binds ~/.local, which holds the data directory.
      readOnlyRebinds: [`${home}/.local`, projectObjects],
      hiddenPaths: [`${home}/src/project`, dataDir],
      overlays,
      command: ['codex', 'exec'],
      ...overrides,
    },
    setup,
  );
}

/** Index of the operation `flag` whose destination is `target`. */
function indexOf(argv: string[], flag: string, target: string): number {
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] !== flag) continue;
    const oneArgument = ['--tmpfs', '--remount-ro', '--chdir', '--dir'].includes(flag);
    if ((oneArgument ? argv[i + 1] : argv[i + 2]) === target) return i;
  }
  return -1;
}

describe('buildBwrapArgs', () => {
  it('starts from a read-only root with a fresh /dev and /proc, and /proc/sys read-only', () => {
    expect(args().slice(0, 13)).toEqual([
      '--ro-bind', '/', '/',
      '--dev', '/dev',
      '--proc', '/proc',
      '--ro-bind', '/proc/sys', '/proc/sys',
      '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger',
    ]);
  });

  it('hides the home, the project and the data directory, re-binds only what is needed, then the writable roots', () => {
    const argv = args();
    const homeTmpfs = indexOf(argv, '--tmpfs', home);
    const projectTmpfs = indexOf(argv, '--tmpfs', `${home}/src/project`);
    expect(homeTmpfs).toBeGreaterThan(0);
    expect(projectTmpfs).toBeGreaterThan(homeTmpfs);
    const objects = indexOf(argv, '--ro-bind-try', projectObjects);
    expect(objects).toBeGreaterThan(projectTmpfs);
    // The re-bind of ~/.local shows the data directory again, so the data directory is hidden after it.
    const local = indexOf(argv, '--ro-bind-try', `${home}/.local`);
    expect(local).toBeGreaterThan(homeTmpfs);
    expect(indexOf(argv, '--tmpfs', dataDir)).toBeGreaterThan(local);
    for (const writable of writableRoots) expect(indexOf(argv, '--bind', writable)).toBeGreaterThan(indexOf(argv, '--tmpfs', dataDir));
    // /tmp and /run are hidden too (sockets of the desktop, docker, ssh-agent).
    expect(indexOf(argv, '--tmpfs', '/tmp')).toBeGreaterThan(0);
    expect(indexOf(argv, '--tmpfs', '/run')).toBeGreaterThan(0);
  });

  it('makes the folders on the way to the run\'s roots inside a hidden folder walkable (0755)', () => {
    const argv = args();
    for (const folder of [`${dataDir}/tasks`, root, `${home}/src/project/.git`]) {
      const at = indexOf(argv, '--dir', folder);
      expect(at, folder).toBeGreaterThan(0);
      expect(argv.slice(at - 2, at)).toEqual(['--perms', '0755']);
    }
    // Not inside a re-bind: that is the host's own folder.
    expect(indexOf(argv, '--dir', `${home}/.local/share`)).toBe(-1);
  });

  it('binds the overlays after the writable roots, in order, read-only unless asked', () => {
    const argv = args();
    const lastRoot = Math.max(...writableRoots.map((writable) => indexOf(argv, '--bind', writable)));
    let previous = lastRoot;
    for (const overlay of overlays) {
      const at = indexOf(argv, overlay.writable ? '--bind' : '--ro-bind', overlay.dest);
      expect(at, overlay.dest).toBeGreaterThan(previous);
      expect(argv[at + 1]).toBe(overlay.source);
      previous = at;
    }
  });

  it('remounts the hidden folders read-only after everything is mounted into them', () => {
    const argv = args();
    const lastMount = indexOf(argv, '--ro-bind', `${root}/cache/codex-home/auth.json`);
    for (const hidden of [home, `${home}/src/project`, dataDir, '/run']) expect(indexOf(argv, '--remount-ro', hidden), hidden).toBeGreaterThan(lastMount);
    // The private /tmp stays writable.
    expect(indexOf(argv, '--remount-ro', '/tmp')).toBe(-1);
  });

  it('as root: keeps only what setpriv needs, and runs the command as nobody with every capability set emptied', () => {
    const argv = args();
    expect(argv).toEqual(expect.arrayContaining(['--cap-drop', 'ALL', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP']));
    expect(argv.filter((arg) => arg === '--cap-add')).toHaveLength(3);
    expect(argv).not.toContain('--unshare-user');
    expect(argv.slice(argv.indexOf('--chdir'))).toEqual([
      '--chdir', `${root}/view`, '--',
      '/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--', 'codex', 'exec',
    ]);
  });

  it('as the operator: a user namespace that cannot make another, every capability dropped', () => {
    const argv = args({}, userSetup);
    expect(argv).toEqual(expect.arrayContaining(['--unshare-user', '--disable-userns', '--cap-drop', 'ALL']));
    expect(argv).not.toContain('--cap-add');
    expect(argv.slice(argv.indexOf('--chdir'))).toEqual(['--chdir', `${root}/view`, '--', 'codex', 'exec']);
  });

  it('unshares PID, IPC, UTS and (unless open) network, loads the seccomp filter, dies with its parent, never starts a new session', () => {
    for (const networkMode of ['none', 'open'] as const) {
      const argv = args({ networkMode });
      expect(argv).toEqual(expect.arrayContaining(['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--seccomp', '3']));
      expect(argv.includes('--unshare-net')).toBe(networkMode !== 'open');
      expect(argv).not.toContain('--new-session');
      expect(argv).not.toContain('--share-net');
    }
    expect(args({}, { seccompFile: null, user: null })).not.toContain('--seccomp');
  });

  it('binds the egress socket folder read-only in provider-only mode, and requires it', () => {
    const socket = `${root}/egress/proxy.sock`;
    const argv = args({ networkMode: 'provider-only', proxySocket: socket });
    expect(indexOf(argv, '--ro-bind', `${root}/egress`)).toBeGreaterThan(indexOf(argv, '--tmpfs', dataDir));
    expect(argv).toContain('--unshare-net');
    expect(() => args({ networkMode: 'provider-only' })).toThrow(/egress proxy socket/);
    expect(() => args({ command: [] })).toThrow(/needs a command/);
  });

  it('collects read-only re-binds without duplicates', () => {
    expect(readOnlyRebindsFor({ linkTargets: ['/h/.codex/auth.json', '/h/.codex/auth.json'], installationDirs: ['/h/.local/bin'] })).toEqual([
      '/h/.local/bin',
      '/h/.codex/auth.json',
    ]);
  });
});

describe('buildToolBwrapArgs', () => {
  const tool = (setup: SandboxSetup = rootSetup) =>
    buildToolBwrapArgs(
      { operatorHome: home, hiddenPaths: [dataDir], readOnly: [`${root}/view`], writable: ['/tmp/operator-console-git-1'], cwd: `${root}/view`, command: ['/usr/bin/git', 'diff'] },
      setup,
    );

  it('shows the run files read-only and only its scratch writable, with no network and no terminal', () => {
    const argv = tool();
    expect(indexOf(argv, '--ro-bind', `${root}/view`)).toBeGreaterThan(indexOf(argv, '--tmpfs', dataDir));
    expect(indexOf(argv, '--bind', '/tmp/operator-console-git-1')).toBeGreaterThan(indexOf(argv, '--tmpfs', '/tmp'));
    expect(argv).toEqual(expect.arrayContaining(['--unshare-net', '--unshare-pid', '--new-session', '--die-with-parent', '--seccomp', '3']));
    expect(argv.slice(argv.indexOf('--chdir'))).toEqual([
      '--chdir', `${root}/view`, '--',
      '/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--', '/usr/bin/git', 'diff',
    ]);
  });
});

describe('bwrapCommand', () => {
  it('opens the seccomp filter as fd 3 through a shell, since a PTY child gets no extra descriptors', () => {
    expect(bwrapCommand(['--ro-bind', '/', '/'], rootSetup)).toEqual({
      file: '/bin/sh',
      args: ['-c', 'exec "$@" 3<"$0"', rootSetup.seccompFile, 'bwrap', '--ro-bind', '/', '/'],
    });
    expect(bwrapCommand(['x'], { seccompFile: null, user: null })).toEqual({ file: 'bwrap', args: ['x'] });
  });
});
