import type { LedgerDb } from './database-handle';

/** A run's raw PTY bytes starting at `byteOffset` (offsets count from the run's first byte, across attempts). */
export interface AppendOptions {
  /**
   * More output waits behind this transaction: the run prints faster than it is stored, so the
   * search index leaves these bytes to its background catch-up (ledger/search-index-writer.ts)
   * rather than slow the storing down.
   */
  behind?: boolean;
}

export interface OutputChunk {
  runId: string;
  attemptId: string | null;
  byteOffset: number;
  bytes: Uint8Array;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/** Contiguous output: `bytes` are the run's bytes from `fromOffset` up to (not including) `nextOffset`. */
export interface OutputSlice {
  bytes: Uint8Array;
  fromOffset: number;
  nextOffset: number;
}

interface ChunkRow {
  byte_offset: number;
  bytes: Buffer;
}

interface ChunkPlaceRow {
  byte_offset: number;
  length: number;
  attempt_id: string | null;
}

const empty = new Uint8Array(0);

/** The output_chunks table: every byte a run's PTY produced, in order, exactly as produced. */
export class OutputRepository {
  private readonly insert;
  private readonly selectFrom;
  private readonly selectEnd;
  private readonly selectChunkAt;

  constructor(private readonly db: LedgerDb) {
    this.insert = db.prepare('INSERT INTO output_chunks (run_id, byte_offset, attempt_id, bytes, created_at) VALUES (?, ?, ?, ?, ?)');
    // The chunk holding `from` (the last one starting at or before it), then every chunk up to `to`;
    // both lookups walk the (run_id, byte_offset) primary key.
    this.selectFrom = db.prepare(
      `SELECT byte_offset, bytes FROM output_chunks
       WHERE run_id = @runId
         AND byte_offset >= coalesce((SELECT max(byte_offset) FROM output_chunks WHERE run_id = @runId AND byte_offset <= @from), 0)
         AND byte_offset < @to
       ORDER BY byte_offset`,
    );
    this.selectEnd = db.prepare(
      'SELECT byte_offset + length(bytes) AS end_offset FROM output_chunks WHERE run_id = ? ORDER BY byte_offset DESC LIMIT 1',
    );
    // length() of a BLOB comes from the record header: the chunk's bytes are not read.
    this.selectChunkAt = db.prepare(
      `SELECT byte_offset, length(bytes) AS length, attempt_id FROM output_chunks
       WHERE run_id = ? AND byte_offset <= ? ORDER BY byte_offset DESC LIMIT 1`,
    );
  }

  /** Appends chunks in one transaction: either all of them are in the ledger afterwards or none is. */
  appendChunks(chunks: readonly OutputChunk[]): void {
    if (chunks.length === 0) return;
    this.db.transaction(() => {
      for (const chunk of chunks) {
        // better-sqlite3 binds Buffers as BLOBs; wrap (not copy) a plain Uint8Array.
        const bytes = Buffer.isBuffer(chunk.bytes)
          ? chunk.bytes
          : Buffer.from(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.bytes.byteLength);
        this.insert.run(chunk.runId, chunk.byteOffset, chunk.attemptId, bytes, chunk.createdAt);
      }
    })();
  }

  /**
   * Up to `maxBytes` of the run's output from `fromOffset`, exactly: a chunk that starts before
   * `fromOffset` is sliced. Stops early at the end of the output (or at a hole, which a healthy
   * ledger never has), so `nextOffset` is where the next read continues.
   */
  read(runId: string, fromOffset: number, maxBytes: number): OutputSlice {
    const start = Math.max(0, fromOffset);
    if (maxBytes <= 0) return { bytes: empty, fromOffset: start, nextOffset: start };
    const rows = this.selectFrom.all({ runId, from: start, to: start + maxBytes }) as ChunkRow[];
    const parts: Buffer[] = [];
    let next = start;
    for (const row of rows) {
      const rowEnd = row.byte_offset + row.bytes.length;
      if (rowEnd <= next) continue; // the chunk before `fromOffset` ends before it
      if (row.byte_offset > next) break; // a hole: return only what is contiguous
      const begin = next - row.byte_offset;
      const end = Math.min(row.bytes.length, begin + (start + maxBytes - next));
      parts.push(row.bytes.subarray(begin, end));
      next += end - begin;
      if (next - start >= maxBytes) break;
    }
    const bytes = parts.length === 1 ? parts[0]! : parts.length === 0 ? empty : Buffer.concat(parts);
    return { bytes, fromOffset: start, nextOffset: next };
  }

  /** The run's output size in bytes: the offset just past its last stored byte. */
  totalBytes(runId: string): number {
    const row = this.selectEnd.get(runId) as { end_offset: number } | undefined;
    return row?.end_offset ?? 0;
  }

  /**
   * Where each attempt's output begins: the offset of its first byte, or null when it wrote none.
   * `attemptIds` are the run's attempts in order.
   *
   * The run service appends one attempt's chunks after the previous attempt's, so attempts follow
   * each other in the byte stream in their order, and each boundary is found by bisecting the run's
   * offsets with lookups on the (run_id, byte_offset) key: a few dozen of them, however long the
   * output. There is no index on attempt_id, so grouping the chunks by attempt would read every one
   * of a long run's chunks, and the run detail asks for this whenever the run changes. A chunk of no
   * listed attempt (only tests write them) counts as coming before the first.
   */
  firstOffsets(runId: string, attemptIds: readonly string[]): Array<number | null> {
    const rank = new Map(attemptIds.map((id, index) => [id, index]));
    const total = this.totalBytes(runId);
    const chunkAt = (offset: number) => {
      const row = this.selectChunkAt.get(runId, offset) as ChunkPlaceRow | undefined;
      return row && { start: row.byte_offset, end: row.byte_offset + row.length, rank: row.attempt_id === null ? -1 : (rank.get(row.attempt_id) ?? -1) };
    };
    const firsts: Array<number | null> = [];
    // Every attempt starts at or after where the previous boundary was found.
    let from = 0;
    for (let index = 0; index < attemptIds.length; index += 1) {
      // The first chunk start in [from, total) whose attempt is this one or a later one.
      let low = from;
      let high = total;
      while (low < high) {
        const middle = Math.floor((low + high) / 2);
        const chunk = chunkAt(middle);
        if (chunk && chunk.rank >= index) high = chunk.start;
        else low = Math.max(middle + 1, chunk?.end ?? 0);
      }
      const chunk = low < total ? chunkAt(low) : undefined;
      const found = chunk !== undefined && chunk.start === low && chunk.rank === index;
      firsts.push(found ? low : null);
      from = low;
    }
    return firsts;
  }

  /** The last `maxBytes` of the run's output (what a terminal shows first when it opens a run). */
  tail(runId: string, maxBytes: number): OutputSlice {
    const total = this.totalBytes(runId);
    return this.read(runId, Math.max(0, total - maxBytes), maxBytes);
  }
}
