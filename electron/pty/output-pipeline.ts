import type { StreamRedactor } from '../platform/secret-redaction';
import type { OutputRepository, OutputSlice } from '../ledger/output-repository';
import type { Logger } from '../platform/log';
import { LedgerWriteQueue, type OutputAppender } from './ledger-write-queue';
import type { OutputBatch, OutputFeed } from './output-feed';
import type { PtyExit, PtySession } from './pty-session';

/** What the pipeline needs of a PTY session. */
export type PtyOutputSource = Pick<PtySession, 'onData' | 'onExit' | 'pause' | 'resume'>;

export interface OutputPipelineOptions {
  runId: string;
  attemptId: string | null;
  session: PtyOutputSource;
  output: Pick<OutputRepository, 'read' | 'totalBytes'>;
  /**
   * Where the output is appended: the ledger's output writer (`ledger.outputWriter`, a worker thread,
   * so appends and checkpoints never hold up the PTY's reads). `output` is only read from.
   */
  writer: OutputAppender;
  /** Where this attempt's output starts in the run; defaults to what the ledger already holds. */
  startOffset?: number;
  /** A batch is cut this long after its first byte... */
  batchDelayMs?: number;
  /** ...or as soon as it holds this many bytes. */
  batchMaxBytes?: number;
  /** Above this many bytes waiting for the ledger the PTY is paused... */
  highWatermarkBytes?: number;
  /** ...and below this many it resumes. */
  lowWatermarkBytes?: number;
  maxTransactionBytes?: number;
  /** Only tests and benchmarks set this: a ledger that takes this long before each transaction. */
  writeDelayMs?: number;
  /**
   * Cuts the secrets delivered to the run out of its bytes before anything else sees them (batches,
   * the ledger, viewers, the timeline). It may hold back the end of a read that could be the start of
   * a secret until the next read or the exit; offsets count the redacted bytes.
   */
  redactor?: StreamRedactor | null;
  /**
   * The ledger could not store the output (a full disk) and gave up: what was committed stays, the
   * rest is dropped. The owner stops the process; the pipeline finishes once it has exited.
   */
  onStorageLost?: (error: unknown) => void;
  /** How long a failing write is retried before it is given up (LedgerWriteQueue's giveUpAfterMs). */
  giveUpAfterMs?: number | undefined;
  log?: Logger;
}

export interface OutputPipelineResult {
  exit: PtyExit;
  /** The run's output size once this attempt ended (offset just past its last byte). */
  endOffset: number;
  /** Why the ledger gave up storing this attempt's output (then `endOffset` is what it stored), or null. */
  storageFailure: { error: unknown } | null;
}

export interface OutputPipelineStats {
  bytes: number;
  batches: number;
  /** Times the PTY was paused because the ledger queue passed its high watermark. */
  pauses: number;
  resumes: number;
  maxQueuedBytes: number;
}

const kib = 1024;
const mib = 1024 * kib;

/**
 * One attempt's live output: PTY bytes are batched, given their offsets in the run, queued for the
 * ledger and offered to viewers through `feed`. Only the ledger queue can pause the PTY; viewers get a
 * read-only feed and never slow the agent down (DESIGN.md section 5).
 */
export class OutputPipeline {
  readonly runId: string;
  /** Hand this to the fanout: it reads and follows the output but holds no handle on the PTY. */
  readonly feed: OutputFeed;

  private readonly queue: LedgerWriteQueue;
  private readonly batchDelayMs: number;
  private readonly batchMaxBytes: number;
  private readonly highWatermarkBytes: number;
  private readonly lowWatermarkBytes: number;
  private readonly batchListeners = new Set<(batch: OutputBatch) => void>();
  private readonly endListeners = new Set<() => void>();
  private batchParts: Buffer[] = [];
  private batchBytes = 0;
  private batchTimer: NodeJS.Timeout | undefined;
  private liveEnd: number;
  private paused = false;
  private storageLost: { error: unknown } | null = null;
  private exit: PtyExit | null = null;
  private result: OutputPipelineResult | null = null;
  private readonly finished: Promise<OutputPipelineResult>;
  private resolveFinished!: (result: OutputPipelineResult) => void;
  private readonly counters: OutputPipelineStats = { bytes: 0, batches: 0, pauses: 0, resumes: 0, maxQueuedBytes: 0 };

  constructor(private readonly options: OutputPipelineOptions) {
    this.runId = options.runId;
    this.batchDelayMs = options.batchDelayMs ?? 4;
    this.batchMaxBytes = options.batchMaxBytes ?? 64 * kib;
    this.highWatermarkBytes = options.highWatermarkBytes ?? 8 * mib;
    this.lowWatermarkBytes = Math.min(options.lowWatermarkBytes ?? 2 * mib, this.highWatermarkBytes);
    this.liveEnd = options.startOffset ?? options.output.totalBytes(options.runId);
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.queue = new LedgerWriteQueue({
      appender: options.writer,
      startOffset: this.liveEnd,
      ...(options.maxTransactionBytes !== undefined ? { maxTransactionBytes: options.maxTransactionBytes } : {}),
      ...(options.writeDelayMs !== undefined ? { writeDelayMs: options.writeDelayMs } : {}),
      onWritten: () => this.afterWrite(),
      onWriteError: (error) =>
        options.log?.warn('Writing run output to the ledger failed; retrying', { runId: this.runId, error: String(error) }),
      onGaveUp: (error) => this.lostStorage(error),
      ...(options.giveUpAfterMs !== undefined ? { giveUpAfterMs: options.giveUpAfterMs } : {}),
    });
    this.feed = this.makeFeed();
    options.session.onData((bytes) => this.take(bytes));
    options.session.onExit((exit) => this.ptyExited(exit));
  }

  /** Resolves when the PTY has exited and every byte it produced is in the ledger. */
  whenFinished(): Promise<OutputPipelineResult> {
    return this.finished;
  }

  onFinished(listener: (result: OutputPipelineResult) => void): () => void {
    let active = true;
    void this.finished.then((result) => active && listener(result));
    return () => {
      active = false;
    };
  }

  stats(): OutputPipelineStats {
    return { ...this.counters };
  }

  /** The offset just past the last byte produced so far. */
  get liveOffset(): number {
    return this.liveEnd;
  }

  private take(raw: Buffer): void {
    if (this.storageLost) return;
    const bytes = this.options.redactor ? this.options.redactor.push(raw) : raw;
    if (bytes.length === 0) return;
    this.batchParts.push(bytes);
    this.batchBytes += bytes.length;
    if (this.batchBytes >= this.batchMaxBytes) this.cutBatch();
    else this.batchTimer ??= setTimeout(() => this.cutBatch(), this.batchDelayMs);
  }

  private cutBatch(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.batchBytes === 0 || this.storageLost) return;
    const bytes = this.batchParts.length === 1 ? this.batchParts[0]! : Buffer.concat(this.batchParts, this.batchBytes);
    this.batchParts = [];
    this.batchBytes = 0;
    const offset = this.liveEnd;
    // The queue and liveEnd move together, before viewers hear of the batch, so a viewer that reads
    // in response sees ledger + queue covering exactly [0, liveEnd).
    this.queue.enqueue({ runId: this.runId, attemptId: this.options.attemptId, byteOffset: offset, bytes, createdAt: Date.now() });
    this.liveEnd += bytes.length;
    this.counters.bytes += bytes.length;
    this.counters.batches += 1;
    this.counters.maxQueuedBytes = Math.max(this.counters.maxQueuedBytes, this.queue.queuedBytes);
    if (!this.paused && this.queue.queuedBytes >= this.highWatermarkBytes) {
      this.paused = true;
      this.counters.pauses += 1;
      this.options.session.pause();
    }
    const batch: OutputBatch = { runId: this.runId, offset, bytes };
    for (const listener of this.batchListeners) {
      try {
        listener(batch);
      } catch (error) {
        // A viewer's bug must not cost the run its output.
        this.options.log?.warn('An output listener failed', { runId: this.runId, error: String(error) });
      }
    }
  }

  /** The queue gave up: nothing more is stored, the PTY reads on (and drops) so that its process can exit. */
  private lostStorage(error: unknown): void {
    this.storageLost = { error };
    this.options.log?.error('Run output can no longer be stored; the run is ended', { runId: this.runId, stored: this.queue.writtenOffset, error: String(error) });
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    this.batchParts = [];
    this.batchBytes = 0;
    if (this.paused) {
      this.paused = false;
      this.options.session.resume();
    }
    try {
      this.options.onStorageLost?.(error);
    } catch (listenerError) {
      this.options.log?.warn('A storage-lost listener failed', { runId: this.runId, error: String(listenerError) });
    }
    this.finishIfDone();
  }

  private afterWrite(): void {
    if (this.paused && this.queue.queuedBytes <= this.lowWatermarkBytes) {
      this.paused = false;
      this.counters.resumes += 1;
      this.options.session.resume();
    }
    this.finishIfDone();
  }

  private ptyExited(exit: PtyExit): void {
    this.exit = exit;
    // What the redactor held back was not the start of a secret after all: the output ended there.
    const tail = this.options.redactor?.flush();
    if (tail && tail.length > 0) {
      this.batchParts.push(tail);
      this.batchBytes += tail.length;
    }
    this.cutBatch();
    this.queue.inputEnded();
    this.finishIfDone();
  }

  private finishIfDone(): void {
    if (!this.exit || this.result) return;
    if (!this.storageLost && (!this.queue.isEmpty || this.batchBytes > 0)) return;
    this.result = this.storageLost
      ? { exit: this.exit, endOffset: this.queue.writtenOffset, storageFailure: this.storageLost }
      : { exit: this.exit, endOffset: this.liveEnd, storageFailure: null };
    for (const listener of this.endListeners) {
      try {
        listener();
      } catch (error) {
        this.options.log?.warn('An output end listener failed', { runId: this.runId, error: String(error) });
      }
    }
    this.endListeners.clear();
    this.batchListeners.clear();
    this.resolveFinished(this.result);
  }

  private read(fromOffset: number, maxBytes: number): OutputSlice {
    const start = Math.max(0, fromOffset);
    const end = Math.min(this.liveEnd, start + Math.max(0, maxBytes));
    if (start >= end) return { bytes: new Uint8Array(0), fromOffset: start, nextOffset: start };
    const retained = this.queue.retainedOffset;
    if (start < retained) {
      // Before what the queue keeps, the bytes are in the ledger (synchronous, like the queue's own).
      return this.options.output.read(this.runId, start, Math.min(end, retained) - start);
    }
    const bytes = this.queue.readQueued(start, end - start);
    return { bytes, fromOffset: start, nextOffset: start + bytes.length };
  }

  private makeFeed(): OutputFeed {
    // A plain object of closures rather than `this`, so a viewer cannot reach the session through it.
    const ended = () => this.result !== null;
    return {
      runId: this.runId,
      liveOffset: () => this.liveEnd,
      read: (fromOffset, maxBytes) => this.read(fromOffset, maxBytes),
      onBatch: (listener) => {
        if (this.result) return () => {};
        this.batchListeners.add(listener);
        return () => this.batchListeners.delete(listener);
      },
      onEnd: (listener) => {
        if (this.result) {
          queueMicrotask(listener);
          return () => {};
        }
        this.endListeners.add(listener);
        return () => this.endListeners.delete(listener);
      },
      get ended() {
        return ended();
      },
    };
  }
}
