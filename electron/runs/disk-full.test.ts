import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freeDiskBytesSync } from '../platform/disk-space';
import { isProcessGroupAlive } from '../platform/process-group';
import { openRunTestBed, present, type RunTestBed } from '../testing/run-test-kit';

/**
 * A full disk (issue 16), with real parts: the data directory on a size-limited tmpfs of its own, a
 * real PTY flooding output into a real SQLite ledger until the disk is full, real git worktrees.
 */

const mib = 1024 * 1024;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  // Every cleanup runs, so a console that failed to close still has its disk unmounted.
  const failures: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
});

/** A tmpfs of `sizeMiB` mounted on a fresh directory under /tmp, unmounted after the test. */
function smallDisk(sizeMiB: number): string {
  const mountPoint = mkdtempSync(path.join(tmpdir(), 'oc-disk-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}M,mode=0700`, 'tmpfs', mountPoint]);
  cleanups.push(() => {
    execFileSync('umount', ['-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });
  return mountPoint;
}

/** Fills the disk with a file until about `leaveBytes` are free. */
function fill(dir: string, leaveBytes: number): string {
  const file = path.join(dir, 'filler');
  const free = present(freeDiskBytesSync(dir), 'free space');
  writeFileSync(file, Buffer.alloc(Math.max(0, free - leaveBytes)));
  return file;
}

async function consoleOn(disk: string, minFreeMiB: number, outputGiveUpAfterMs = 1500): Promise<RunTestBed> {
  const dataDir = path.join(disk, 'data');
  mkdirSync(dataDir);
  const bed = await openRunTestBed({
    dataDir,
    disk: { minFreeDiskBytes: minFreeMiB * mib, diskCheckIntervalMs: 200, outputGiveUpAfterMs },
  });
  cleanups.push(() => bed.close());
  return bed;
}

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

/** The flood as the fixture agent writes it, as the terminal passes it on ("\n" becomes "\r\n"), up to `bytes`. */
function expectedFlood(bytes: number): Buffer {
  const parts: Buffer[] = [Buffer.from('flood-begin\r\n')];
  let length = parts[0]!.length;
  for (let k = 0; length < bytes; k += 1) {
    const line = Buffer.from(`flood ${String(k).padStart(7, '0')} é漢🙂 the quick brown fox jumps over the lazy dog ${'abcdefghij'.repeat(3)}\r\n`);
    parts.push(line);
    length += line.length;
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

async function openDiskFullNotices(bed: RunTestBed) {
  return (await bed.call('listNotices', { status: 'open' })).filter((notice) => notice.kind === 'disk_full');
}

describe('a full disk', () => {
  it('ends a run whose output cannot be stored within seconds, keeps what was stored, stops its processes, and raises Disk full', async () => {
    const disk = smallDisk(40);
    const bed = await consoleOn(disk, 2);
    const agent = await bed.createAgent(['--flood-bytes', String(400 * mib)]);
    const task = await bed.createTask('Flood the terminal');
    const started = await bed.call('startRun', { taskId: task.id, agentId: agent.id });
    const running = await bed.waitForRun(started.id, (run) => run.status === 'running' && run.locators.some((locator) => locator.kind === 'process'));
    const pgid = present(running.locators.find((locator) => locator.kind === 'process'), 'process locator').data.pgid as number;

    const run = await bed.waitForRun(started.id, ended, 30_000);
    expect(run.status).toBe('failed');
    expect(run.failure).toMatchObject({ code: 'disk_full', actionUrl: '#/cleanup' });
    expect(run.failure?.message).toContain(bed.dataDir);
    expect(run.attempts).toMatchObject([{ status: 'failed', failureCode: 'disk_full' }]);
    // Not retried: another attempt would only fill the disk again.
    expect(run.attempts).toHaveLength(1);
    expect(isProcessGroupAlive(pgid)).toBe(false);

    // What was stored is the flood's beginning, byte for byte, without a gap.
    const total = bed.core.ledger.output.totalBytes(started.id);
    expect(total).toBeGreaterThan(4 * mib);
    const stored = Buffer.from(bed.core.ledger.output.read(started.id, 0, total).bytes);
    const from = stored.indexOf('flood-begin\r\n');
    expect(from).toBeGreaterThanOrEqual(0);
    expect(stored.subarray(from).equals(expectedFlood(total - from))).toBe(true);

    // One notice for the console, naming the data directory and linking to Clean up.
    const [notice, ...others] = await openDiskFullNotices(bed);
    expect(others).toEqual([]);
    expect(notice).toMatchObject({ title: 'Disk full', code: 'disk_full', actionUrl: '#/cleanup', actionLabel: 'Open Clean up', runIds: [started.id] });
    expect(notice?.message).toContain(bed.dataDir);
    expect(notice?.message).toMatch(/The ledger \(ledger\.sqlite\) takes \d/);

    // The console goes on answering, and Delete of the run works (its reserve left room for that).
    expect((await bed.call('listRuns')).runs.map((summary) => summary.id)).toContain(started.id);
    await bed.call('deleteRun', { runId: started.id });
    expect(bed.core.ledger.output.totalBytes(started.id)).toBe(0);
  }, 60_000);

  it('lets Stop end a run while its output writes fail', async () => {
    const disk = smallDisk(40);
    // Writes would be retried for a minute before the run is given up: Stop must not wait for that.
    const bed = await consoleOn(disk, 2, 60_000);
    const agent = await bed.createAgent(['--flood-bytes', String(400 * mib)]);
    const task = await bed.createTask('Flood, then stop');
    const started = await bed.call('startRun', { taskId: task.id, agentId: agent.id });
    const running = await bed.waitForRun(started.id, (run) => run.status === 'running' && run.locators.some((locator) => locator.kind === 'process'));
    const pgid = present(running.locators.find((locator) => locator.kind === 'process'), 'process locator').data.pgid as number;
    await expect.poll(() => bed.log.lines.some((line) => String(line.message).startsWith('Writing run output to the ledger failed')), { timeout: 20_000 }).toBe(true);

    await bed.call('stopRun', { runId: started.id });
    const run = await bed.waitForRun(started.id, ended, 10_000);
    expect(run.status).toBe('cancelled');
    // On a full disk the attempt's end may be refused once; it is written again every 2 s until it lands.
    await expect
      .poll(async () => (await bed.call('getRun', { runId: started.id })).attempts.map((attempt: { status: string }) => attempt.status), { timeout: 10_000 })
      .toEqual(['cancelled']);
    expect(isProcessGroupAlive(pgid)).toBe(false);
    expect(await openDiskFullNotices(bed)).toHaveLength(1);
  }, 60_000);

  it('with the threshold off, ends a run whose task root does not fit as disk_full, and answers a start with no room at all as disk_full, never internal', async () => {
    const disk = smallDisk(40);
    const bed = await consoleOn(disk, 0);
    // A project whose checkout needs more room than the disk will have left.
    writeFileSync(path.join(bed.projectDir, 'big.bin'), Buffer.alloc(8 * mib, 1));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=Test', ...args], { cwd: bed.projectDir });
    git('add', '-A');
    git('commit', '-q', '-m', 'big');
    const agent = await bed.createAgent(['--lines', '2']);
    const task = await bed.createTask('Start with little room');
    // The console's reserve is made in the background; then the disk is filled.
    await expect.poll(() => existsSync(path.join(bed.dataDir, 'disk-reserve'))).toBe(true);
    const filler = fill(disk, 1 * mib);

    const started = await bed.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await bed.waitForRun(started.id, ended, 20_000);
    expect(run.status).toBe('failed');
    expect(run.failure).toMatchObject({ code: 'disk_full', actionUrl: '#/cleanup' });
    expect((await openDiskFullNotices(bed))[0]?.runIds).toEqual([started.id]);

    // Not a byte left: the run's record itself cannot be written, and the answer says why.
    rmSync(filler);
    fill(disk, 0);
    expect(freeDiskBytesSync(disk)).toBeLessThan(64 * 1024);
    await expect(bed.call('startRun', { taskId: task.id, agentId: agent.id })).rejects.toMatchObject({ code: 'disk_full', actionUrl: '#/cleanup' });
    expect(bed.log.lines.filter((line) => line.level === 'error' && /unexpected/.test(String(line.message)))).toEqual([]);
    // The console goes on answering.
    expect((await bed.call('getRun', { runId: started.id })).status).toBe('failed');
  }, 60_000);

  it('gives the disk back the room deleted runs’ output took in the ledger, so that runs start again', async () => {
    const disk = smallDisk(72);
    const bed = await consoleOn(disk, 8);
    const ledgerOnDisk = () => ['', '-wal'].reduce((sum, suffix) => sum + (statSync(`${bed.core.ledger.file}${suffix}`, { throwIfNoEntry: false })?.size ?? 0), 0);
    const agent = await bed.createAgent(['--flood-bytes', String(12 * mib)]);
    const task = await bed.createTask('Flood the ledger');
    const runIds: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const started = await bed.call('startRun', { taskId: task.id, agentId: agent.id });
      expect((await bed.waitForRun(started.id, ended, 30_000)).status).toBe('succeeded');
      runIds.push(started.id);
    }
    expect(bed.core.ledger.output.totalBytes(runIds[0]!)).toBeGreaterThan(12 * mib);
    expect(ledgerOnDisk()).toBeGreaterThan(36 * mib);

    // The disk fills up (something else on it): a new run is refused, and Disk full says what to do.
    fill(disk, 4 * mib);
    const refused = await bed.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(refused.status).toBe('refused');
    const [notice] = await openDiskFullNotices(bed);
    expect(notice?.message).toContain('deleting runs you no longer need gives the room their output took in the ledger back to the disk at once');
    const ledgerBefore = ledgerOnDisk();
    const freeBefore = present(freeDiskBytesSync(disk), 'free space');

    // Deleting two runs through the console gives their output's room back to the disk itself.
    await bed.call('deleteRun', { runId: runIds[0]! });
    await bed.call('deleteRun', { runId: runIds[1]! });
    const freed = present(freeDiskBytesSync(disk), 'free space') - freeBefore;
    expect(ledgerBefore - ledgerOnDisk()).toBeGreaterThan(22 * mib);
    expect(freed).toBeGreaterThan(22 * mib);
    // Nothing left to give back, and the WAL is not left holding what moved.
    const usage = await bed.call('getDiskUsage');
    expect(usage.ledger).toMatchObject({ mode: 'incremental', reclaiming: false });
    expect(usage.ledger.reclaimableBytes).toBeLessThan(1 * mib);
    expect(usage.ledger.walBytes).toBeLessThan(8 * mib);
    // The run kept is whole.
    expect(bed.core.ledger.output.totalBytes(runIds[2]!)).toBeGreaterThan(12 * mib);

    // Space is back: the notice resolves itself, and a run starts and succeeds.
    await expect.poll(async () => (await bed.call('listNotices', { status: 'all' })).find((entry) => entry.id === notice!.id)?.status, { timeout: 5000 }).toBe('resolved');
    const again = await bed.call('runAgain', { noticeId: notice!.id });
    expect((await bed.waitForRun(present(again.runs[0], 'run started again').id, ended, 30_000)).status).toBe('succeeded');
  }, 120_000);

  it('refuses a new run up front while free space is under the threshold, and lets runs start again once space is back', async () => {
    const disk = smallDisk(40);
    const bed = await consoleOn(disk, 8);
    const agent = await bed.createAgent(['--lines', '2']);
    const task = await bed.createTask('Start on a full disk');
    const filler = fill(disk, 3 * mib);

    const refused = await bed.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(refused.status).toBe('refused');
    const detail = await bed.call('getRun', { runId: refused.id });
    expect(detail.failure).toMatchObject({ code: 'disk_full', reason: 'disk_full', actionUrl: '#/cleanup' });
    expect(detail.failure?.message).toContain('Nothing was started');
    // Nothing was started: no attempt, no process, no task root.
    expect(detail.attempts).toEqual([]);
    expect(detail.locators).toEqual([]);
    expect(existsSync(path.join(bed.dataDir, 'tasks', refused.id))).toBe(false);
    const [notice] = await openDiskFullNotices(bed);
    expect(notice).toMatchObject({ title: 'Disk full', runIds: [refused.id] });
    expect(notice?.message).toContain(bed.dataDir);
    expect(notice?.message).toMatch(/MiB free; new runs need 8\.0 MiB/);

    // Space is back: the notice resolves itself (offering Run again), and a run starts and succeeds.
    rmSync(filler);
    await expect.poll(async () => (await bed.call('listNotices', { status: 'all' })).find((entry) => entry.id === notice!.id)?.status, { timeout: 5000 }).toBe('resolved');
    const resolved = present((await bed.call('listNotices', { status: 'all' })).find((entry) => entry.id === notice!.id), 'notice');
    expect(resolved.resolution).toMatch(/^Space is back: .* free on the data directory’s disk\.$/);
    expect(resolved.canRunAgain).toBe(true);
    const again = await bed.call('runAgain', { noticeId: notice!.id });
    const run = await bed.waitForRun(present(again.runs[0], 'run started again').id, ended);
    expect(run.status).toBe('succeeded');
  }, 60_000);
});
