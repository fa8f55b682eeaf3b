/** The messages between the main thread and the output writer's worker (output-writer-worker.ts). */

export interface OutputWriterWorkerData {
  /** The ledger file; the main connection has opened and migrated it. */
  file: string;
  /** The better-sqlite3 addon for this runtime (the Electron-ABI copy in the desktop app). */
  nativeBinding?: string | undefined;
  /** A file path better-sqlite3 is required relative to (the worker may run from a data: URL). */
  requireFrom: string;
  /** The ledger's `journal_size_limit` (database-handle.ts walSizeLimitBytes), set on this connection too. */
  walSizeLimitBytes: number;
  /**
   * One Int32: appends handed over and not yet begun. The main thread adds one as it posts an append,
   * the worker takes one as it begins it; a search index catch-up step that sees it above zero gives way.
   */
  appendsWaiting: SharedArrayBuffer;
}

/** One chunk of an append: its bytes are the next `length` bytes of the request's buffer. */
export interface OutputWriterChunk {
  runId: string;
  attemptId: string | null;
  byteOffset: number;
  length: number;
  createdAt: number;
}

export type OutputWriterRequest =
  /** `bytes` is transferred, not copied: the chunks' bytes back to back. */
  | {
      type: 'append';
      id: number;
      chunks: OutputWriterChunk[];
      bytes: ArrayBuffer;
      /** Index the chunks for search now; false: the run is printing faster than it is stored (catch up later). */
      indexForSearch: boolean;
    }
  /** Checkpoint the WAL now (PASSIVE: never waits on readers). */
  | { type: 'checkpoint'; id: number }
  /**
   * Delete the run's first `maxBytes` of output still stored (one transaction), then checkpoint the WAL
   * (TRUNCATE): a slice of a deletion, small enough to fit the WAL on a nearly full disk.
   */
  | { type: 'deleteOutput'; id: number; runId: string; maxBytes: number }
  /**
   * Give up to `maxPages` free pages back to the disk (PRAGMA incremental_vacuum), then checkpoint the
   * WAL (TRUNCATE): the file shrinks by what the step moved out of its end, and the WAL is emptied.
   */
  | { type: 'reclaimStep'; id: number; maxPages: number }
  /** Index up to `maxBytes` of stored output the search index has not reached (search-index-writer.ts). */
  | { type: 'catchUpSearchIndex'; id: number; maxBytes: number }
  /** Empty the search index and make it again (its output in later catch-up steps), then one catch-up step. */
  | { type: 'rebuildSearchIndex'; id: number; maxBytes: number }
  | { type: 'close' };

export type OutputWriterReply =
  /**
   * Committed: the offset just past the request's last byte. `searchIndexError`: the output is stored
   * but the search index failed on it (and is left alone until rebuilt).
   */
  | { type: 'appended'; id: number; endOffset: number; searchIndexError?: string; searchIndexDeferred?: boolean }
  /**
   * A search index step done: `broken` when the index failed on an append since its last rebuild;
   * `yielded` when an append came meanwhile and the step gave way (rolled back, `remainingBytes` null).
   */
  | { type: 'searchIndexProgress'; id: number; indexedBytes: number; remainingBytes: number | null; broken: boolean; yielded: boolean }
  | { type: 'failed'; id: number; message: string }
  /** The WAL's frames, and how many of them are now in the database file. */
  | { type: 'checkpointed'; id: number; walFrames: number; checkpointedFrames: number }
  /** `rows` deleted; `more`: the run has output left. */
  | { type: 'outputDeleted'; id: number; rows: number; more: boolean }
  /**
   * One reclaim step done: the free pages left inside the file. `incremental` is false for a ledger
   * not (yet) in incremental auto-vacuum (nothing could be given back). `walEmptied` is false when a
   * reader kept the checkpoint from finishing (the file shrinks at a later one).
   */
  | { type: 'reclaimed'; id: number; freePages: number; pageSize: number; incremental: boolean; walEmptied: boolean }
  | { type: 'closed' };
