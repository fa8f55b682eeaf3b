import { readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { OutputWriterReply, OutputWriterRequest, OutputWriterWorkerData } from './output-writer-protocol';
import { SearchIndexWriter } from './search-index-writer';

/**
 * The ledger's output writer, on its own thread: the event loop that reads the PTYs only hands batches
 * over and hears back once they are committed, so an append (and the WAL checkpoint a commit may run)
 * never holds up a read.
 *
 * This file imports nothing but Node's built-ins and siblings that do the same (better-sqlite3 is
 * required from the path the main thread names): from source each runs as a transformed module with
 * nowhere to resolve packages from (output-writer.ts).
 * It opens its own connection with the ledger's pragmas and never migrates: the main connection did.
 */

const data = workerData as OutputWriterWorkerData;
/**
 * A little below the PTYs' reader (nice +5: about a third of its share of a busy core). In
 * bench/output-throughput.bench.ts this took the console with a viewer from 0.68-0.77 of raw node-pty
 * to 0.88-1.0; the writer still kept up with a 32 MiB/s flood beside Chromium drawing it (nice 10-19
 * gained no more and would starve it sooner).
 */
const writerNicenessAbove = 5;
lowerThreadPriority(writerNicenessAbove);
const Database = createRequire(data.requireFrom)('better-sqlite3') as typeof BetterSqlite3;
const db = new Database(data.file, data.nativeBinding ? { nativeBinding: data.nativeBinding, fileMustExist: true } : { fileMustExist: true });
// The same pragmas as ledger-db.ts (journal_mode is a property of the file, already WAL).
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
// This connection checkpoints the WAL (the main one never does: ledger.ts turns it off there), after
// its own commits once the WAL passes SQLite's usual 1000 pages, so a flood's WAL stays a few MiB and
// copying it into the database happens here, off the event loop.
db.pragma('wal_autocheckpoint = 1000');
// Once a checkpoint has reset the WAL, a WAL that grew past this (a reader held a checkpoint back
// during a flood) is cut back to it: the WAL never stays huge (ledger-db.ts sets the same).
db.pragma(`journal_size_limit = ${Math.floor(data.walSizeLimitBytes)}`);

const appendsWaiting = new Int32Array(data.appendsWaiting);
/** An append waits behind the step under way (the main thread counts them as it posts them). */
const appendWaiting = () => Atomics.load(appendsWaiting, 0) > 0;

const insert = db.prepare('INSERT INTO output_chunks (run_id, byte_offset, attempt_id, bytes, created_at) VALUES (?, ?, ?, ?, ?)');
// The search index's output rows are written in the append's transaction (search-index-writer.ts),
// in a savepoint of their own: an index that fails (damaged) never costs the output it was indexing.
// It is then left alone until the main thread has it rebuilt.
const searchIndex = new SearchIndexWriter(db);
let searchIndexBroken = false;
const indexAppend = db.transaction((request: Extract<OutputWriterRequest, { type: 'append' }>) => {
  let at = 0;
  for (const chunk of request.chunks) {
    searchIndex.indexChunk(chunk.runId, chunk.byteOffset, new Uint8Array(request.bytes, at, chunk.length), chunk.createdAt);
    at += chunk.length;
  }
  searchIndex.finishBatch();
});
const appendAll = db.transaction((request: Extract<OutputWriterRequest, { type: 'append' }>): { searchIndexError?: string; searchIndexDeferred?: boolean } => {
  let at = 0;
  for (const chunk of request.chunks) {
    // A view into the transferred buffer: better-sqlite3 binds a Buffer as a BLOB without another copy.
    insert.run(chunk.runId, chunk.byteOffset, chunk.attemptId, Buffer.from(request.bytes, at, chunk.length), chunk.createdAt);
    at += chunk.length;
  }
  if (searchIndexBroken) return {};
  if (!request.indexForSearch) return { searchIndexDeferred: true };
  try {
    indexAppend(request);
  } catch (error) {
    searchIndexBroken = true;
    return { searchIndexError: error instanceof Error ? error.message : String(error) };
  }
  return {};
});

// Deleting a run's output a slice at a time (the first maxBytes of what is left), so that each
// transaction's WAL stays small: on a nearly full disk the WAL is where a deletion needs room.
const deleteOutputSlice = db.prepare(
  'DELETE FROM output_chunks WHERE run_id = ? AND byte_offset < (SELECT min(byte_offset) FROM output_chunks WHERE run_id = ?) + ?',
);
const hasOutput = db.prepare('SELECT 1 FROM output_chunks WHERE run_id = ? LIMIT 1').pluck();

const outputStart = db.prepare('SELECT min(byte_offset) FROM output_chunks WHERE run_id = ?').pluck();
const deleteSlice = db.transaction((request: Extract<OutputWriterRequest, { type: 'deleteOutput' }>) => {
  const maxBytes = Math.max(1, Math.floor(request.maxBytes));
  const start = outputStart.get(request.runId) as number | null;
  const rows = deleteOutputSlice.run(request.runId, request.runId, maxBytes).changes;
  const more = hasOutput.get(request.runId) !== undefined;
  // The output's search rows go with it: never a result that opens output no longer there.
  if (!searchIndexBroken && start !== null) searchIndex.forgetOutput(request.runId, start + maxBytes, !more);
  return { rows, more };
});

function deleteOutputAndIndex(request: Extract<OutputWriterRequest, { type: 'deleteOutput' }>): OutputWriterReply {
  const { rows, more } = deleteSlice(request);
  checkpointTruncating();
  return { type: 'outputDeleted', id: request.id, rows, more };
}

/** TRUNCATE: every frame into the file (which then shrinks to its last used page) and the WAL emptied. */
function checkpointTruncating(): boolean {
  const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
  return (result?.busy ?? 1) === 0;
}

function reclaimStep(request: Extract<OutputWriterRequest, { type: 'reclaimStep' }>): OutputWriterReply {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  // 2 is INCREMENTAL; a ledger made before it was converted (ledger-space.ts) keeps its free pages.
  const incremental = db.pragma('auto_vacuum', { simple: true }) === 2;
  if (incremental && (db.pragma('freelist_count', { simple: true }) as number) > 0) {
    db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(request.maxPages))})`);
  }
  const walEmptied = checkpointTruncating();
  return { type: 'reclaimed', id: request.id, freePages: db.pragma('freelist_count', { simple: true }) as number, pageSize, incremental, walEmptied };
}

const port = parentPort!;
port.on('message', (request: OutputWriterRequest) => {
  if (request.type === 'close') {
    db.close();
    port.postMessage({ type: 'closed' } satisfies OutputWriterReply);
    port.close();
    return;
  }
  if (request.type === 'checkpoint') {
    let reply: OutputWriterReply;
    try {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
      reply = { type: 'checkpointed', id: request.id, walFrames: result?.log ?? 0, checkpointedFrames: result?.checkpointed ?? 0 };
    } catch (error) {
      reply = { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
    return;
  }
  if (request.type === 'catchUpSearchIndex' || request.type === 'rebuildSearchIndex') {
    let reply: OutputWriterReply;
    try {
      if (request.type === 'rebuildSearchIndex') {
        searchIndex.rebuild();
        searchIndexBroken = false;
      }
      const { indexedBytes, remainingBytes, yielded } = searchIndexBroken
        ? { indexedBytes: 0, remainingBytes: 0, yielded: false }
        : searchIndex.catchUp(request.maxBytes, appendWaiting);
      reply = { type: 'searchIndexProgress', id: request.id, indexedBytes, remainingBytes, broken: searchIndexBroken, yielded };
    } catch (error) {
      reply = { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
    return;
  }
  if (request.type === 'deleteOutput' || request.type === 'reclaimStep') {
    let reply: OutputWriterReply;
    try {
      if (request.type === 'reclaimStep') reply = reclaimStep(request);
      else reply = deleteOutputAndIndex(request);
    } catch (error) {
      reply = { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
    return;
  }
  Atomics.sub(appendsWaiting, 0, 1);
  let reply: OutputWriterReply;
  try {
    const search = appendAll(request);
    const last = request.chunks.at(-1);
    reply = { type: 'appended', id: request.id, endOffset: last ? last.byteOffset + last.length : 0, ...search };
  } catch (error) {
    reply = { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});

/**
 * This thread yields to the PTYs' readers: on a machine whose cores are all busy (a flood, a browser
 * drawing it) the agent's output and the event loop come first, and the writer catches up with its
 * queue (only the ledger may pause the PTY, and it does once 8 MiB wait). Linux gives each thread its
 * own nice value (setpriority on the thread's id); elsewhere the thread keeps the process's priority.
 */
function lowerThreadPriority(by: number): void {
  let threadId: number;
  try {
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return;
  }
  try {
    // Relative to what it started with (a console started under `nice` stays below it too).
    if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, Math.min(19, getPriority(threadId) + by));
  } catch {
    // Not allowed (a sandbox without setpriority): it runs at the process's priority instead.
  }
}

