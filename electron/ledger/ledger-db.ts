import Database from 'better-sqlite3';
import { migrations as allMigrations, type Migration } from './migrations';

export type LedgerDb = Database.Database;

export interface OpenLedgerOptions {
  /**
   * Path to a better-sqlite3 addon built for this runtime. The desktop app passes the Electron-ABI copy
   * made at install time (see scripts/prepare-native.mjs); Node uses the package's own build.
   */
  nativeBinding?: string | undefined;
  /** Only tests pass this, to make a database as an earlier version of the console would have. */
  migrations?: readonly Migration[];
}

export class LedgerVersionError extends Error {
  constructor(found: number, known: number) {
    super(
      `The ledger was written by a newer Operator Console (schema ${found}; this one knows up to ${known}). ` +
        'Update the console, or point it at another data directory.',
    );
    this.name = 'LedgerVersionError';
  }
}

/** Opens (creating if needed) the ledger file and brings its schema up to date. */
export function openLedgerDb(file: string, options: OpenLedgerOptions = {}): LedgerDb {
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  try {
    // WAL lets the renderer's reads run beside the run writer; NORMAL is durable across app crashes
    // in WAL mode (only an OS crash can lose the last transactions), at a fraction of FULL's fsyncs.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrateLedger(db, options.migrations ?? allMigrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function schemaVersion(db: LedgerDb): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Runs every migration newer than the file's version, each in its own transaction. */
export function migrateLedger(db: LedgerDb, migrations: readonly Migration[]): void {
  const known = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > known) throw new LedgerVersionError(current, known);
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
