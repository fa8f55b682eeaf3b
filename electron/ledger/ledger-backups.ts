import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LedgerDb } from './database-handle';

/**
 * Copies of the ledger in `<data dir>/backups/`, so that a damaged ledger costs at most a day:
 * one before every migration of an existing ledger, and a rolling daily one. A few of each are kept.
 *
 * Names sort by time and say why they were taken:
 *   ledger-2026-12-03T09-26-38.123Z-daily.sqlite
 *   ledger-2026-12-03T09-26-38.123Z-before-migration-10-to-11.sqlite
 * A copy is made under `<name>.partial` and renamed when complete, so a half-made copy (the console
 * stopped, the disk filled) is never mistaken for a backup; leftovers are removed before the next one.
 */

export const ledgerBackupsDirName = 'backups';

export type LedgerBackupReason = { kind: 'daily' } | { kind: 'before-migration'; fromVersion: number; toVersion: number };

export interface LedgerBackup {
  readonly file: string;
  readonly takenAt: number;
  readonly reason: LedgerBackupReason;
}

/** How many of each kind are kept: the newest ones. */
export interface LedgerBackupRetention {
  daily: number;
  beforeMigration: number;
}

export const defaultBackupRetention: LedgerBackupRetention = { daily: 3, beforeMigration: 2 };

const partialSuffix = '.partial';
const namePattern = /^ledger-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}\.\d{3})Z-(daily|before-migration-(\d+)-to-(\d+))\.sqlite$/;

export function ledgerBackupsDir(dataDir: string): string {
  return path.join(dataDir, ledgerBackupsDirName);
}

export function ledgerBackupName(takenAt: number, reason: LedgerBackupReason): string {
  // ISO 8601 without colons, which Windows does not allow in a file name.
  const stamp = new Date(takenAt).toISOString().replace(/:/g, '-');
  const why = reason.kind === 'daily' ? 'daily' : `before-migration-${reason.fromVersion}-to-${reason.toVersion}`;
  return `ledger-${stamp}-${why}.sqlite`;
}

function parseBackupName(dir: string, name: string): LedgerBackup | null {
  const match = namePattern.exec(name);
  if (!match) return null;
  const [, day, hours, minutes, seconds, why, from, to] = match;
  const takenAt = Date.parse(`${day}T${hours}:${minutes}:${seconds}Z`);
  if (Number.isNaN(takenAt)) return null;
  const reason: LedgerBackupReason = why === 'daily' ? { kind: 'daily' } : { kind: 'before-migration', fromVersion: Number(from), toVersion: Number(to) };
  return { file: path.join(dir, name), takenAt, reason };
}

/** Which backup it is, in words: "the daily backup of 2026-12-03 09:26 UTC". */
export function describeBackup(backup: LedgerBackup): string {
  const when = `${new Date(backup.takenAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  if (backup.reason.kind === 'daily') return `the daily backup of ${when}`;
  return `the backup of ${when}, taken before the upgrade from schema ${backup.reason.fromVersion} to ${backup.reason.toVersion}`;
}

/** The backups of one data directory: where they live, which there are, making and pruning them. */
export class LedgerBackups {
  readonly dir: string;
  private readonly retention: LedgerBackupRetention;

  constructor(dataDir: string, retention: LedgerBackupRetention = defaultBackupRetention) {
    this.dir = ledgerBackupsDir(dataDir);
    this.retention = retention;
  }

  /** Newest first. A folder that does not exist yet holds none. */
  list(): LedgerBackup[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    return names
      .map((name) => parseBackupName(this.dir, name))
      .filter((backup): backup is LedgerBackup => backup !== null)
      .sort((a, b) => b.takenAt - a.takenAt || (a.file < b.file ? 1 : -1));
  }

  newest(kind?: LedgerBackupReason['kind']): LedgerBackup | null {
    return this.list().find((backup) => kind === undefined || backup.reason.kind === kind) ?? null;
  }

  /**
   * Before a migration, synchronously: migrations run at open, before the console serves anything and
   * before the output writer's connection exists, so nothing else reads or writes meanwhile and the
   * event loop has nothing else to do. VACUUM INTO (rather than the online backup API, which
   * better-sqlite3 offers only asynchronously) writes the copy from one read transaction, so it is
   * consistent, and compact.
   */
  takeBeforeMigration(db: LedgerDb, fromVersion: number, toVersion: number, now: number): LedgerBackup {
    const { partial, final } = this.prepare(now, { kind: 'before-migration', fromVersion, toVersion });
    try {
      db.prepare('VACUUM INTO ?').run(partial);
      syncFile(partial);
      renameSync(partial, final.file);
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
    this.prune();
    return final;
  }

  /**
   * A daily copy through SQLite's online backup API on the given (main) connection, a bounded number
   * of pages per step with the event loop free between steps. In WAL mode the output writer's thread
   * keeps writing meanwhile; a write by another connection makes SQLite start the copy over. After a
   * few restarts this attempt gives up (the caller tries again within the hour) rather than copying
   * the rest in one step, which would hold the event loop that reads the PTYs for as long as a large
   * ledger takes to copy, in the middle of the flood that kept restarting it. `cancelled` is asked
   * between steps: closing the console stops a copy in flight.
   */
  async takeDaily(db: LedgerDb, now: number, options: { pagesPerStep?: number; maxRestarts?: number; cancelled?: () => boolean } = {}): Promise<LedgerBackup> {
    const { partial, final } = this.prepare(now, { kind: 'daily' });
    const pagesPerStep = options.pagesPerStep ?? 1024;
    const maxRestarts = options.maxRestarts ?? 3;
    let restarts = 0;
    let lastRemaining = Number.POSITIVE_INFINITY;
    try {
      await db.backup(partial, {
        progress: ({ remainingPages }) => {
          if (options.cancelled?.()) throw new Error('The daily ledger backup was stopped because the console is closing.');
          if (remainingPages > lastRemaining) restarts += 1;
          lastRemaining = remainingPages;
          if (restarts >= maxRestarts) throw new Error(`The ledger kept changing during its daily backup (${restarts} restarts); it is tried again later.`);
          return pagesPerStep;
        },
      });
      syncFile(partial);
      renameSync(partial, final.file);
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
    this.prune();
    return final;
  }

  /** Keeps the newest of each kind; removes the rest. */
  prune(): LedgerBackup[] {
    const removed: LedgerBackup[] = [];
    const seen = { daily: 0, 'before-migration': 0 };
    for (const backup of this.list()) {
      seen[backup.reason.kind] += 1;
      const keep = backup.reason.kind === 'daily' ? this.retention.daily : this.retention.beforeMigration;
      if (seen[backup.reason.kind] <= keep) continue;
      rmSync(backup.file, { force: true });
      removed.push(backup);
    }
    return removed;
  }

  private prepare(now: number, reason: LedgerBackupReason): { partial: string; final: LedgerBackup } {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // A copy left half-made by an earlier console.
    for (const name of readdirSync(this.dir)) {
      if (name.endsWith(partialSuffix)) rmSync(path.join(this.dir, name), { force: true });
    }
    const file = path.join(this.dir, ledgerBackupName(now, reason));
    return { partial: `${file}${partialSuffix}`, final: { file, takenAt: Math.floor(now), reason } };
  }
}

/** A backup is only worth having once it is on disk. */
export function syncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
