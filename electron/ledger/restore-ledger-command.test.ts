import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { acquireDataDirLock } from '../platform/data-dir-lock';
import { createMemoryLogger } from '../platform/log';
import { makeTempDir } from '../testing/temp-dir';
import { openLedger } from './ledger';
import { LedgerDamagedError } from './ledger-damage';
import { restoreLedgerCommand } from './restore-ledger-command';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = makeTempDir('oc-ledger-restore-');
  cleanups.push(dir.remove);
  return dir.path;
}

/** A data directory whose ledger had runs, was backed up, and then went bad (with a -wal and -shm beside it). */
async function damagedDataDir(): Promise<{ dataDir: string; backupFile: string; garbage: Buffer }> {
  const dataDir = tempDir();
  const ledger = openLedger(dataDir);
  ledger.db.prepare("INSERT INTO projects (id, name, path, is_git_repo, created_at) VALUES ('prj_kept', 'kept', '/srv/kept', 0, 1)").run();
  const backup = await ledger.backups.takeDaily(ledger.db, Date.parse('2026-12-02T08:00:00Z'));
  ledger.close();
  const garbage = randomBytes(32 * 1024);
  writeFileSync(path.join(dataDir, 'ledger.sqlite'), garbage);
  writeFileSync(path.join(dataDir, 'ledger.sqlite-wal'), 'the damaged ledger’s last transactions');
  writeFileSync(path.join(dataDir, 'ledger.sqlite-shm'), 'its index');
  return { dataDir, backupFile: backup.file, garbage };
}

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line), env: {}, now: () => Date.parse('2026-12-03T10:00:00Z') } };
}

describe('npm run ledger:restore', () => {
  it('puts the backup in place of a damaged ledger, keeping the damaged file and its -wal beside it', async () => {
    const { dataDir, backupFile, garbage } = await damagedDataDir();
    expect(() => openLedger(dataDir)).toThrow(LedgerDamagedError);

    const { out, err, io: streams } = io();
    // The command the damaged-ledger message gives: just the backup's path.
    expect(await restoreLedgerCommand([backupFile], streams)).toBe(0);
    expect(err).toEqual([]);
    const kept = path.join(dataDir, 'ledger.sqlite.before-restore-2026-12-03T10-00-00.000Z');
    expect(out).toEqual([
      `Operator Console: restored ${path.join(dataDir, 'ledger.sqlite')} from ${backupFile}. The ledger it replaced is kept at ${kept}. Start the console again.`,
    ]);
    expect(readFileSync(kept).equals(garbage)).toBe(true);
    expect(readFileSync(`${kept}-wal`, 'utf8')).toBe('the damaged ledger’s last transactions');
    expect(existsSync(path.join(dataDir, 'ledger.sqlite-shm'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'ledger.sqlite-wal'))).toBe(false);

    // The console opens it, with what the backup held.
    const ledger = openLedger(dataDir);
    expect(ledger.projects.list().map((project) => project.name)).toEqual(['kept']);
    ledger.close();
    // The lock was given back.
    expect(readdirSync(dataDir)).not.toContain('console.lock');
  });

  it('restores the newest backup of a data directory when none is named', async () => {
    const { dataDir, backupFile } = await damagedDataDir();
    const { out, io: streams } = io();
    expect(await restoreLedgerCommand(['--data-dir', dataDir], streams)).toBe(0);
    expect(out[0]).toContain(`from ${backupFile}.`);
    openLedger(dataDir).close();
  });

  it('refuses while a console holds the data directory, and changes nothing', async () => {
    const { dataDir, backupFile, garbage } = await damagedDataDir();
    const lock = await acquireDataDirLock({ dataDir, owner: { kind: 'browser-host', url: 'http://127.0.0.1:4000/' }, log: createMemoryLogger() });
    cleanups.push(() => lock.release());

    const { out, err, io: streams } = io();
    expect(await restoreLedgerCommand([backupFile], streams)).toBe(1);
    expect(out).toEqual([]);
    expect(err).toEqual([
      `Operator Console: the ledger was not restored: a console is using ${dataDir} (pid ${process.pid}, http://127.0.0.1:4000/). Stop it first, then run this again.`,
    ]);
    expect(readFileSync(path.join(dataDir, 'ledger.sqlite')).equals(garbage)).toBe(true);
    expect(readdirSync(dataDir).filter((name) => name.includes('before-restore'))).toEqual([]);
  });

  it('refuses a backup that is damaged too, and changes nothing', async () => {
    const { dataDir, backupFile, garbage } = await damagedDataDir();
    // A WAL database with a bad page: read in place, it would get a -wal and -shm beside it.
    const pageSize = 4096;
    const backup = readFileSync(backupFile);
    backup[18] = 2;
    backup[19] = 2;
    backup.fill(0xa5, pageSize, 2 * pageSize);
    writeFileSync(backupFile, backup);
    const backups = readdirSync(path.dirname(backupFile)).sort();
    const { err, io: streams } = io();
    expect(await restoreLedgerCommand([backupFile], streams)).toBe(1);
    expect(err[0]).toContain(`The backup ${backupFile} cannot be read either`);
    expect(err[0]).toContain('Nothing was changed');
    expect(readFileSync(path.join(dataDir, 'ledger.sqlite')).equals(garbage)).toBe(true);
    expect(readdirSync(dataDir).filter((name) => name.includes('restor'))).toEqual([]);
    expect(readdirSync(path.dirname(backupFile)).sort()).toEqual(backups);
  });

  it('says so when there is no backup to restore', async () => {
    const dataDir = tempDir();
    const { err, io: streams } = io();
    expect(await restoreLedgerCommand(['--data-dir', dataDir], streams)).toBe(1);
    expect(err).toEqual([`Operator Console: there is no backup in ${path.join(dataDir, 'backups')}; nothing was changed.`]);
  });
});
