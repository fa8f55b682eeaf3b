import type BetterSqlite3 from 'better-sqlite3';
import { OutputTextExtractor, type OutputTextRow } from './output-text';
import { dropSearchIndexTriggers, searchIndexBackfill, searchIndexTriggers, searchTextTable } from './search-index-schema';

/**
 * Keeps the search index's output rows (search-index-schema.ts) as output is stored, on the output
 * writer's thread, in the same transaction as the output: the index never says a run printed what the
 * ledger does not hold, and the event loop never tokenizes. Loaded from source by the worker as a
 * plain module (output-writer.ts), so it imports only siblings that import nothing.
 *
 * Each run's output is indexed strictly in order, up to `indexed_end` (search_output_progress). The
 * row a run is still printing (no line end yet) is written too, so a search finds it at once, and
 * replaced as the row grows. A run whose stored output is ahead of its index (a ledger from before
 * the index, a rebuilt index, an extractor this thread forgot) is left to `catchUp`, which reads the
 * stored output a slice at a time; appends index it inline again once it has caught up.
 */

interface RunIndex {
  extractor: OutputTextExtractor;
  /** The row in progress as written, replaced at the next batch. */
  pendingRowId: number | null;
  touched: boolean;
}

/** Extractors kept in memory (one per run printing); a forgotten one is rebuilt from the ledger. */
const rememberedRuns = 256;

export interface CatchUpResult {
  indexedBytes: number;
  /** Output still not indexed, over every run; null when the step gave way (not counted then). */
  remainingBytes: number | null;
  /** An append came while the step ran: it was rolled back at once, for the append to go first. */
  yielded: boolean;
}

/**
 * A catch-up step reads its output this much at a time and, between slices, asks whether an append
 * waits: the step then gives way within some 0.1 ms of indexing, not after its whole 32 KiB.
 */
const catchUpSliceBytes = 4096;

/** Thrown inside a catch-up step's transaction to roll it back when an append waits. */
class StepYielded extends Error {}

export class SearchIndexWriter {
  private readonly runs = new Map<string, RunIndex>();
  private readonly insertRow;
  private insertTextStatement: BetterSqlite3.Statement<[number, string]> | undefined;
  private readonly deleteRow;
  private readonly deleteRowsFrom;
  private readonly progressOf;
  private readonly saveProgress;
  private readonly chunksFrom;
  private readonly runsBehind;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.insertRow = db.prepare("INSERT INTO search_rows (source, run_id, byte_offset, byte_end, created_at) VALUES ('output', ?, ?, ?, ?)");
    this.deleteRow = db.prepare('DELETE FROM search_rows WHERE id = ?');
    this.deleteRowsFrom = db.prepare("DELETE FROM search_rows WHERE run_id = ? AND source = 'output' AND byte_offset >= ?");
    this.progressOf = db.prepare<[string], { resume_offset: number; indexed_end: number }>(
      'SELECT resume_offset, indexed_end FROM search_output_progress WHERE run_id = ?',
    );
    this.saveProgress = db.prepare(
      `INSERT INTO search_output_progress (run_id, resume_offset, indexed_end) VALUES (?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET resume_offset = excluded.resume_offset, indexed_end = excluded.indexed_end`,
    );
    // The chunk holding `from` and those after it, in order.
    this.chunksFrom = db.prepare<[string, string, number, number], { byte_offset: number; bytes: Buffer; created_at: number }>(
      `SELECT byte_offset, bytes, created_at FROM output_chunks
       WHERE run_id = ? AND byte_offset >= coalesce((SELECT max(byte_offset) FROM output_chunks WHERE run_id = ? AND byte_offset <= ?), 0)
       ORDER BY byte_offset LIMIT ?`,
    );
    this.runsBehind = db.prepare<[], { run_id: string; indexed_end: number; output_end: number }>(
      `SELECT run_id, indexed_end, output_end FROM (
         SELECT r.id AS run_id, coalesce(p.indexed_end, 0) AS indexed_end,
           (SELECT byte_offset + length(bytes) FROM output_chunks c WHERE c.run_id = r.id ORDER BY byte_offset DESC LIMIT 1) AS output_end
         FROM runs r LEFT JOIN search_output_progress p ON p.run_id = r.id
       ) WHERE output_end > indexed_end`,
    );
  }

  /** Indexes a chunk just stored, when it continues what is indexed of its run. Inside the append's transaction. */
  indexChunk(runId: string, byteOffset: number, bytes: Uint8Array, createdAt: number): void {
    const run = this.runIndex(runId);
    if (run.extractor.consumedEnd !== byteOffset) return;
    this.read(runId, run, bytes, createdAt);
  }

  /** After a batch's chunks: each run's row in progress and progress, written. Inside the append's transaction. */
  finishBatch(): void {
    for (const [runId, run] of this.runs) {
      if (!run.touched) continue;
      run.touched = false;
      if (run.pendingRowId !== null) this.deleteRow.run(run.pendingRowId);
      run.pendingRowId = null;
      const pending = run.extractor.pending();
      if (pending) run.pendingRowId = this.writeRow(runId, pending);
      this.saveProgress.run(runId, run.extractor.resumeOffset, run.extractor.consumedEnd);
    }
  }

  /**
   * Indexes up to about `maxBytes` of stored output its run's index has not reached, in one
   * transaction. `appendWaiting` is asked between slices: when an append waits, the step is rolled
   * back and gives way (appends never wait on the index; the step is done again in the next quiet).
   */
  catchUp(maxBytes: number, appendWaiting: () => boolean = () => false): CatchUpResult {
    let budget = maxBytes;
    let indexedBytes = 0;
    const stepRuns = new Set<string>();
    try {
      this.db.transaction(() => {
        for (const behind of this.runsBehind.all()) {
          if (budget <= 0) break;
          stepRuns.add(behind.run_id);
          const run = this.runIndex(behind.run_id);
          for (;;) {
            const from = run.extractor.consumedEnd;
            const chunks = this.chunksFrom.all(behind.run_id, behind.run_id, from, 64);
            let progressed = false;
            for (const chunk of chunks) {
              const end = chunk.byte_offset + chunk.bytes.length;
              if (end <= run.extractor.consumedEnd) continue;
              if (chunk.byte_offset > run.extractor.consumedEnd) break; // a gap: never expected, never guessed over
              const bytes = chunk.bytes.subarray(run.extractor.consumedEnd - chunk.byte_offset);
              for (let at = 0; at < bytes.length && budget > 0; at += catchUpSliceBytes) {
                if (appendWaiting()) throw new StepYielded();
                const slice = bytes.subarray(at, Math.min(bytes.length, at + catchUpSliceBytes));
                this.read(behind.run_id, run, slice, chunk.created_at);
                indexedBytes += slice.length;
                budget -= slice.length;
              }
              progressed = true;
              if (budget <= 0) break;
            }
            if (!progressed || budget <= 0 || chunks.length < 64) break;
          }
        }
        this.finishBatch();
      })();
    } catch (error) {
      if (!(error instanceof StepYielded)) throw error;
      // The rolled-back step's readers are ahead of what the ledger now holds: made again next time.
      for (const runId of stepRuns) this.runs.delete(runId);
      return { indexedBytes: 0, remainingBytes: null, yielded: true };
    }
    let remainingBytes = 0;
    for (const behind of this.runsBehind.all()) remainingBytes += behind.output_end - behind.indexed_end;
    return { indexedBytes, remainingBytes, yielded: false };
  }

  /** Takes the output rows below `belowOffset` of a run whose output is being deleted from its start. */
  forgetOutput(runId: string, belowOffset: number, all: boolean): void {
    if (all) {
      this.db.prepare("DELETE FROM search_rows WHERE run_id = ? AND source = 'output'").run(runId);
      this.db.prepare('DELETE FROM search_output_progress WHERE run_id = ?').run(runId);
      this.runs.delete(runId);
    } else this.db.prepare("DELETE FROM search_rows WHERE run_id = ? AND source = 'output' AND byte_offset < ?").run(runId, belowOffset);
  }

  /**
   * Empties the index and makes it again: the FTS table afresh (a damaged one is dropped, not read),
   * the tasks', notices' and timelines' rows at once, the output by `catchUp` afterwards.
   */
  rebuild(): void {
    this.runs.clear();
    this.db.transaction(() => {
      this.db.exec(dropSearchIndexTriggers);
      this.db.exec('DROP TABLE IF EXISTS search_text;');
      this.db.exec('DELETE FROM search_rows; DELETE FROM search_output_progress;');
      this.db.exec(searchTextTable);
      this.db.exec(searchIndexTriggers);
      this.db.exec(searchIndexBackfill);
    })();
  }

  private read(runId: string, run: RunIndex, bytes: Uint8Array, createdAt: number): void {
    const rows: OutputTextRow[] = [];
    run.extractor.push(bytes, createdAt, rows);
    for (const row of rows) this.writeRow(runId, row);
    run.touched = true;
  }

  /**
   * Prepared when first used, not with the writer: on a ledger whose FTS table is missing, the
   * writer's thread must still start and store output (the index is rebuilt in the background).
   */
  private get insertText(): BetterSqlite3.Statement<[number, string]> {
    this.insertTextStatement ??= this.db.prepare<[number, string]>('INSERT INTO search_text (rowid, text) VALUES (?, ?)');
    return this.insertTextStatement;
  }

  private writeRow(runId: string, row: OutputTextRow): number {
    const id = Number(this.insertRow.run(runId, row.byteOffset, row.byteEnd, row.createdAt).lastInsertRowid);
    this.insertText.run(id, row.text);
    return id;
  }

  /**
   * The run's extractor: remembered, or made again from the ledger by reading the stored output from
   * where the index can resume (the row in progress, already written, is written again).
   */
  private runIndex(runId: string): RunIndex {
    const known = this.runs.get(runId);
    if (known) {
      // Most recently used last: the first one is the one to forget.
      this.runs.delete(runId);
      this.runs.set(runId, known);
      return known;
    }
    const progress = this.progressOf.get(runId);
    const resumeOffset = progress?.resume_offset ?? 0;
    const indexedEnd = progress?.indexed_end ?? 0;
    const run: RunIndex = { extractor: new OutputTextExtractor(resumeOffset), pendingRowId: null, touched: false };
    if (indexedEnd > resumeOffset) {
      this.deleteRowsFrom.run(runId, resumeOffset);
      // A row in progress is short, unless an escape sequence was being read (an image's payload).
      while (run.extractor.consumedEnd < indexedEnd) {
        const at = run.extractor.consumedEnd;
        for (const chunk of this.chunksFrom.all(runId, runId, at, 64)) {
          const start = Math.max(chunk.byte_offset, run.extractor.consumedEnd);
          const end = Math.min(chunk.byte_offset + chunk.bytes.length, indexedEnd);
          if (start < end && chunk.byte_offset <= start) this.read(runId, run, chunk.bytes.subarray(start - chunk.byte_offset, end - chunk.byte_offset), chunk.created_at);
        }
        if (run.extractor.consumedEnd === at) break; // the output below indexed_end is gone: start from here
      }
    }
    this.runs.set(runId, run);
    if (this.runs.size > rememberedRuns) {
      const oldest = this.runs.keys().next().value;
      // Its row in progress and progress are written; only a run touched in this batch must stay.
      if (oldest !== undefined && !this.runs.get(oldest)!.touched) this.runs.delete(oldest);
    }
    return run;
  }
}
