import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureRemoteTestUser, remoteTestUser } from '../../testing/ssh-test-server';
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

function prepare(root: string, wanted: string[], extra: Record<string, unknown> = {}) {
  const request = { root, folders: wanted, directories: ['/tmp'], realpaths: ['/etc/resolv.conf'], executable: 'sh', path: '/usr/bin:/bin', seccomp: {}, seccompFile: path.join(root, 'seccomp.bpf'), ...extra };
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

describe('the host supervisor’s prepare on a root account', () => {
  // Run as root (as every host test is), as a root account's supervisor is.
  it('hands the run’s roots to the sandbox’s user and lets it read the console’s files, following no link the agent left', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'oc-supervisor-root-'));
    const victim = mkdtempSync(path.join(tmpdir(), 'oc-supervisor-victim-'));
    folders.push(root, victim);
    const view = path.join(root, 'runs', 'run_1', 'view');
    const objects = path.join(root, 'git-stores', 'prj_1.git', 'objects');
    mkdirSync(path.join(view, 'src'), { recursive: true });
    mkdirSync(path.join(objects, 'ab'), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(view, 'src', 'main.ts'), 'code', { mode: 0o600 });
    writeFileSync(path.join(objects, 'ab', 'cdef'), 'object', { mode: 0o400 });
    writeFileSync(path.join(victim, 'precious.txt'), 'root’s own', { mode: 0o600 });
    chmodSync(victim, 0o700);
    // Links the agent left: to a folder and a file of root's outside the run, and in the objects (the console's, but checked anyway).
    symlinkSync(victim, path.join(view, 'link-to-victim'));
    symlinkSync(path.join(victim, 'precious.txt'), path.join(view, 'src', 'link-to-file'));
    symlinkSync(victim, path.join(objects, 'ab', 'link-to-victim'));

    const result = prepare(root, [view], { sandboxUser: { uid: 65534, gid: 65534 }, handOver: [view], shareForReading: [objects] });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ uid: 0, setpriv: existsSync('/usr/bin/setpriv') });
    for (const file of [view, path.join(view, 'src'), path.join(view, 'src', 'main.ts')]) expect(statSync(file)).toMatchObject({ uid: 65534, gid: 65534 });
    // The view is searchable by others (bubblewrap enters it as root without capabilities), and the links themselves are the user's.
    expect(statSync(view).mode & 0o777).toBe(0o701);
    expect(lstatSync(path.join(view, 'link-to-victim')).uid).toBe(65534);
    expect(statSync(path.join(objects, 'ab')).mode & 0o005).toBe(0o005);
    expect(statSync(path.join(objects, 'ab', 'cdef')).mode & 0o004).toBe(0o004);
    // What the links point at is as it was: root's, its modes untouched.
    expect(statSync(victim)).toMatchObject({ uid: 0, mode: expect.any(Number) });
    expect(statSync(victim).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(victim, 'precious.txt'))).toMatchObject({ uid: 0 });
    expect(statSync(path.join(victim, 'precious.txt')).mode & 0o777).toBe(0o600);
  });

  it('hands nothing over on an account that is not root', () => {
    ensureRemoteTestUser();
    const uid = Number(execFileSync('id', ['-u', remoteTestUser], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', remoteTestUser], { encoding: 'utf8' }).trim());
    const root = mkdtempSync(path.join(tmpdir(), 'oc-supervisor-user-'));
    folders.push(root);
    const view = path.join(root, 'runs', 'run_1', 'view');
    mkdirSync(view, { recursive: true });
    execFileSync('chown', ['-R', `${uid}:${gid}`, root]);
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
    const request = { root, folders: [view], directories: [], realpaths: [], executable: '', path: '', seccomp: {}, seccompFile: path.join(root, 'seccomp.bpf'), sandboxUser: { uid: 65534, gid: 65534 }, handOver: [view], shareForReading: [] };
    const result = spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', python, findSupervisorScript(), 'prepare'], { input: JSON.stringify(request), encoding: 'utf8', timeout: 20_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ uid });
    expect(statSync(view)).toMatchObject({ uid });
    expect(statSync(view).mode & 0o777).toBe(0o700);
  });
});

describe('the host supervisor’s clean', () => {
  it('removes a run folder whose folders the agent made unreadable and unwritable, following no link it left', () => {
    // As the remote user, not root: root would remove a folder of mode 000 anyway.
    ensureRemoteTestUser();
    const uid = Number(execFileSync('id', ['-u', remoteTestUser], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', remoteTestUser], { encoding: 'utf8' }).trim());
    const root = mkdtempSync(path.join(tmpdir(), 'oc-supervisor-clean-'));
    const victim = mkdtempSync(path.join(tmpdir(), 'oc-supervisor-victim-'));
    folders.push(root, victim);
    const run = path.join(root, 'run_1');
    const locked = path.join(run, 'view', 'locked');
    mkdirSync(path.join(locked, 'deeper'), { recursive: true });
    writeFileSync(path.join(locked, 'deeper', 'kept.txt'), 'the agent wrote this');
    writeFileSync(path.join(victim, 'precious.txt'), 'not the run’s');
    symlinkSync(victim, path.join(run, 'view', 'link-to-victim'));
    execFileSync('chown', ['-R', '--no-dereference', `${uid}:${gid}`, root]);
    execFileSync('chown', ['-R', `${uid}:${gid}`, victim]);
    chmodSync(victim, 0o500);
    chmodSync(path.join(locked, 'deeper'), 0o000);
    chmodSync(locked, 0o000);

    // The system's Python, as a remote user's ssh finds it (root's PATH may name a shim the user cannot run).
    const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
    const result = spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', python, findSupervisorScript(), 'clean', run], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('removed\n');
    expect(existsSync(run)).toBe(false);
    // What the link pointed at is as it was: not made writable, not emptied.
    expect(statSync(victim).mode & 0o777).toBe(0o500);
    expect(readFileSync(path.join(victim, 'precious.txt'), 'utf8')).toBe('not the run’s');
  });
});
