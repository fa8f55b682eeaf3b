import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../platform/log';
import { openTestRunLedger, recordTestRun } from '../testing/output-test-kit';
import { makeTempDir } from '../testing/temp-dir';
import { openLedger, type Ledger } from './ledger';
import { migrateLedger } from './ledger-db';
import { migrations } from './migrations';

const mib = 1024 * 1024;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = makeTempDir('oc-ledger-space-');
  cleanups.push(dir.remove);
  return dir.path;
}

/**
 * A ledger as an earlier console left it: the latest schema, WAL mode, no auto-vacuum (every console
 * before this one made its ledger so), `runs` runs with `outputMiB` of output each.
 */
function earlierConsolesLedger(dataDir: string, runs: number, outputMiB: number): string[] {
  const db = new Database(path.join(dataDir, 'ledger.sqlite'));
  db.pragma('journal_mode = WAL');
  migrateLedger(db, migrations);
  const insertChunk = db.prepare('INSERT INTO output_chunks (run_id, byte_offset, attempt_id, bytes, created_at) VALUES (?, ?, ?, ?, 1)');
  const ids: string[] = [];
  for (let n = 1; n <= runs; n += 1) {
    const { runId, attemptId } = recordTestRun(db, `${n}`, path.join(dataDir, `project-${n}`));
    db.transaction(() => {
      for (let offset = 0; offset < outputMiB * mib; offset += 32 * 1024) insertChunk.run(runId, offset, attemptId, randomBytes(32 * 1024));
    })();
    ids.push(runId);
  }
  expect(db.pragma('auto_vacuum', { simple: true })).toBe(0);
  db.close();
  return ids;
}

function onDisk(ledger: Ledger): number {
  return statSync(ledger.file).size + (statSync(`${ledger.file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
}

describe('the ledger’s room on the disk', () => {
  it('of a ledger an earlier console made: converted once at start, its runs and output kept, and then deleting gives space back', async () => {
    const dataDir = tempDir();
    const [first, second] = earlierConsolesLedger(dataDir, 3, 6);
    const log = createMemoryLogger();

    const ledger = openLedger(dataDir, { log });
    cleanups.push(() => ledger.close());
    expect(ledger.db.pragma('auto_vacuum', { simple: true })).toBe(2);
    expect(ledger.space.figures()).toMatchObject({ mode: 'incremental', reclaimableBytes: 0, reclaiming: false });
    expect(log.lines.map((line) => line.message)).toContain('ledger converted to give deleted runs’ space back to the disk');
    expect(ledger.runs.row(first!)).toMatchObject({ status: 'running' });
    expect(ledger.output.totalBytes(second!)).toBe(6 * mib);
    expect(ledger.db.pragma('quick_check', { simple: true })).toBe('ok');

    const before = onDisk(ledger);
    await ledger.space.deleteOutput([first!], log);
    ledger.runs.delete(first!);
    await ledger.space.reclaim();
    expect(before - onDisk(ledger)).toBeGreaterThan(5.5 * mib);
    expect(ledger.output.totalBytes(second!)).toBe(6 * mib);
    expect(ledger.db.pragma('quick_check', { simple: true })).toBe('ok');
  });

  it('of a new ledger: free pages left by any deletion are counted, and given back, a step at a time, with the WAL emptied', async () => {
    const test = openTestRunLedger();
    cleanups.push(() => test.close());
    const { ledger } = test;
    const { runId } = test.createRun();
    for (let offset = 0; offset < 20 * mib; offset += 256 * 1024) {
      await ledger.outputWriter.appendChunks([{ runId, attemptId: null, byteOffset: offset, bytes: new Uint8Array(randomBytes(256 * 1024)), createdAt: 1 }]);
    }
    await ledger.outputWriter.checkpoint();
    const before = onDisk(ledger);
    // A deletion on the main connection (the cascade from a run's record), as any other would be.
    ledger.runs.delete(runId);
    const freed = ledger.space.figures();
    expect(freed.mode).toBe('incremental');
    expect(freed.reclaimableBytes).toBeGreaterThan(19 * mib);

    const result = await ledger.space.reclaim();
    expect(result.reclaimedBytes).toBeGreaterThan(19 * mib);
    expect(before - onDisk(ledger)).toBeGreaterThan(19 * mib);
    expect(ledger.space.figures()).toMatchObject({ reclaimableBytes: 0, walBytes: 0, reclaiming: false });
  });

  it('of an earlier console’s ledger on a disk without room for the conversion: opened as it is, saying why', () => {
    const mountPoint = mkdtempSync(path.join(tmpdir(), 'oc-ledger-space-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24M,mode=0700', 'tmpfs', mountPoint]);
    cleanups.push(() => {
      execFileSync('umount', ['-l', mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    });
    const [first] = earlierConsolesLedger(mountPoint, 2, 4);
    const log = createMemoryLogger();

    const ledger = openLedger(mountPoint, { log });
    cleanups.push(() => ledger.close());
    expect(ledger.db.pragma('auto_vacuum', { simple: true })).toBe(0);
    expect(ledger.space.figures().mode).toBe('not_converted');
    expect(ledger.output.totalBytes(first!)).toBe(4 * mib);
    const warning = log.lines.find((line) => line.level === 'warn');
    expect(warning?.message).toBe('the ledger was not converted to give deleted runs’ space back to the disk: its disk has too little room for that; the next start tries again');
  });
});
