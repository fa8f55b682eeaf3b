import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureRemoteTestUser, remoteTestUser } from '../../testing/ssh-test-server';
import { findSupervisorScript } from './remote-supervisor';

/**
 * The supervisor's `stores` and `drop-store` on the projects' git stores (Clean up removes those no
 * run needs), run here as the remote user, with the same Python, on a console folder of the test's
 * own: they follow `clean`'s rules, so no link planted on the way or inside leads them outside.
 */
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

let user: { uid: number; gid: number };
beforeAll(() => {
  ensureRemoteTestUser();
  user = {
    uid: Number(execFileSync('id', ['-u', remoteTestUser], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', remoteTestUser], { encoding: 'utf8' }).trim()),
  };
});

/** A console folder (with its stores folder) and a victim of the remote user's, both the remote user's. */
function consoleFolder() {
  const root = mkdtempSync(path.join(tmpdir(), 'oc-stores-'));
  const victim = mkdtempSync(path.join(tmpdir(), 'oc-stores-victim-'));
  folders.push(root, victim);
  const consoleRoot = path.join(root, '.operator-console');
  mkdirSync(path.join(consoleRoot, 'git-stores'), { recursive: true });
  writeFileSync(path.join(victim, 'precious.txt'), 'not the console’s');
  const own = () => {
    execFileSync('chown', ['-R', '--no-dereference', `${user.uid}:${user.gid}`, root]);
    execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, victim]);
  };
  return { consoleRoot, stores: path.join(consoleRoot, 'git-stores'), victim, own };
}

function supervisor(...words: string[]) {
  // The system's Python, as a remote user's ssh finds it (root's PATH may name a shim the user cannot run).
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  return spawnSync('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', python, findSupervisorScript(), ...words], { encoding: 'utf8', timeout: 20_000 });
}

describe('the host supervisor’s git stores', () => {
  it('measures each real store, and removes one the agent’s git could have left locked, following no link inside it', () => {
    const { stores, victim, own } = consoleFolder();
    const store = path.join(stores, 'prj_1.git');
    mkdirSync(path.join(store, 'objects', 'pack'), { recursive: true });
    writeFileSync(path.join(store, 'objects', 'pack', 'pack-1.pack'), Buffer.alloc(64 * 1024, 1));
    symlinkSync(victim, path.join(store, 'objects', 'escape'));
    own();
    const measured = supervisor('stores', stores);
    expect(measured.status, measured.stderr).toBe(0);
    expect((JSON.parse(measured.stdout) as Record<string, number>).prj_1).toBeGreaterThanOrEqual(64 * 1024);

    chmodSync(victim, 0o500);
    chmodSync(path.join(store, 'objects', 'pack'), 0o000);

    const dropped = supervisor('drop-store', stores, 'prj_1');
    expect(dropped.status, dropped.stderr).toBe(0);
    expect(dropped.stdout).toBe('removed\n');
    expect(existsSync(store)).toBe(false);
    expect(statSync(victim).mode & 0o777).toBe(0o500);
    expect(readFileSync(path.join(victim, 'precious.txt'), 'utf8')).toBe('not the console’s');
  });

  it('removes a store that is a link as the link alone, leaving what it points at', () => {
    const { stores, victim, own } = consoleFolder();
    symlinkSync(victim, path.join(stores, 'prj_2.git'));
    own();
    expect(JSON.parse(supervisor('stores', stores).stdout)).toEqual({ prj_2: 0 });
    const dropped = supervisor('drop-store', stores, 'prj_2');
    expect(dropped.stdout).toBe('removed\n');
    expect(lstatSync(path.join(stores, 'prj_2.git'), { throwIfNoEntry: false })).toBeUndefined();
    expect(readFileSync(path.join(victim, 'precious.txt'), 'utf8')).toBe('not the console’s');
  });

  it('neither measures nor removes anything through a stores folder that is a link', () => {
    const { consoleRoot, stores, victim, own } = consoleFolder();
    mkdirSync(path.join(victim, 'prj_3.git'));
    writeFileSync(path.join(victim, 'prj_3.git', 'kept.txt'), 'the remote user’s');
    rmSync(stores, { recursive: true });
    symlinkSync(victim, stores);
    own();
    expect(JSON.parse(supervisor('stores', stores).stdout)).toEqual({});
    const dropped = supervisor('drop-store', stores, 'prj_3');
    expect(dropped.status, dropped.stderr).toBe(0);
    expect(dropped.stdout).toBe('gone\n');
    expect(readFileSync(path.join(victim, 'prj_3.git', 'kept.txt'), 'utf8')).toBe('the remote user’s');
    // Nor through a console folder that is one.
    const elsewhere = `${consoleRoot}-real`;
    rmSync(stores);
    execFileSync('mv', [consoleRoot, elsewhere]);
    symlinkSync(victim, consoleRoot);
    expect(supervisor('drop-store', path.join(consoleRoot, 'git-stores'), 'prj_3').stdout).toBe('gone\n');
    expect(readFileSync(path.join(victim, 'prj_3.git', 'kept.txt'), 'utf8')).toBe('the remote user’s');
  });
});
