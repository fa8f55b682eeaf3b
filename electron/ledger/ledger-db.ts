import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { LedgerBackups } from './ledger-backups';
import type { Logger } from '../platform/log';
import { isLedgerDamage, LedgerDamagedError } from './ledger-damage';
import { convertForReclaim } from './ledger-space';
import { migrations as allMigrations, type Migration } from './migrations';
import { inspectWithoutTrace } from './traceless-inspection';
import { walSizeLimitBytes, type LedgerDb } from './database-handle';


export interface OpenLedgerOptions {
  /**
   * Path to a better-sqlite3 addon built for this runtime. The desktop app passes the Electron-ABI copy
   * made at install time (see scripts/prepare-native.mjs); Node uses the package's own build.
   */
  nativeBinding?: string | undefined;
  /** Only tests pass this, to make a database as an earlier version of the console would have. */
  migrations?: readonly Migration[];
  /**
   * The data directory's backups: an existing ledger is copied there before it is migrated, and a
   * damaged one's refusal names the newest. Without it (tests of the schema alone) neither happens.
   */
  backups?: LedgerBackups | undefined;
  /** The console's clock, for the backups' names. Default: Date.now. */
  now?: (() => number) | undefined;
  /** Where the one-off conversion of an earlier console's ledger says what it did (ledger-space.ts). */
  log?: Logger | undefined;
}

export class LedgerVersionError extends Error {
  constructor(found: number, known: number, file?: string) {
    super(
      `The ledger${file ? ` ${file}` : ''} was written by a newer Operator Console (schema ${found}; this one knows up to ${known}). ` +
        'Update the console, or point it at another data directory; the ledger was left as it is.',
    );
    this.name = 'LedgerVersionError';
  }
}

/** Another program holds SQLite's lock on the ledger (a sqlite3 shell in a transaction, a backup or sync tool). */
export class LedgerLockedError extends Error {
  constructor(file: string) {
    super(
      `The ledger ${file} is locked by another program (an sqlite3 shell in a transaction, a backup or sync tool holding it). ` +
        'Close that program, then start the console again; the ledger was left as it is.',
    );
    this.name = 'LedgerLockedError';
  }
}

/** SQLite's answers that mean another connection holds the file (busy_timeout has passed already). */
function isLedgerLocked(error: unknown): boolean {
  return error instanceof Database.SqliteError && (error.code.startsWith('SQLITE_BUSY') || error.code.startsWith('SQLITE_LOCKED'));
}

/**
 * Opens (creating if needed) the ledger file and brings its schema up to date. An existing file is
 * judged first, through a read-only connection that leaves nothing beside it (traceless-inspection.ts):
 * one SQLite cannot read (LedgerDamagedError), one from a newer console (LedgerVersionError) or one
 * another program holds locked is refused exactly as it was found, its folder too. A read-write
 * connection would not leave it so: it makes a -wal and -shm, and closing one checkpoints the -wal
 * into the file and deletes it.
 */
export function openLedgerDb(file: string, options: OpenLedgerOptions = {}): LedgerDb {
  const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
  const migrations = options.migrations ?? allMigrations;
  const known = migrations.at(-1)?.version ?? 0;
  const damaged = (sqliteMessage: string) => new LedgerDamagedError({ file, newestBackup: options.backups?.newest() ?? null, sqliteMessage });
  const existed = existsSync(file);
  if (existed) {
    try {
      inspectWithoutTrace(
        file,
        (reader) => {
          const problem = findUnreadableTable(reader);
          if (problem) throw damaged(problem);
          const found = schemaVersion(reader);
          if (found > known) throw new LedgerVersionError(found, known, file);
        },
        binding,
      );
    } catch (error) {
      if (isLedgerDamage(error)) throw damaged(error.message);
      if (isLedgerLocked(error)) throw new LedgerLockedError(file);
      throw error;
    }
  }
  const db = new Database(file, binding);
  try {
    // A new ledger gives deleted runs' pages back to the disk (ledger-space.ts): set before its first
    // table, the only time SQLite takes it without rewriting the file.
    if (!existed) db.pragma('auto_vacuum = INCREMENTAL');
    // WAL lets the renderer's reads run beside the run writer; NORMAL is durable across app crashes
    // in WAL mode (only an OS crash can lose the last transactions), at a fraction of FULL's fsyncs.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // A WAL a checkpoint has reset is cut back to this size, whatever it grew to (the writer's
    // connection sets the same): it never stays huge after a flood or a reclaim.
    db.pragma(`journal_size_limit = ${walSizeLimitBytes}`);
    const backups = options.backups;
    migrateLedger(db, migrations, {
      // A fresh ledger (version 0) has nothing to lose; an existing one is copied before it changes
      // (which also reads all of it: a damaged page anywhere stops the migration before it starts).
      beforeMigrating: backups
        ? (from, to) => {
            if (from > 0) backups.takeBeforeMigration(db, from, to, (options.now ?? Date.now)());
          }
        : undefined,
    });
    // An earlier console's ledger is converted once, when the disk has room for it.
    if (existed) convertForReclaim(db, file, options.log);
    return db;
  } catch (error) {
    db.close();
    if (isLedgerDamage(error)) throw damaged(error.message);
    if (isLedgerLocked(error)) throw new LedgerLockedError(file);
    throw error;
  }
}

/**
 * Reads every page of every table but the runs' output, the bulk of the file (checking it would make
 * start-up as slow as the ledger is large): a file cut short, or a corrupt page in anything the
 * console reads at start, is found here, before anything is written. A corrupt page of output is
 * found when it is read, and answered the same way (code `ledger_damaged`). The search index
 * (`search_*`, about as large as the output) is not read either: it is derived from the rest, and a
 * damaged one is rebuilt in the background (search/search-index-upkeep.ts).
 */
function findUnreadableTable(db: LedgerDb): string | null {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'output_chunks' AND name NOT LIKE 'search\\_%' ESCAPE '\\'")
    .pluck()
    .all() as string[];
  for (const table of ['sqlite_schema', ...tables]) {
    const problems = (db.pragma(`quick_check("${table.replace(/"/g, '""')}")`) as Array<{ quick_check: string }>).map((row) => row.quick_check);
    if (problems.length === 1 && problems[0] === 'ok') continue;
    return `database disk image is malformed (quick_check of ${table}: ${problems.slice(0, 3).join('; ')})`;
  }
  return null;
}

export function schemaVersion(db: LedgerDb): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Runs every migration newer than the file's version, each in its own transaction. */
export function migrateLedger(
  db: LedgerDb,
  migrations: readonly Migration[],
  hooks: { beforeMigrating?: ((fromVersion: number, toVersion: number) => void) | undefined } = {},
): void {
  const known = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > known) throw new LedgerVersionError(current, known);
  if (current < known) hooks.beforeMigrating?.(current, known);
  for (const migration of migrations) {
    if (migration.version <= schemaVersion(db)) continue;
    // Outside the transaction: SQLite ignores a change of foreign_keys inside one.
    if (migration.rebuildsTables) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        db.exec(migration.sql);
        migration.run?.(db);
        if (migration.rebuildsTables) {
          const broken = db.pragma('foreign_key_check') as unknown[];
          if (broken.length > 0) throw new Error(`Migration ${migration.version} (${migration.name}) would break ${broken.length} foreign key(s).`);
        }
        db.pragma(`user_version = ${migration.version}`);
      }).immediate();
    } finally {
      if (migration.rebuildsTables) db.pragma('foreign_keys = ON');
    }
  }
}
