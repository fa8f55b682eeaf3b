import { describe, expect, it } from 'vitest';
import { buildSeatbeltArgs, buildSeatbeltProfile, type SeatbeltInput } from './seatbelt';
import type { GitProtection } from './task-root';

/** macOS cannot run here; the profile's text is what the tests can hold to. */

const home = '/Users/operator';
const root = `${home}/Library/Application Support/Operator Console/tasks/run_1`;
const gitDir = `${home}/src/project/.git`;
const gitProtection: GitProtection = {
  commonDir: gitDir,
  objectStore: `${gitDir}/objects`,
  worktreeAdminDir: `${gitDir}/worktrees/view`,
  branchRefDirs: [`${gitDir}/refs/heads/operator-console`],
  hooksDir: `${gitDir}/hooks`,
  configFile: `${gitDir}/config`,
  lockedFiles: [`${root}/view/.git`],
};

function profile(overrides: Partial<SeatbeltInput> = {}): string {
  return buildSeatbeltProfile({
    writableRoots: [`${root}/view`, `${root}/tmp`],
    operatorHome: home,
    readOnlyRebinds: [`${home}/.nvm/versions/node/v20.0.0`],
    hiddenPaths: [`${home}/src/project`],
    networkMode: 'none',
    gitProtection,
    ...overrides,
  });
}

describe('buildSeatbeltProfile', () => {
  it('denies by default and allows processes and the PTY devices', () => {
    const text = profile();
    expect(text.startsWith('(version 1)\n(deny default)\n')).toBe(true);
    expect(text).toContain('(allow process-exec)');
    expect(text).toContain('(allow process-fork)');
    expect(text).toContain('(allow pseudo-tty)');
    expect(text).toContain('(literal "/dev/ptmx")');
    expect(text).toContain('(regex #"^/dev/ttys[0-9]+$")');
    // Every rule is an allow: no ordering between allow and deny to get wrong.
    expect(text.match(/^\(deny/gm)).toEqual(['(deny']);
  });

  it('hides the home and the project except re-binds, and writes only the writable roots minus protected git files', () => {
    const text = profile();
    expect(text).toContain(
      `(allow file-read* (require-all (require-not (subpath "${home}")) (require-not (subpath "${home}/src/project"))))`,
    );
    expect(text).toContain(`(allow file-read* (subpath "${home}/.nvm/versions/node/v20.0.0") (subpath "${gitDir}"))`);
    const writeRule = text.split('\n').find((line) => line.startsWith('(allow file-read* file-write* (require-all (require-any (subpath'));
    expect(writeRule).toContain(`(subpath "${root}/view") (subpath "${root}/tmp")`);
    expect(writeRule).toContain(`(require-not (subpath "${gitDir}/hooks"))`);
    expect(writeRule).toContain(`(require-not (literal "${gitDir}/config"))`);
    expect(writeRule).toContain(`(require-not (literal "${root}/view/.git"))`);
    expect(text).toContain(`(subpath "${gitDir}/objects") (subpath "${gitDir}/worktrees/view") (subpath "${gitDir}/refs/heads/operator-console")`);
    // The keychain is not reachable.
    expect(text).not.toContain('(global-name "com.apple.SecurityServer")');
  });

  it('sets the network per mode', () => {
    expect(profile({ networkMode: 'none' })).not.toMatch(/\(allow network/);
    expect(profile({ networkMode: 'open' })).toContain('(allow network*)');
    const providerOnly = profile({ networkMode: 'provider-only', proxyPort: 41234 });
    expect(providerOnly).toContain('(allow network-outbound (remote ip "localhost:41234"))');
    expect(providerOnly).not.toContain('(allow network*)');
    expect(() => profile({ networkMode: 'provider-only' })).toThrow(/proxy port/);
  });

  it('escapes quotes and backslashes in paths', () => {
    const text = profile({ writableRoots: ['/Users/o/we"ird\\path'] });
    expect(text).toContain('(subpath "/Users/o/we\\"ird\\\\path")');
  });

  it('builds the sandbox-exec arguments', () => {
    const argv = buildSeatbeltArgs({ writableRoots: ['/w'], operatorHome: home, readOnlyRebinds: [], networkMode: 'none', command: ['claude', '-p'] });
    expect(argv[0]).toBe('-p');
    expect(argv[1]).toContain('(deny default)');
    expect(argv.slice(2)).toEqual(['--', 'claude', '-p']);
  });
});
