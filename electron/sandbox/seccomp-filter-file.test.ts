import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seccompFd, seccompFilter, withSeccompFile, writeSeccompFilter } from './seccomp';
import { fixtureParent, runCommand } from './test-fixtures';

/** The seccomp filter's file: written where bubblewrap can read it, and opened as fd 3 for it. */

const scratch = { base: '', extra: [] as string[] };
beforeAll(() => {
  // Resolved: node_modules may be a link, and bubblewrap binds a path at the place it names.
  scratch.base = realpathSync(mkdtempSync(path.join(fixtureParent(), 'oc-seccomp-')));
});
afterAll(() => {
  for (const folder of [scratch.base, ...scratch.extra]) if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('writeSeccompFilter', () => {
  it('writes the filter 0644 into a folder it creates 0700, and returns its path', async () => {
    const dir = path.join(scratch.base, 'write', 'filters');
    const previous = process.umask(0o077);
    try {
      const file = await writeSeccompFilter(dir, 'x64');
      expect(file).toBe(path.join(dir, 'seccomp-x64.bpf'));
      expect(readFileSync(file!)).toEqual(seccompFilter('x64'));
      expect(statSync(file!).mode & 0o777).toBe(0o644);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
    expect(await writeSeccompFilter(dir, 'arm64')).toBe(path.join(dir, 'seccomp-arm64.bpf'));
    expect(readdirSync(dir).sort()).toEqual(['seccomp-arm64.bpf', 'seccomp-x64.bpf']);
  });

  it('leaves an identical file alone and replaces a different one whole', async () => {
    const dir = path.join(scratch.base, 'rewrite');
    const file = (await writeSeccompFilter(dir))!;
    const first = statSync(file).ino;
    expect(await writeSeccompFilter(dir)).toBe(file);
    expect(statSync(file).ino).toBe(first);

    writeFileSync(file, 'stale');
    expect(await writeSeccompFilter(dir)).toBe(file);
    expect(readFileSync(file)).toEqual(seccompFilter());
    // Replaced by a rename, not rewritten in place, and no temporary file is left behind.
    expect(statSync(file).ino).not.toBe(first);
    expect(readdirSync(dir)).toEqual([path.basename(file)]);
  });

  it('lets consoles starting at once write the same filter without a torn or stray file', async () => {
    const dir = path.join(scratch.base, 'concurrent');
    const files = await Promise.all(Array.from({ length: 8 }, () => writeSeccompFilter(dir, 'arm64')));
    expect(new Set(files)).toEqual(new Set([path.join(dir, 'seccomp-arm64.bpf')]));
    expect(readFileSync(files[0]!)).toEqual(seccompFilter('arm64'));
    expect(readdirSync(dir)).toEqual(['seccomp-arm64.bpf']);
  });

  it('writes nothing for an architecture without a filter', async () => {
    const dir = path.join(scratch.base, 'unsupported');
    expect(await writeSeccompFilter(dir, 'riscv64')).toBeNull();
    expect(() => statSync(dir)).toThrow();
  });
});

describe('withSeccompFile', () => {
  it('runs the command through a shell that opens the filter as fd 3', () => {
    expect(seccompFd).toBe(3);
    expect(withSeccompFile('/data/seccomp-x64.bpf', ['bwrap', '--seccomp', '3', '--', 'agent'])).toEqual([
      '/bin/sh', '-c', 'exec "$@" 3<"$0"', '/data/seccomp-x64.bpf', 'bwrap', '--seccomp', '3', '--', 'agent',
    ]);
    expect(() => withSeccompFile('seccomp-x64.bpf', ['bwrap'])).toThrow(/absolute/);
    expect(() => withSeccompFile('/data/seccomp-x64.bpf', [])).toThrow(/needs a command/);
  });
});

describe.skipIf(process.platform !== 'linux')('withSeccompFile with /bin/sh', () => {
  it('keeps fd 3 open across the exec, whatever the path holds', async () => {
    const dir = path.join(scratch.base, `odd 'name' "$HOME" $(true)`);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'filter.bpf');
    writeFileSync(file, 'filter bytes');
    const [shell, ...args] = withSeccompFile(file, ['/bin/sh', '-c', 'readlink /proc/self/fd/3; cat <&3']);
    const result = await runCommand(shell!, args, { PATH: '/usr/bin:/bin' });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`${file}\nfilter bytes`);
  });
});
