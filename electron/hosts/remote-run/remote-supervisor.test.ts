import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findSupervisorScript } from './remote-supervisor';

/**
 * The supervisor's own work on a run's folders on the host, run here with the same Python: what it
 * makes inside the run's writable roots (the CLI's home in the cache, on a retry) must not follow a
 * link the agent left there.
 */
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function prepare(root: string, wanted: string[]) {
  const request = { root, folders: wanted, directories: ['/tmp'], realpaths: ['/etc/resolv.conf'], executable: 'sh', path: '/usr/bin:/bin', seccomp: {}, seccompFile: path.join(root, 'seccomp.bpf') };
  return spawnSync('python3', [findSupervisorScript(), 'prepare'], { input: JSON.stringify(request), encoding: 'utf8', timeout: 20_000 });
}

describe('the host supervisor’s prepare', () => {
  it('makes the run’s folders 0700 and answers the facts asked', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'oc-supervisor-'));
    folders.push(root);
    const cache = path.join(root, 'runs', 'run_1', 'cache');
    const result = prepare(root, [cache, path.join(cache, '.codex')]);
    expect(result.status, result.stderr).toBe(0);
    expect(statSync(path.join(cache, '.codex')).mode & 0o777).toBe(0o700);
    const facts = JSON.parse(result.stdout) as { realDirectories: Record<string, boolean>; executable: { path: string } | null };
    expect(facts.realDirectories['/tmp']).toBe(true);
    expect(facts.executable?.path).toMatch(/\/sh$/);
  });

  it('refuses a link the agent left where a folder goes, and leaves what it points at as it was', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'oc-supervisor-'));
    const victim = mkdtempSync(path.join(tmpdir(), 'oc-supervisor-victim-'));
    folders.push(root, victim);
    const cache = path.join(root, 'runs', 'run_1', 'cache');
    mkdirSync(cache, { recursive: true });
    symlinkSync(victim, path.join(cache, '.codex'));
    chmodSync(victim, 0o755);
    const before = statSync(victim).mode;
    const result = prepare(root, [path.join(cache, '.codex')]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/\.codex is not a folder/);
    expect(statSync(victim).mode).toBe(before);
  });
});
