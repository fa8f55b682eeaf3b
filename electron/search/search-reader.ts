import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerModuleUrl } from '../platform/worker-module';
import type { SearchReaderReply, SearchReaderRequest, SearchReaderWorkerData } from './search-reader-protocol';
import type { SearchPage, SearchQuery } from './search-results';

export interface SearchReaderOptions {
  /** The ledger file, already opened and migrated by the main connection. */
  file: string;
  nativeBinding?: string | undefined;
}

/** Searching after close(): the console is shutting down. */
export class SearchReaderClosedError extends Error {
  readonly code = 'SEARCH_READER_CLOSED';
  constructor() {
    super('The search reader is closed.');
    this.name = 'SearchReaderClosedError';
  }
}

interface Pending {
  resolve: (page: SearchPage) => void;
  reject: (error: Error) => void;
}

/**
 * Runs search queries on a worker thread with its own read-only connection to the ledger
 * (search-reader-worker.ts), one at a time in the order asked. The worker starts with the first
 * search, so a console nobody searches costs no thread; close() ends it.
 */
export class SearchReader {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: SearchReaderOptions) {}

  /**
   * One page of ranked results. A failure SQLite reported comes back as better-sqlite3's SqliteError
   * with its code (SQLITE_CORRUPT…), as it would on this thread.
   */
  find(query: SearchQuery): Promise<SearchPage> {
    if (this.closing) return Promise.reject(new SearchReaderClosedError());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.started().postMessage({ type: 'find', id, query } satisfies SearchReaderRequest);
    });
  }

  /** Whether the worker is running (it starts with the first search). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Ends the worker once it has answered what it was asked; later searches are refused. */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage({ type: 'close' } satisfies SearchReaderRequest);
    });
    this.worker = undefined;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const data: SearchReaderWorkerData = { file: this.options.file, nativeBinding: this.options.nativeBinding, requireFrom: fileURLToPath(import.meta.url) };
    const worker = new Worker(workerModuleUrl('search-reader-worker', import.meta.url), { workerData: data });
    worker.on('message', (reply: SearchReaderReply) => this.answered(reply));
    // A worker that dies fails what it held; the next search starts a fresh one.
    const lost = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`The search reader stopped (exit code ${code}).`)));
    this.worker = worker;
    return worker;
  }

  private answered(reply: SearchReaderReply): void {
    if (reply.type === 'closed') return;
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (reply.type === 'found') pending.resolve(reply.page);
    else pending.reject(reply.sqliteCode === null ? new Error(reply.message) : new Database.SqliteError(reply.message, reply.sqliteCode));
  }

  private failAll(error: Error): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(error);
  }
}
