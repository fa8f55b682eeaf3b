import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, lockDirName, ownerFileName, type DataDirLock } from './data-dir-lock';
import { createMemoryLogger } from './log';
import { processStartTime } from './process-identity';
import { makeTempDir } from '../testing/temp-dir';

/**
 * The lock against real files and real processes. A console that crashed is stood for by what it
 * leaves behind: its lock directory and an owner file naming a process that has exited (or a pid now
 * held by another process), which is what `self` makes the first console record.
 */

const repoRoot = path.resolve(import.meta.dirname, '..');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir(): string {
  const dir = makeTempDir('oc-lock-');
  cleanups.push(dir.remove);
  return path.join(dir.path, 'data');
}

async function acquire(options: Parameters<typeof acquireDataDirLock>[0]): Promise<DataDirLock> {
  const lock = await acquireDataDirLock({ log: createMemoryLogger(), ...options });
  cleanups.push(() => lock.release());
  return lock;
}

function refusal(promise: Promise<unknown>): Promise<DataDirLockedError> {
  return promise.then(
    () => {
      throw new Error('the second console was let in');
    },
    (error: unknown) => {
      if (!(error instanceof DataDirLockedError)) throw error;
      return error;
    },
  );
}

/** The pid of a process that has run and been reaped: no process has it now (until the pid wraps). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  expect(child.pid).toBeGreaterThan(0);
  return child.pid;
}

function liveProcess(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  cleanups.push(() => child.kill('SIGKILL'));
  return child;
}

const readOwner = (dir: string) => JSON.parse(readFileSync(path.join(dir, ownerFileName), 'utf8')) as Record<string, unknown>;

describe('one console per data directory', () => {
  it('refuses a second console in one line naming the first by pid and address, never its token', async () => {
    const dir = dataDir();
    const first = await acquire({ dataDir: dir, owner: { kind: 'browser-host' } });
    first.recordUrl('http://127.0.0.1:5555/?token=secret-token-value#/runs');

    const refused = await refusal(acquireDataDirLock({ dataDir: dir, owner: { kind: 'browser-host' }, log: createMemoryLogger() }));
    expect(refused.message).toBe(
      `Another Operator Console is already using ${dir} (pid ${process.pid}, http://127.0.0.1:5555/). Close it first, or start this one with --data-dir DIR.`,
    );
    expect(refused.message).not.toContain('\n');
    expect(readFileSync(path.join(dir, ownerFileName), 'utf8')).not.toContain('secret-token-value');
    expect(readOwner(dir)).toMatchObject({ pid: process.pid, processStartTime: processStartTime(process.pid), kind: 'browser-host', url: 'http://127.0.0.1:5555/' });
  });

  it('names the desktop app, and a browser host that has not bound its port yet', async () => {
    const desktop = dataDir();
    await acquire({ dataDir: desktop, owner: { kind: 'desktop-app' } });
    const host = dataDir();
    await acquire({ dataDir: host, owner: { kind: 'browser-host' } });

    await expect(refusal(acquireDataDirLock({ dataDir: desktop, owner: { kind: 'browser-host' } }))).resolves.toMatchObject({
      message: expect.stringContaining(`(pid ${process.pid}, the desktop app)`),
    });
    await expect(refusal(acquireDataDirLock({ dataDir: host, owner: { kind: 'desktop-app' } }))).resolves.toMatchObject({
      message: expect.stringContaining(`(pid ${process.pid}, a browser host that is still starting)`),
    });
  });

  it('keeps its files private: a 0700 data directory made if missing, a 0600 owner file', async () => {
    const dir = dataDir();
    expect(existsSync(dir)).toBe(false);
    await acquire({ dataDir: dir, owner: { kind: 'desktop-app' } });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, ownerFileName)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, lockDirName)).mode & 0o777).toBe(0o700);
  });

  it('lets the next console in once the first has released, and leaves nothing behind', async () => {
    const dir = dataDir();
    const first = await acquireDataDirLock({ dataDir: dir, owner: { kind: 'desktop-app' }, log: createMemoryLogger() });
    await first.release();
    await first.release();
    expect(existsSync(path.join(dir, lockDirName))).toBe(false);
    expect(existsSync(path.join(dir, ownerFileName))).toBe(false);

    const second = await acquire({ dataDir: dir, owner: { kind: 'browser-host', url: 'http://127.0.0.1:1/' } });
    expect(second.dataDir).toBe(dir);
    expect(readOwner(dir)).toMatchObject({ pid: process.pid, kind: 'browser-host' });
  });

  it('takes the lock of a console whose process has died over at once', async () => {
    const dir = dataDir();
    const crashedLog = createMemoryLogger();
    const pid = deadPid();
    // Held and kept fresh, as a console that died a moment ago leaves it, but naming a dead process.
    await acquire({ dataDir: dir, owner: { kind: 'browser-host', url: 'http://127.0.0.1:1/' }, self: { pid, startTime: '12345' }, log: crashedLog, staleMs: 2_000 });

    const log = createMemoryLogger();
    // An hour before this console would call the lock stale by its age: only the dead pid lets it in.
    await acquire({ dataDir: dir, owner: { kind: 'desktop-app' }, log, staleMs: 60 * 60_000 });
    expect(readOwner(dir)).toMatchObject({ pid: process.pid, kind: 'desktop-app' });
    expect(log.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringMatching(/took over/), pid }));

    // The loser notices from its refresh timer, says so loudly, and does not throw.
    await expect
      .poll(() => crashedLog.lines.some((line) => line.level === 'error' && /lock was lost/.test(String(line.message))), { timeout: 5_000 })
      .toBe(true);
  });

  it('takes the lock over when its pid now belongs to another process (pid reuse)', async () => {
    const dir = dataDir();
    const other = liveProcess();
    const realStart = processStartTime(other.pid!);
    expect(realStart).not.toBeNull();
    const wrongStart = String(Number(realStart) + 1);
    await acquire({ dataDir: dir, owner: { kind: 'desktop-app' }, self: { pid: other.pid!, startTime: wrongStart }, staleMs: 2_000 });

    // Not by age (an hour to go): only the start time that does not match lets it in.
    await acquire({ dataDir: dir, owner: { kind: 'browser-host' }, staleMs: 60 * 60_000 });
    expect(readOwner(dir)).toMatchObject({ pid: process.pid });
  });

  it('refuses while the recorded process is alive with the recorded start time', async () => {
    const dir = dataDir();
    const other = liveProcess();
    await acquire({ dataDir: dir, owner: { kind: 'desktop-app' }, self: { pid: other.pid!, startTime: processStartTime(other.pid!) } });
    await expect(refusal(acquireDataDirLock({ dataDir: dir, owner: { kind: 'browser-host' } }))).resolves.toMatchObject({
      message: expect.stringContaining(`(pid ${other.pid}, the desktop app)`),
    });
  });

  it('without an owner file (a crash between lock and write), goes by the lock directory age', async () => {
    // Aged past staleness: taken at once.
    const aged = dataDir();
    mkdirSync(path.join(aged, lockDirName), { recursive: true });
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(path.join(aged, lockDirName), minuteAgo, minuteAgo);
    await acquire({ dataDir: aged, owner: { kind: 'desktop-app' }, staleMs: 30_000 });
    expect(readOwner(aged)).toMatchObject({ pid: process.pid });

    // Fresh, with nobody keeping it so: taken once it has aged, not before.
    const fresh = dataDir();
    mkdirSync(path.join(fresh, lockDirName), { recursive: true });
    const started = Date.now();
    await acquire({ dataDir: fresh, owner: { kind: 'desktop-app' }, staleMs: 2_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(readOwner(fresh)).toMatchObject({ pid: process.pid });
  });

  it('refuses a live holder whose owner file is missing or unreadable, once its lock has stayed fresh', async () => {
    const dir = dataDir();
    await acquire({ dataDir: dir, owner: { kind: 'desktop-app' }, staleMs: 2_000 });
    unlinkSync(path.join(dir, ownerFileName));
    const refused = await refusal(acquireDataDirLock({ dataDir: dir, owner: { kind: 'browser-host' }, staleMs: 2_000 }));
    expect(refused.message).toBe(
      `Another Operator Console is already using ${dir} (a console that has not recorded its pid). Close it first, or start this one with --data-dir DIR.`,
    );

    writeFileSync(path.join(dir, ownerFileName), '{"version":1,"pid":');
    await expect(refusal(acquireDataDirLock({ dataDir: dir, owner: { kind: 'browser-host' }, staleMs: 2_000 }))).resolves.toMatchObject({
      holder: null,
    });
  });

  it("keeps the lock fresh with a timer that does not keep a console's process alive", () => {
    // proper-lockfile with the options acquireDataDirLock passes: the process ends by itself, and the
    // lock goes with it (removed on exit), so a clean exit never leaves a lock to wait out.
    const dir = dataDir();
    mkdirSync(dir, { recursive: true });
    const script = `
      import lockfile from 'proper-lockfile';
      await lockfile.lock(${JSON.stringify(dir)}, { lockfilePath: ${JSON.stringify(path.join(dir, lockDirName))}, realpath: false, stale: 10000, retries: 0, onCompromised() {} });
      console.log('locked');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8', timeout: 10_000 });
    expect(child.error).toBeUndefined();
    expect(child.stdout.trim()).toBe('locked');
    expect(child.status).toBe(0);
    expect(existsSync(path.join(dir, lockDirName))).toBe(false);
  });
});
