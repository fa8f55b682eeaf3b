import type Database from 'better-sqlite3';

/**
 * The ledger's open SQLite database, and what every connection to it shares. A leaf: the repositories,
 * migrations, backups and the output writer take a handle, and ledger-db.ts (which opens it) uses them,
 * so the handle's type cannot live in ledger-db.ts without an import cycle.
 */
export type LedgerDb = Database.Database;

/** What a WAL is cut back to once a checkpoint has reset it. */
export const walSizeLimitBytes = 8 * 1024 * 1024;
