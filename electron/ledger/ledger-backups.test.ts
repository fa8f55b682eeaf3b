import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createMemoryLogger } from '../platform/log';
import { seedRunParents } from '../testing/ledger-seed';
import { makeTempDir } from '../testing/temp-dir';
import { DailyLedgerBackup, dayMs } from './daily-ledger-backup';
import { openLedger } from './ledger';
import { LedgerBackups } from './ledger-backups';
import { LedgerVersionError, openLedgerDb, schemaVersion } from './ledger-db';
import { migrations } from './migrations';

const temps: Array<{ remove(): void }> = [];
function tempDir() {
  const dir = makeTempDir('oc-ledger-backups-');
  temps.push(dir);
  return dir.path;
}
afterEach(() => temps.splice(0).forEach((t) => t.remove()));

const latest = migrations.at(-1)!.version;

function seedRuns(db: Database.Database, count: number): void {
  seedRunParents(db);
  const insert = db.prepare("INSERT INTO runs (id, task_id, agent_id, status, created_at) VALUES (?, 'tsk_1', 'agt_1', 'succeeded', ?)");
  for (let n = 1; n <= count; n += 1) insert.run(`run_${n}`, n);
}

function runIdsIn(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    expect(db.pragma('quick_check', { simple: true })).toBe('ok');
    return db.prepare('SELECT id FROM runs ORDER BY created_at').pluck().all() as string[];
  } finally {
    db.close();
  }
}

describe('the ledger backup before a migration', () => {
  it('copies a ledger from an earlier console, as it was, before upgrading it', () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, 'ledger.sqlite');
    const old = openLedgerDb(file, { migrations: migrations.slice(0, 9) });
    seedRuns(old, 5);
    old.close();

    const at = Date.parse('2026-12-03T09:26:38.123Z');
    const ledger = openLedger(dataDir, { now: () => at });
    expect(schemaVersion(ledger.db)).toBe(latest);
    const [backup, ...others] = ledger.backups.list();
    ledger.close();
    expect(others).toEqual([]);
    expect(path.dirname(backup!.file)).toBe(path.join(dataDir, 'backups'));
    expect(path.basename(backup!.file)).toBe(`ledger-2026-12-03T09-26-38.123Z-before-migration-9-to-${latest}.sqlite`);
    expect(backup!.reason).toEqual({ kind: 'before-migration', fromVersion: 9, toVersion: latest });
    // The copy is the ledger before the upgrade: its schema version, and every run.
    const copy = new Database(backup!.file, { readonly: true });
    expect(schemaVersion(copy)).toBe(9);
    copy.close();
    expect(runIdsIn(backup!.file)).toEqual(['run_1', 'run_2', 'run_3', 'run_4', 'run_5']);
  });

  it('is not taken for a new ledger, nor for one already up to date', () => {
    const dataDir = tempDir();
    openLedger(dataDir).close();
    openLedger(dataDir).close();
    expect(existsSync(path.join(dataDir, 'backups')) ? readdirSync(path.join(dataDir, 'backups')) : []).toEqual([]);
  });

  it('is not taken of a ledger from a newer console, which is refused and left as it was', () => {
    const dataDir = tempDir();
    const file = path.join(dataDir, 'ledger.sqlite');
    const db = new Database(file);
    db.pragma('user_version = 999');
    db.close();
    const before = readFileSync(file);
    expect(() => openLedger(dataDir)).toThrow(LedgerVersionError);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(new LedgerBackups(dataDir).list()).toEqual([]);
  });

  it('keeps the two newest', () => {
    const dataDir = tempDir();
    const ledger = openLedger(dataDir);
    const backups = new LedgerBackups(dataDir);
    for (const [n, at] of [1, 2, 3].entries()) backups.takeBeforeMigration(ledger.db, n + 1, n + 2, at * 1000);
    ledger.close();
    expect(backups.list().map((b) => b.reason)).toEqual([
      { kind: 'before-migration', fromVersion: 3, toVersion: 4 },
      { kind: 'before-migration', fromVersion: 2, toVersion: 3 },
    ]);
  });
});

describe('the daily ledger backup', () => {
  it('is taken when the newest daily is a day old or missing, about once a day, keeping the last three', async () => {
    const dataDir = tempDir();
    let now = Date.parse('2026-12-01T10:00:00Z');
    const ledger = openLedger(dataDir, { now: () => now });
    seedRuns(ledger.db, 3);
    // One taken before a migration is kept apart from the daily rotation.
    ledger.backups.takeBeforeMigration(ledger.db, 10, 11, now - dayMs);
    const daily = new DailyLedgerBackup({ db: ledger.db, backups: ledger.backups, log: createMemoryLogger(), now: () => now });

    const first = await daily.backUpIfDue();
    expect(first?.reason).toEqual({ kind: 'daily' });
    expect(path.basename(first!.file)).toBe('ledger-2026-12-01T10-00-00.000Z-daily.sqlite');
    now += 23 * 60 * 60 * 1000;
    expect(await daily.backUpIfDue()).toBeNull();
    for (let day = 0; day < 5; day += 1) {
      now += dayMs + 60_000;
      expect((await daily.backUpIfDue())?.takenAt).toBe(now);
    }
    const names = ledger.backups.list().map((backup) => path.basename(backup.file));
    await daily.close();
    ledger.close();
    // Names sort by time; the three newest dailies and the pre-migration copy remain.
    expect(names).toEqual([
      'ledger-2026-12-07T09-05-00.000Z-daily.sqlite',
      'ledger-2026-12-06T09-04-00.000Z-daily.sqlite',
      'ledger-2026-12-05T09-03-00.000Z-daily.sqlite',
      'ledger-2026-11-30T10-00-00.000Z-before-migration-10-to-11.sqlite',
    ]);
    expect([...names].sort().reverse().slice(0, 3)).toEqual(names.slice(0, 3));
  });

  it('is taken soon after start when the newest daily is older than a day', async () => {
    const dataDir = tempDir();
    const ledger = openLedger(dataDir);
    const daily = new DailyLedgerBackup({ db: ledger.db, backups: ledger.backups, log: createMemoryLogger(), now: Date.now, firstCheckAfterMs: 10 });
    daily.start();
    await expect.poll(() => ledger.backups.newest('daily'), { timeout: 5_000 }).not.toBeNull();
    await daily.close();
    ledger.close();
  });

  it('is a consistent copy that holds every run, even while the output writer thread keeps writing', async () => {
    const dataDir = tempDir();
    const ledger = openLedger(dataDir);
    seedRuns(ledger.db, 50);
    ledger.db.prepare("INSERT INTO attempts (id, run_id, number, status, started_at) VALUES ('att_1', 'run_1', 1, 'running', 1)").run();
    let offset = 0;
    const write = () => {
      const bytes = new Uint8Array(randomBytes(32 * 1024));
      const chunk = { runId: 'run_1', attemptId: 'att_1', byteOffset: offset, bytes, createdAt: Date.now() };
      offset += bytes.length;
      return ledger.outputWriter.appendChunks([chunk]);
    };
    for (let n = 0; n < 200; n += 1) await write();
    // Writes from another connection that never stop: the copy starts over after each, and would
    // forever; it gives up after maxRestarts (tried again later) instead of copying the rest in one
    // blocking step, and leaves nothing behind. The writes come one per turn of the event loop, as the
    // copy's steps do, so that one lands between every two steps (the writer thread's replies need
    // the same loop, and a copy of a small ledger can finish between two of them).
    const other = new Database(ledger.file);
    other.pragma('busy_timeout = 5000');
    const append = other.prepare("INSERT INTO output_chunks (run_id, byte_offset, attempt_id, bytes, created_at) VALUES ('run_1', ?, 'att_1', ?, 1)");
    let writing = true;
    const endless = new Promise<void>((resolve) => {
      const tick = () => {
        if (!writing) return resolve();
        append.run(offset, randomBytes(32 * 1024));
        offset += 32 * 1024;
        setImmediate(tick);
      };
      setImmediate(tick);
    });
    await expect(ledger.backups.takeDaily(ledger.db, Date.now(), { pagesPerStep: 16 })).rejects.toThrow(/kept changing/);
    writing = false;
    await endless;
    other.close();
    expect(readdirSync(ledger.backups.dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
    // A burst of writes mid-copy: it starts over and still ends with a consistent copy.
    const burst = (async () => {
      for (let n = 0; n < 20; n += 1) await write();
    })();
    const backup = await ledger.backups.takeDaily(ledger.db, Date.now(), { pagesPerStep: 16, maxRestarts: 1000 });
    await burst;
    await ledger.outputWriter.close();
    ledger.close();

    expect(runIdsIn(backup.file)).toHaveLength(50);
    // It opens as a ledger of its own, with its runs and their output.
    const restoredDir = tempDir();
    writeFileSync(path.join(restoredDir, 'ledger.sqlite'), readFileSync(backup.file));
    const restored = openLedger(restoredDir);
    expect(restored.runs.row('run_50')).toMatchObject({ status: 'succeeded' });
    expect(restored.output.totalBytes('run_1')).toBeGreaterThanOrEqual(200 * 32 * 1024);
    restored.close();
  });

  it('leaves no half-made copy behind when the console closes mid-copy, and cleans up one an earlier console left', async () => {
    const dataDir = tempDir();
    const ledger = openLedger(dataDir);
    seedRuns(ledger.db, 2000);
    const backups = ledger.backups;
    backups.takeBeforeMigration(ledger.db, 1, 2, 1000);
    writeFileSync(path.join(backups.dir, 'ledger-2026-01-01T00-00-00.000Z-daily.sqlite.partial'), 'half');
    let closing = false;
    const copy = backups.takeDaily(ledger.db, Date.now(), { pagesPerStep: 1, cancelled: () => closing });
    closing = true;
    await expect(copy).rejects.toThrow(/console is closing/);
    ledger.close();
    expect(readdirSync(backups.dir)).toEqual(['ledger-1970-01-01T00-00-01.000Z-before-migration-1-to-2.sqlite']);
  });
});
