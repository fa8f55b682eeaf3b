import { describe, expect, it } from 'vitest';
import { buildSeatbeltArgs, buildSeatbeltProfile, buildSeatbeltToolArgs, type SeatbeltInput } from './seatbelt';

/** macOS cannot run here; the profile's text is what the tests can hold to. */

const home = '/Users/operator';
const root = `${home}/Library/Application Support/Operator Console/tasks/run_1`;
const gitDir = `${root}/git`;
const projectObjects = `${home}/src/project/.git/objects`;
const protectedPaths = {
  literal: [`${gitDir}/config`, `${gitDir}/worktrees`, `${gitDir}/worktrees/view`, `${gitDir}/worktrees/view/commondir`, `${root}/view/.git`],
  subpath: [`${gitDir}/hooks`],
};

function profile(overrides: Partial<SeatbeltInput> = {}): string {
  return buildSeatbeltProfile({
    writableRoots: [`${root}/view`, `${root}/tmp`],
    operatorHome: home,
    readOnlyRebinds: [`${home}/.nvm/versions/node/v20.0.0`, projectObjects],
    hiddenPaths: [`${home}/src/project`],
    networkMode: 'none',
    protectedPaths,
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

  it('hides the home and the project except re-binds, and writes only the writable roots minus the protected paths', () => {
    const text = profile();
    expect(text).toContain(
      `(allow file-read* (require-all (require-not (subpath "${home}")) (require-not (subpath "${home}/src/project"))))`,
    );
    expect(text).toContain(`(allow file-read* (subpath "${home}/.nvm/versions/node/v20.0.0") (subpath "${projectObjects}"))`);
    const writeRule = text.split('\n').find((line) => line.startsWith('(allow file-read* file-write* (require-all (require-any (subpath'));
    expect(writeRule).toContain(`(subpath "${root}/view") (subpath "${root}/tmp")`);
    expect(writeRule).toContain(`(require-not (subpath "${gitDir}/hooks"))`);
    for (const file of protectedPaths.literal) expect(writeRule).toContain(`(require-not (literal "${file}"))`);
    // The project's objects are read, never written.
    expect(text).not.toMatch(new RegExp(`file-write\\*[^\\n]*${projectObjects.replaceAll('/', '\\/')}`));
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

describe('buildSeatbeltToolArgs', () => {
  it("reads the system and the run's files, writes only the scratch folder, and has no network", () => {
    const argv = buildSeatbeltToolArgs({
      operatorHome: home,
      hiddenPaths: [`${home}/Library/Application Support/Operator Console`],
      readOnly: [`${root}/view`],
      writable: ['/private/tmp/operator-console-git-1'],
      command: ['/usr/bin/git', 'diff'],
    });
    expect(argv.slice(2)).toEqual(['--', '/usr/bin/git', 'diff']);
    const text = argv[1]!;
    expect(text.startsWith('(version 1)\n(deny default)\n')).toBe(true);
    expect(text).toContain(`(allow file-read* (subpath "${root}/view"))`);
    expect(text).toContain('(allow file-read* file-write* (subpath "/private/tmp/operator-console-git-1"))');
    expect(text).toContain(`(require-not (subpath "${home}"))`);
    expect(text).not.toMatch(/network/);
    expect(text.match(/file-write\*/g)).toHaveLength(1);
  });
});
