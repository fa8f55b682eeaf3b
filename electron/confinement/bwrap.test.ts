import { describe, expect, it } from 'vitest';
import { buildBwrapArgs, readOnlyRebindsFor } from './bwrap';
import type { GitProtection } from './task-root';

/**
 * The order of bubblewrap's mount operations is the design (a later mount covers an earlier one),
 * so it is pinned here; the real-sandbox tests in sandbox.test.ts prove what the order achieves.
 */

const home = '/home/operator';
const root = `${home}/.local/share/operator-console/tasks/run_1`;
const taskRoot = { view: `${root}/view` };
const writableRoots = [`${root}/view`, `${root}/tmp`, `${root}/cache`, `${root}/home`];
const gitDir = `${home}/src/project/.git`;
const gitProtection: GitProtection = {
  commonDir: gitDir,
  objectStore: `${gitDir}/objects`,
  worktreeAdminDir: `${gitDir}/worktrees/view`,
  branchRefDirs: [`${gitDir}/refs/heads/operator-console`, `${gitDir}/logs/refs/heads/operator-console`],
  hooksDir: `${gitDir}/hooks`,
  configFile: `${gitDir}/config`,
  lockedFiles: [`${root}/view/.git`, `${gitDir}/worktrees/view/commondir`, `${gitDir}/worktrees/view/gitdir`],
};

function args(overrides: Partial<Parameters<typeof buildBwrapArgs>[0]> = {}): string[] {
  return buildBwrapArgs({
    taskRoot,
    writableRoots,
    networkMode: 'none',
    operatorHome: home,
    readOnlyRebinds: [`${home}/.local/bin`, `${home}/.codex/auth.json`],
    hiddenPaths: [`${home}/src/project`],
    gitProtection,
    command: ['codex', 'exec'],
    ...overrides,
  });
}

/** Index of the operation `flag` whose destination is `target`. */
function indexOf(argv: string[], flag: string, target: string): number {
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] !== flag) continue;
    const destination = flag === '--tmpfs' || flag === '--remount-ro' || flag === '--chdir' ? argv[i + 1] : argv[i + 2];
    if (destination === target) return i;
  }
  return -1;
}

describe('buildBwrapArgs', () => {
  it('starts from a read-only root with a fresh /dev and /proc', () => {
    expect(args().slice(0, 7)).toEqual(['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']);
  });

  it('hides the home and the project, then re-binds only what is needed, then the writable roots', () => {
    const argv = args();
    const homeTmpfs = indexOf(argv, '--tmpfs', home);
    const projectTmpfs = indexOf(argv, '--tmpfs', `${home}/src/project`);
    expect(homeTmpfs).toBeGreaterThan(0);
    expect(projectTmpfs).toBeGreaterThan(homeTmpfs);
    const rebind = indexOf(argv, '--ro-bind-try', `${home}/.local/bin`);
    expect(rebind).toBeGreaterThan(projectTmpfs);
    for (const writable of writableRoots) expect(indexOf(argv, '--bind', writable)).toBeGreaterThan(rebind);
    // The data directory lives under the home: its binds must come after the home's tmpfs.
    expect(indexOf(argv, '--bind', `${root}/view`)).toBeGreaterThan(homeTmpfs);
    // /tmp and /run are hidden too (sockets of the desktop, docker, ssh-agent).
    expect(indexOf(argv, '--tmpfs', '/tmp')).toBeGreaterThan(0);
    expect(indexOf(argv, '--tmpfs', '/run')).toBeGreaterThan(0);
  });

  it('binds the git directory read-only, the commit paths writable, then hooks, config and links read-only last', () => {
    const argv = args();
    const common = indexOf(argv, '--ro-bind', gitDir);
    const objects = indexOf(argv, '--bind', gitProtection.objectStore);
    const admin = indexOf(argv, '--bind', gitProtection.worktreeAdminDir);
    const view = indexOf(argv, '--bind', `${root}/view`);
    expect(common).toBeGreaterThan(indexOf(argv, '--tmpfs', `${home}/src/project`));
    expect(objects).toBeGreaterThan(common);
    for (const refs of gitProtection.branchRefDirs) expect(indexOf(argv, '--bind', refs)).toBeGreaterThan(common);
    for (const locked of [gitProtection.hooksDir, gitProtection.configFile, ...gitProtection.lockedFiles]) {
      const at = indexOf(argv, '--ro-bind-try', locked);
      expect(at, locked).toBeGreaterThan(Math.max(objects, admin, view));
    }
  });

  it('remounts the hidden folders read-only after everything is mounted into them', () => {
    const argv = args();
    const lastMount = Math.max(...gitProtection.lockedFiles.map((file) => indexOf(argv, '--ro-bind-try', file)));
    expect(indexOf(argv, '--remount-ro', home)).toBeGreaterThan(lastMount);
    expect(indexOf(argv, '--remount-ro', `${home}/src/project`)).toBeGreaterThan(lastMount);
    // The private /tmp stays writable.
    expect(indexOf(argv, '--remount-ro', '/tmp')).toBe(-1);
  });

  it('unshares PID, IPC and (unless open) network, dies with its parent, never starts a new session', () => {
    for (const networkMode of ['none', 'open'] as const) {
      const argv = args({ networkMode });
      expect(argv).toEqual(expect.arrayContaining(['--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', '--die-with-parent']));
      expect(argv.includes('--unshare-net')).toBe(networkMode !== 'open');
      expect(argv).not.toContain('--new-session');
      expect(argv).not.toContain('--share-net');
    }
    const argv = args();
    expect(argv.slice(argv.indexOf('--chdir'))).toEqual(['--chdir', `${root}/view`, '--', 'codex', 'exec']);
  });

  it('binds the egress socket folder read-only in provider-only mode, and requires it', () => {
    const socket = `${root}/egress/proxy.sock`;
    const argv = args({ networkMode: 'provider-only', proxySocket: socket });
    expect(indexOf(argv, '--ro-bind', `${root}/egress`)).toBeGreaterThan(indexOf(argv, '--tmpfs', home));
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
