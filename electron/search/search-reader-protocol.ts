import type { SearchPage, SearchQuery } from './search-results';

/** The messages between the main thread and the search reader's worker (search-reader-worker.ts). */

export interface SearchReaderWorkerData {
  /** The ledger file; the main connection has opened and migrated it. */
  file: string;
  /** The better-sqlite3 addon for this runtime (the Electron-ABI copy in the desktop app). */
  nativeBinding?: string | undefined;
  /** A file path better-sqlite3 is required relative to (the worker may run from a data: URL). */
  requireFrom: string;
}

export type SearchReaderRequest = { type: 'find'; id: number; query: SearchQuery } | { type: 'close' };

export type SearchReaderReply =
  | { type: 'found'; id: number; page: SearchPage }
  /** `sqliteCode`: SQLite's code when SQLite refused (SQLITE_CORRUPT: the index is damaged), else null. */
  | { type: 'failed'; id: number; message: string; sqliteCode: string | null }
  | { type: 'closed' };
