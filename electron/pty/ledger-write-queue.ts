import { isDiskFullError } from '../platform/disk-space';
import type { AppendOptions, OutputChunk } from '../ledger/output-repository';

/**
 * What the queue writes through: the output repository on this thread (returns once committed), or
 * the ledger's output writer on its worker thread (its promise settles once committed). One
 * transaction per call either way.
 */
export interface OutputAppender {
  appendChunks(chunks: readonly OutputChunk[], options?: AppendOptions): void | Promise<void>;
}


/** A transaction this large means the run prints faster than a trickle (a few ms of a flood's output). */
const floodTransactionBytes = 128 * 1024;

export interface LedgerWriteQueueOptions {
  appender: OutputAppender;
  /** The run's output offset of the first chunk this queue will see (what the ledger already holds). */
  startOffset: number;
  /** Bytes per transaction at most, so one write never holds the event loop for long. */
  maxTransactionBytes?: number;
  /** Wait this long before each transaction. Only tests and benchmarks set it, to play a slow disk. */
  writeDelayMs?: number;
  /** After each committed transaction. */
  onWritten: () => void;
  /** A transaction failed; the chunks stay queued and are retried. */
  onWriteError: (error: unknown) => void;
  /**
   * Writes have failed for `giveUpAfterMs` because the disk is full (or, once the input has ended,
   * for any reason): the queue stops writing. What was committed stays; the rest is not stored.
   */
  onGaveUp?: (error: unknown) => void;
  /** How long a failing write is retried before it is given up (see onGaveUp). */
  giveUpAfterMs?: number;
  /** How much of the newest committed output stays readable here too (see retainedOffset). */
  keepRecentBytes?: number;
}

const defaultMaxTransactionBytes = 4 * 1024 * 1024;
const firstRetryDelayMs = 50;
const maxRetryDelayMs = 2000;
const defaultGiveUpAfterMs = 3000;
/** Once the input has ended (a Stop, an exit), a failing write is given up after this long at most. */
const endedGiveUpAfterMs = 1000;
/**
 * A viewer that fell behind a flood resumes with the last 256 KiB (output-fanout.ts): kept here, that
 * tail is sent as the batches already in memory, not read back from SQLite on the event loop each time.
 */
const defaultKeepRecentBytes = 1024 * 1024;
/** ...in at most this many chunks (a trickle makes many small ones). */
const maxRecentChunks = 1024;
/** readQueued joins chunks smaller than this and hands larger ones over as they are. */
const joinBelowBytes = 32 * 1024;
const noBytes = new Uint8Array(0);

/**
 * Output chunks on their way to the ledger, written in transactions off the PTY's read path. Until a
 * chunk is committed it stays readable here, so a viewer can read any offset without a gap. The queue
 * itself does not refuse chunks: its owner keeps it bounded by pausing the PTY (see queuedBytes).
 */
export class LedgerWriteQueue {
  private readonly chunks: OutputChunk[] = [];
  /** The newest committed chunks, oldest first, still readable here: they end where `chunks` begin. */
  private recent: OutputChunk[] = [];
  private recentBytes = 0;
  private queued = 0;
  private written: number;
  private scheduled = false;
  /** A transaction handed to an asynchronous appender and not yet answered: at most one at a time. */
  private inFlight = false;
  private retryDelayMs = 0;
  /** When the current run of failed writes began; null while writes succeed. */
  private failingSince: number | null = null;
  private ended = false;
  private lost: { error: unknown } | null = null;
  private readonly maxTransactionBytes: number;
  private readonly writeDelayMs: number;
  private readonly keepRecentBytes: number;

  constructor(private readonly options: LedgerWriteQueueOptions) {
    this.written = options.startOffset;
    this.keepRecentBytes = options.keepRecentBytes ?? defaultKeepRecentBytes;
    this.maxTransactionBytes = options.maxTransactionBytes ?? defaultMaxTransactionBytes;
    this.writeDelayMs = options.writeDelayMs ?? 0;
  }

  /** Bytes waiting to be written. */
  get queuedBytes(): number {
    return this.queued;
  }

  /** The offset just past the last byte committed to the ledger. */
  get writtenOffset(): number {
    return this.written;
  }

  get isEmpty(): boolean {
    return this.chunks.length === 0;
  }

  /** The queue gave up writing (onGaveUp): nothing more will be stored. */
  get gaveUp(): boolean {
    return this.lost !== null;
  }

  /**
   * No more chunks will come (the PTY exited): from now on a write that keeps failing, for whatever
   * reason, is given up within a second, so an ending run (a Stop among them) never waits for long.
   */
  inputEnded(): void {
    this.ended = true;
  }

  /** Chunks must come in offset order without gaps, starting at the offset the queue is at. */
  enqueue(chunk: OutputChunk): void {
    if (this.lost) return;
    this.chunks.push(chunk);
    this.queued += chunk.bytes.length;
    this.schedule();
  }

  /**
   * Where the bytes readable here begin: the newest committed output is kept (up to
   * keepRecentBytes) besides what is queued. Everything before it is in the ledger.
   */
  get retainedOffset(): number {
    return this.recent[0]?.byteOffset ?? this.written;
  }

  /**
   * Contiguous bytes from `fromOffset` (at or past retainedOffset), up to maxBytes; maybe fewer. A
   * large chunk comes as a view of itself, never copied (a viewer catching up with a flood takes
   * them one by one); small ones are joined, so a trickle's tail is not a thousand messages.
   */
  readQueued(fromOffset: number, maxBytes: number): Uint8Array {
    const parts: Uint8Array[] = [];
    let next = fromOffset;
    let wanted = maxBytes;
    let joined = 0;
    for (let chunk = this.chunkAt(fromOffset); chunk && wanted > 0; chunk = this.chunkAt(next)) {
      const begin = next - chunk.byteOffset;
      const end = Math.min(chunk.bytes.length, begin + wanted);
      const part = chunk.bytes.subarray(begin, end);
      if (part.length >= joinBelowBytes && parts.length > 0) break;
      parts.push(part);
      joined += part.length;
      next += part.length;
      wanted -= part.length;
      if (joined >= joinBelowBytes) break;
    }
    if (parts.length === 0) return noBytes;
    if (parts.length === 1) return parts[0]!;
    return Buffer.concat(parts, joined);
  }

  /** The kept or queued chunk holding `offset` (binary search: a trickle keeps many small ones). */
  private chunkAt(offset: number): OutputChunk | undefined {
    const list = this.chunks.length > 0 && offset >= this.chunks[0]!.byteOffset ? this.chunks : this.recent;
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const chunk = list[middle]!;
      if (chunk.byteOffset + chunk.bytes.length <= offset) low = middle + 1;
      else high = middle;
    }
    const found = list[low];
    return found && found.byteOffset <= offset && offset < found.byteOffset + found.bytes.length ? found : undefined;
  }

  private schedule(): void {
    // While a transaction is in flight, chunks gather: the next one takes them all (up to the bound),
    // so a flood makes few transactions and a trickle is written as soon as it comes.
    if (this.scheduled || this.inFlight || this.lost || this.chunks.length === 0) return;
    this.scheduled = true;
    const delay = this.retryDelayMs || this.writeDelayMs;
    // setImmediate lets the PTY's pending reads run between transactions.
    if (delay > 0) setTimeout(() => this.writeNext(), delay);
    else setImmediate(() => this.writeNext());
  }

  private writeNext(): void {
    this.scheduled = false;
    let count = 0;
    let bytes = 0;
    while (count < this.chunks.length && (count === 0 || bytes + this.chunks[count]!.bytes.length <= this.maxTransactionBytes)) {
      bytes += this.chunks[count]!.bytes.length;
      count += 1;
    }
    let written: void | Promise<void>;
    try {
      // A flood (more waits, or this much gathered during the last transaction) is stored first and
      // indexed for search in the gaps; a trickle is indexed as it is stored.
      written = this.options.appender.appendChunks(this.chunks.slice(0, count), { behind: count < this.chunks.length || bytes >= floodTransactionBytes });
    } catch (error) {
      this.failed(error);
      return;
    }
    if (!written) {
      this.committed(count, bytes);
      return;
    }
    // The chunks stay queued (and readable) until the commit is confirmed.
    this.inFlight = true;
    written.then(
      () => {
        this.inFlight = false;
        this.committed(count, bytes);
      },
      (error: unknown) => {
        this.inFlight = false;
        this.failed(error);
      },
    );
  }

  private failed(error: unknown): void {
    // A full disk does not pass by itself while the run goes on writing: after a few seconds of it the
    // queue gives up, and its owner ends the run with what is stored.
    const now = Date.now();
    this.failingSince ??= now;
    const giveUpAfterMs = this.options.giveUpAfterMs ?? defaultGiveUpAfterMs;
    const limit = this.ended ? Math.min(giveUpAfterMs, endedGiveUpAfterMs) : giveUpAfterMs;
    if (now - this.failingSince >= limit && (this.ended || isDiskFullError(error))) {
      this.lost = { error };
      this.options.onGaveUp?.(error);
      return;
    }
    // Keep the chunks (the ledger is the record) and retry with backoff; meanwhile the queue grows
    // and its owner pauses the PTY, so a broken disk stalls the agent instead of losing output.
    this.retryDelayMs = Math.min(maxRetryDelayMs, this.retryDelayMs ? this.retryDelayMs * 2 : firstRetryDelayMs);
    this.options.onWriteError(error);
    this.schedule();
  }

  private keepRecent(done: OutputChunk[], bytes: number): void {
    if (this.keepRecentBytes <= 0) return;
    this.recent.push(...done);
    this.recentBytes += bytes;
    let drop = 0;
    while (drop < this.recent.length - 1 && (this.recentBytes - this.recent[drop]!.bytes.length >= this.keepRecentBytes || this.recent.length - drop > maxRecentChunks)) {
      this.recentBytes -= this.recent[drop]!.bytes.length;
      drop += 1;
    }
    if (drop > 0) this.recent = this.recent.slice(drop);
  }

  private committed(count: number, bytes: number): void {
    this.retryDelayMs = 0;
    this.failingSince = null;
    const done = this.chunks.splice(0, count);
    this.queued -= bytes;
    this.written += bytes;
    this.keepRecent(done, bytes);
    this.schedule();
    this.options.onWritten();
  }
}
