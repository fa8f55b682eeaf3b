import type { Ledger } from '../ledger/ledger';
import { dropSearchIndexTriggers } from '../ledger/search-index-schema';
import type { SearchIndexProgress } from '../ledger/output-writer';
import type { Logger } from '../platform/log';
import type { SearchIndexState } from '../../shared/search';

/**
 * Output indexed per step on the writer's thread (a few milliseconds on a large index). An append
 * that comes meanwhile does not wait for the step: the step rolls back and gives way within a 4 KiB
 * slice (ledger/search-index-writer.ts), so this only bounds the work such a step throws away.
 */
const catchUpStepBytes = 32 * 1024;
/**
 * A step starts only once no append was handed over for this long: while a flood goes on, the writer
 * is the run's alone (with catch-up steps between its appends, bench/output-throughput.bench.ts fell
 * from 0.9 to 0.35 of raw node-pty and the PTY was paused), and the index catches up after it, once
 * no run has stored anything for a second.
 */
const writerQuietMs = 1000;
/**
 * While a run is going, the upkeep rests three times as long as each step took after it, so it takes at
 * most a quarter of a core: the agent (a build, its tests) finds the machine's cores its own (with the
 * catch-up running flat out between floods, bench/output-throughput.bench.ts fell from about 0.9 to
 * 0.5 of raw node-pty). With no run going there is nobody to leave the cores to, and it does not rest:
 * a flood's index is complete about four times sooner once its run has ended
 * (bench/search-catch-up.bench.ts). A run that starts meanwhile stops it at its first append (the
 * step gives way) and finds it resting from the next step on.
 */
const restPerStepTime = 3;

/**
 * Brings the search index up to the stored output in the background: at start (a ledger from before
 * the index, output stored while indexing failed), after a flood stored faster than it could be
 * indexed (the storing comes first), and after a rebuild (a damaged index). The work is done a step
 * at a time on the output writer's thread (ledger/search-index-writer.ts), each when no append waits,
 * and a step an append arrives during gives way to it; search says the index is incomplete, and how
 * far it has got, meanwhile. bench/search-catch-up.bench.ts measures what it costs a flood.
 */
export class SearchIndexUpkeep {
  private working: Promise<void> | null = null;
  private rebuildWanted = false;
  /** More output fell behind while the last steps ran: go on once they end. */
  private again = false;
  private rebuilding = false;
  private closed = false;
  private indexedBytes = 0;
  private remainingBytes = 0;

  /**
   * @param runsGoing whether any run is being driven now (the run service's answer; a ledger alone,
   *   as in the benchmarks, says none).
   */
  constructor(
    private readonly ledger: Ledger,
    private readonly log: Logger,
    private readonly runsGoing: () => boolean = () => false,
  ) {
    ledger.outputWriter.onSearchIndexFailed((message) => {
      this.log.warn('The search index failed on stored output; it is rebuilt in the background', { sqliteMessage: message });
      this.rebuild();
    });
    // A run printing faster than the writer stores it with its index: caught up in the gaps.
    ledger.outputWriter.onSearchIndexDeferred(() => this.work());
  }

  /**
   * Starts catching up when stored output is ahead of the index (a cheap look on this thread first),
   * or making the index again when it is missing. A ledger whose output cannot be read is the
   * console's to report when the output is read (ledger_damaged): here it only means no catch-up.
   */
  start(): void {
    try {
      if (!this.indexExists()) {
        // At once, on this thread: until the rebuild, nothing may fail for want of the table.
        this.ledger.db.exec(dropSearchIndexTriggers);
        this.rebuild();
      } else if (this.outputBehind()) this.work();
    } catch (error) {
      this.log.warn('Could not tell whether the search index is up to date; it is not brought up to date this time', { error });
    }
  }

  /** Empties the index and makes it again from the ledger, in the background. */
  rebuild(): void {
    this.rebuildWanted = true;
    this.work();
  }

  state(): SearchIndexState {
    const complete = this.working === null && !this.rebuildWanted;
    return { complete, rebuilding: this.rebuilding || this.rebuildWanted, indexedBytes: this.indexedBytes, remainingBytes: complete ? 0 : this.remainingBytes };
  }

  /** Waits for the step under way (the writer closes after it). */
  async close(): Promise<void> {
    this.closed = true;
    await this.working;
  }

  /** Settles once the index has caught up (tests, the benchmark). */
  async caughtUp(): Promise<void> {
    while (this.working) await this.working;
  }

  private work(): void {
    if (this.working) this.again = true;
    if (this.closed || this.working) return;
    this.again = false;
    this.working = this.catchUp()
      .catch((error: unknown) => this.log.warn('The search index could not be brought up to date; search may miss output until the next start', { error }))
      .finally(() => {
        this.working = null;
        this.rebuilding = false;
        if ((this.rebuildWanted || this.again) && !this.closed) this.work();
      });
  }

  private async catchUp(): Promise<void> {
    this.indexedBytes = 0;
    for (;;) {
      await this.writerQuiet();
      if (this.closed) return;
      let progress: SearchIndexProgress;
      if (this.rebuildWanted) {
        this.rebuildWanted = false;
        this.rebuilding = true;
        this.indexedBytes = 0;
        this.log.info('Rebuilding the search index');
        progress = await this.ledger.outputWriter.rebuildSearchIndex(catchUpStepBytes);
      } else {
        const stepStarted = Date.now();
        progress = await this.ledger.outputWriter.catchUpSearchIndex(catchUpStepBytes);
        if (this.runsGoing()) await new Promise((resolve) => setTimeout(resolve, (Date.now() - stepStarted) * restPerStepTime));
      }
      // A step that gave way to an append is done again once the writer is quiet again.
      if (progress.yielded) continue;
      this.indexedBytes += progress.indexedBytes;
      this.remainingBytes = progress.remainingBytes ?? this.remainingBytes;
      if (progress.broken) {
        this.rebuildWanted = true;
        continue;
      }
      if (progress.remainingBytes === 0 || progress.indexedBytes === 0) return;
    }
  }

  private indexExists(): boolean {
    return this.ledger.db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'search_text'").get() !== undefined;
  }

  /** Settles once the writer has had no append for `writerQuietMs` and none is waiting. */
  private async writerQuiet(): Promise<void> {
    const writer = this.ledger.outputWriter;
    for (;;) {
      await writer.appendsSettled();
      const quiet = Date.now() - writer.lastAppendAt;
      if (quiet >= writerQuietMs || this.closed) return;
      await new Promise((resolve) => setTimeout(resolve, writerQuietMs - quiet));
    }
  }

  /** Whether any run's stored output is ahead of its index. */
  private outputBehind(): boolean {
    const row = this.ledger.db
      .prepare(
        `SELECT 1 FROM runs r LEFT JOIN search_output_progress p ON p.run_id = r.id
         WHERE (SELECT byte_offset + length(bytes) FROM output_chunks c WHERE c.run_id = r.id ORDER BY byte_offset DESC LIMIT 1) > coalesce(p.indexed_end, 0)
         LIMIT 1`,
      )
      .get();
    return row !== undefined;
  }
}
