import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AppendOptions, OutputChunk } from './output-repository';
import type { OutputWriterChunk, OutputWriterReply, OutputWriterRequest, OutputWriterWorkerData } from './output-writer-protocol';
import { walSizeLimitBytes } from './database-handle';
import { workerModuleUrl } from '../platform/worker-module';

export interface OutputWriterOptions {
  /** The ledger file, already opened and migrated by the main connection. */
  file: string;
  nativeBinding?: string | undefined;
}

/** Appending after close(): a stable code, so a caller can tell it from a failed transaction. */
export class OutputWriterClosedError extends Error {
  readonly code = 'LEDGER_WRITER_CLOSED';
  constructor() {
    super('The ledger output writer is closed.');
    this.name = 'OutputWriterClosedError';
  }
}

interface Pending {
  /** An append's end offset, to check the answer against; null for a checkpoint. */
  endOffset: number | null;
  resolve: (reply: OutputWriterReply) => void;
  reject: (error: Error) => void;
}

export interface CheckpointResult {
  walFrames: number;
  checkpointedFrames: number;
}

export interface OutputSliceDeleted {
  rows: number;
  /** The run has output left to delete. */
  more: boolean;
}

export interface ReclaimStepResult {
  /** Free pages left inside the file. */
  freePages: number;
  pageSize: number;
  /** False for a ledger not in incremental auto-vacuum: nothing can be given back step by step. */
  incremental: boolean;
  /** False when a reader kept the checkpoint from finishing: the file shrinks at a later one. */
  walEmptied: boolean;
}

export interface SearchIndexProgress {
  indexedBytes: number;
  /** Stored output the index has not reached yet, over every run; null when the step gave way. */
  remainingBytes: number | null;
  /** The index failed on an append since it was last rebuilt: it needs a rebuild. */
  broken: boolean;
  /** An append came while the step ran: it gave way (rolled back) for the append to go first. */
  yielded: boolean;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Appends output chunks through a worker thread with its own connection to the ledger file (WAL lets
 * it write beside the main connection's reads). Each append is one transaction; its promise settles
 * once the worker has committed it (or failed to). The worker starts on the first append, so a ledger
 * that never stores output (most tests) costs no thread.
 */
export class OutputWriter {
  private worker: Worker | undefined;
  /** Appends posted to the worker and not yet begun there (output-writer-protocol.ts `appendsWaiting`). */
  private appendsWaiting = new Int32Array(new SharedArrayBuffer(4));
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing: Promise<void> | undefined;
  private settledListeners: Array<() => void> = [];
  private searchIndexFailedListener: ((message: string) => void) | undefined;
  private searchIndexDeferredListener: (() => void) | undefined;
  /** When the last append was handed over (Date.now()): the search index catches up once appends pause. */
  lastAppendAt = 0;

  constructor(private readonly options: OutputWriterOptions) {}

  /**
   * Appends in one transaction; resolves once committed. The chunks' own buffers are left alone.
   * `behind`: more output waits, so the search index is left to catch up later (search-index-upkeep.ts).
   */
  appendChunks(chunks: readonly OutputChunk[], options: AppendOptions = {}): Promise<void> {
    if (this.closing) return Promise.reject(new OutputWriterClosedError());
    if (chunks.length === 0) return Promise.resolve();
    this.lastAppendAt = Date.now();
    let total = 0;
    for (const chunk of chunks) total += chunk.bytes.length;
    // One buffer of the batch's bytes, which is then transferred (not cloned) to the worker. The
    // queue's own chunks cannot go themselves: viewers read them until they are committed, and a
    // transfer would detach them (and any pooled Buffer sharing their memory).
    const packed = new Uint8Array(total);
    const meta: OutputWriterChunk[] = [];
    let at = 0;
    for (const chunk of chunks) {
      packed.set(chunk.bytes, at);
      at += chunk.bytes.length;
      meta.push({ runId: chunk.runId, attemptId: chunk.attemptId, byteOffset: chunk.byteOffset, length: chunk.bytes.length, createdAt: chunk.createdAt });
    }
    const last = chunks.at(-1)!;
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { endOffset: last.byteOffset + last.bytes.length, resolve: () => resolve(), reject });
      const request: OutputWriterRequest = { type: 'append', id, chunks: meta, bytes: packed.buffer, indexForSearch: !options.behind };
      const worker = this.started();
      // Counted before it is posted, so a catch-up step under way gives way to it (output-writer-worker.ts).
      Atomics.add(this.appendsWaiting, 0, 1);
      worker.postMessage(request, [packed.buffer]);
    });
  }

  /** Whether the worker is running (it starts with the first append). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Checkpoints the WAL on the worker's connection (PASSIVE), after the appends handed over before it. */
  checkpoint(): Promise<CheckpointResult> {
    return this.ask({ type: 'checkpoint' }, 'checkpointed').then((reply) => ({ walFrames: reply.walFrames, checkpointedFrames: reply.checkpointedFrames }));
  }

  /**
   * Deletes the first `maxBytes` of the run's stored output in one transaction on the worker, then
   * empties the WAL; answers how many chunks went and whether any is left (ledger-space.ts loops).
   */
  deleteOutputSlice(runId: string, maxBytes: number): Promise<OutputSliceDeleted> {
    return this.ask({ type: 'deleteOutput', runId, maxBytes }, 'outputDeleted').then((reply) => ({ rows: reply.rows, more: reply.more }));
  }

  /** Gives up to `maxPages` of the ledger's free pages back to the disk, on the worker (ledger-space.ts loops). */
  reclaimStep(maxPages: number): Promise<ReclaimStepResult> {
    return this.ask({ type: 'reclaimStep', maxPages }, 'reclaimed').then(({ freePages, pageSize, incremental, walEmptied }) => ({ freePages, pageSize, incremental, walEmptied }));
  }

  /** Indexes up to `maxBytes` of stored output the search index has not reached, on the worker. */
  catchUpSearchIndex(maxBytes: number): Promise<SearchIndexProgress> {
    return this.ask({ type: 'catchUpSearchIndex', maxBytes }, 'searchIndexProgress').then(searchIndexProgress);
  }

  /** Empties the search index and makes it again on the worker (output: the first `maxBytes`, then catch-up steps). */
  rebuildSearchIndex(maxBytes: number): Promise<SearchIndexProgress> {
    return this.ask({ type: 'rebuildSearchIndex', maxBytes }, 'searchIndexProgress').then(searchIndexProgress);
  }

  /** Hears when the search index failed on an append (the output itself was stored). */
  onSearchIndexFailed(listener: (message: string) => void): void {
    this.searchIndexFailedListener = listener;
  }

  /** Hears when an append left the search index behind its run (the upkeep catches it up). */
  onSearchIndexDeferred(listener: () => void): void {
    this.searchIndexDeferredListener = listener;
  }

  /** Settles once no append is waiting to be committed (the search index catches up in such gaps). */
  async appendsSettled(): Promise<void> {
    while ([...this.pending.values()].some((entry) => entry.endOffset !== null)) {
      await new Promise<void>((resolve) => this.settledListeners.push(resolve));
    }
  }

  /** Sends a request other than an append, after those handed over before it, and waits for its answer. */
  private ask<R extends Exclude<OutputWriterRequest, { type: 'append' | 'close' }>, T extends OutputWriterReply['type']>(
    request: DistributiveOmit<R, 'id'>,
    answer: T,
  ): Promise<Extract<OutputWriterReply, { type: T }>> {
    if (this.closing) return Promise.reject(new OutputWriterClosedError());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        endOffset: null,
        resolve: (reply) => (reply.type === answer ? resolve(reply as Extract<OutputWriterReply, { type: T }>) : reject(new Error(`unexpected reply ${reply.type}`))),
        reject,
      });
      this.started().postMessage({ ...request, id });
    });
  }

  /** Waits for every append handed over so far to be committed, then closes the worker's connection. */
  close(): Promise<void> {
    this.closing ??= this.drainAndStop();
    return this.closing;
  }

  /** Stops the worker now (appends still in flight fail). For a synchronous ledger close. */
  terminate(): void {
    this.closing ??= Promise.resolve();
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new OutputWriterClosedError());
    if (worker) void worker.terminate();
  }

  private async drainAndStop(): Promise<void> {
    while (this.pending.size > 0) await new Promise<void>((resolve) => this.settledListeners.push(resolve));
    const worker = this.worker;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage({ type: 'close' } satisfies OutputWriterRequest);
    });
    this.worker = undefined;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // A fresh count for a fresh worker: appends a dead one never began are failed, not waiting.
    this.appendsWaiting = new Int32Array(new SharedArrayBuffer(4));
    const data: OutputWriterWorkerData = {
      appendsWaiting: this.appendsWaiting.buffer,
      file: this.options.file,
      nativeBinding: this.options.nativeBinding,
      requireFrom: fileURLToPath(import.meta.url),
      walSizeLimitBytes,
    };
    const worker = new Worker(outputWriterWorkerEntry(), { workerData: data });
    worker.on('message', (reply: OutputWriterReply) => this.answered(reply));
    // A worker that dies fails what it held; the next append starts a fresh one (the queue retries).
    const lost = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      this.failAll(error);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`The ledger output writer stopped (exit code ${code}).`)));
    this.worker = worker;
    return worker;
  }

  private answered(reply: OutputWriterReply): void {
    if (reply.type === 'closed') return;
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (reply.type === 'failed') pending.reject(new Error(reply.message));
    else if (reply.type === 'appended' && reply.endOffset !== pending.endOffset) {
      pending.reject(new Error(`The ledger output writer committed up to ${reply.endOffset}, not ${pending.endOffset}.`));
    } else pending.resolve(reply);
    if (reply.type === 'appended' && reply.searchIndexError !== undefined) this.searchIndexFailedListener?.(reply.searchIndexError);
    if (reply.type === 'appended' && reply.searchIndexDeferred) this.searchIndexDeferredListener?.();
    this.notifySettled();
  }

  private failAll(error: Error): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(error);
    this.notifySettled();
  }

  private notifySettled(): void {
    const listeners = this.settledListeners;
    this.settledListeners = [];
    for (const listener of listeners) listener();
  }
}

function searchIndexProgress(reply: Extract<OutputWriterReply, { type: 'searchIndexProgress' }>): SearchIndexProgress {
  return { indexedBytes: reply.indexedBytes, remainingBytes: reply.remainingBytes, broken: reply.broken, yielded: reply.yielded };
}

/** The worker's module (platform/worker-module.ts): output-writer-worker.ts, from source or built. */
export function outputWriterWorkerEntry(here: string = import.meta.url): URL {
  return workerModuleUrl('output-writer-worker', here);
}
