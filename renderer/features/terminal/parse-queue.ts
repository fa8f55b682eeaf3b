/**
 * Output waiting for the terminal, written to it within a parse budget per animation frame (issue
 * 15). xterm.js parses whatever it is given, so a flood written as it arrives piles up inside it where
 * nothing can be dropped, and the screen falls further behind with every batch. Here the bytes wait in
 * a queue of our own and go to the terminal one slice at a time, each sized to what is left of the
 * frame's budget at the measured parse speed (a cold terminal gets small slices, a warm one large);
 * output that finds the terminal idle goes at once. When the queue holds more than the screen would get through in
 * `maxQueuedMs` (a slice per frame, at the frame rate seen), the oldest bytes are dropped and a marker says how much was skipped; the screen goes
 * on from a recent tail.
 *
 * Dropped bytes are acknowledged as if parsed once the kept tail is in the terminal (the queue is down
 * to a frame's worth), not before: the core then has the whole window free at once and skips the
 * viewer forward at the source if it is still behind, instead of sending it a flood to throw away (on
 * a two-core machine, sending and receiving 32 MiB/s of doomed bytes costs more than parsing).
 */

/** Where a run's bytes go: the terminal. Kept abstract so the stream is tested without a DOM. */
export interface OutputSink {
  /** Draw `bytes`; call `parsed` once the terminal has parsed them (xterm.js's write callback). */
  write(bytes: Uint8Array, parsed: () => void): void;
  /** A line of the console's own (a marker), not counted as output. */
  writeNote(text: string): void;
  /** Clear everything, after whatever was written before has been parsed. */
  reset(): Promise<void>;
}

export interface QueuedBytes {
  bytes: Uint8Array;
  /** The offset of the first byte in the run's output. */
  offset: number;
  /** Bytes of a replay that was asked for are never dropped (the core never skips them either). */
  keep: boolean;
  /** Parsed by the terminal (`parsed`), or dropped unseen: frees the core's window for this many bytes. */
  ack: (bytes: number, parsed: boolean) => void;
}

type Entry =
  | ({ type: 'bytes' } & QueuedBytes)
  /** A line of the console's own; `skippedBytes` when it is the core's marker of a skip (merged into ours). */
  | { type: 'note'; text: string; skippedBytes?: number };

export interface FrameScheduler {
  request(callback: () => void): number;
  cancel(handle: number): void;
}

export interface ParseQueueOptions {
  frames?: FrameScheduler;
  now?: () => number;
  /** The share of a frame spent parsing; the rest is for drawing and the rest of the page. */
  frameBudgetMs?: number;
  /** More queued than the screen gets through in this long, and the oldest bytes are dropped. */
  maxQueuedMs?: number;
  /** The terminal's parse speed before any was measured (bytes per ms): a cold xterm.js does about 7 MB/s. */
  initialBytesPerMs?: number;
  /**
   * Bytes were dropped: the note to draw in their place. `coreSkippedBytes` are the core's own skips
   * among them, whose markers this one replaces.
   */
  onDropped: (droppedBytes: number, coreSkippedBytes: number) => string;
}

const browserFrames: FrameScheduler = {
  request: (callback) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(callback) : (setTimeout(callback, 16))),
  cancel: (handle) => (typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(handle) : clearTimeout(handle)),
};

/** The smallest slice: below it, the timer overhead of a write outweighs the parsing. */
const minSliceBytes = 4 * 1024;
const newline = 0x0a;
const noBytes = new Uint8Array(0);
/** How far into the kept tail to look for a line start to resume at. */
const lineStartSearchBytes = 4 * 1024;

export class ParseQueue {
  private entries: Entry[] = [];
  /** Acks of dropped bytes, held until the kept tail is written. */
  private droppedAcks: Array<() => void> = [];
  private queuedBytes = 0;
  private frame: number | null = null;
  private writing = false;
  private generation = 0;
  private bytesPerMs: number;
  /** Time between frames that wrote, as seen (a busy page draws fewer than 60 a second). */
  private frameIntervalMs = 1000 / 60;
  private lastFrameAt: number | null = null;
  /** Parse time spent since the frame began. */
  private spentMs = 0;
  private readonly frames: FrameScheduler;
  private readonly now: () => number;
  private readonly frameBudgetMs: number;
  private readonly maxQueuedMs: number;

  constructor(
    private readonly sink: OutputSink,
    private readonly options: ParseQueueOptions,
  ) {
    this.frames = options.frames ?? browserFrames;
    this.now = options.now ?? (() => performance.now());
    this.frameBudgetMs = options.frameBudgetMs ?? 8;
    this.maxQueuedMs = options.maxQueuedMs ?? 50;
    this.bytesPerMs = options.initialBytesPerMs ?? 7000;
  }

  /** Bytes not yet written to the terminal. */
  get pendingBytes(): number {
    return this.queuedBytes;
  }

  /** The terminal's measured parse speed, bytes per ms. */
  get parseSpeed(): number {
    return this.bytesPerMs;
  }

  push(bytes: QueuedBytes): void {
    if (bytes.bytes.byteLength === 0) return;
    this.entries.push({ type: 'bytes', ...bytes });
    this.queuedBytes += bytes.bytes.byteLength;
    this.next();
  }

  pushNote(text: string, skippedBytes?: number): void {
    this.entries.push(skippedBytes === undefined ? { type: 'note', text } : { type: 'note', text, skippedBytes });
    this.next();
  }

  /** An idle terminal with budget left in this frame gets new output now, not a frame later. */
  private next(): void {
    if (this.writing) this.schedule();
    else this.writeWithinBudget();
  }

  /** Forgets everything queued, unacknowledged (its subscription is gone), and any write in flight. */
  clear(): void {
    this.entries = [];
    this.droppedAcks = [];
    this.queuedBytes = 0;
    this.writing = false;
    this.generation += 1;
    if (this.frame !== null) this.frames.cancel(this.frame);
    this.frame = null;
  }

  private schedule(): void {
    if (this.frame !== null || this.entries.length === 0) return;
    this.frame = this.frames.request(() => {
      this.frame = null;
      this.onFrame();
    });
  }

  private onFrame(): void {
    const now = this.now();
    // Frames that follow each other measure the frame rate; after an idle spell the gap says nothing.
    if (this.lastFrameAt !== null && now - this.lastFrameAt < 250) this.frameIntervalMs = this.frameIntervalMs * 0.8 + Math.max(1000 / 60, now - this.lastFrameAt) * 0.2;
    this.lastFrameAt = now;
    this.spentMs = 0;
    // Dropping only ever happens here: a hidden tab gets no frames, acknowledges nothing, and the core
    // stops sending to it instead of flooding it with bytes to throw away.
    this.dropWhatCannotBeShownInTime();
    // Still parsing the last slice: its callback goes on with this frame's budget.
    if (this.writing) return;
    this.writeWithinBudget();
  }

  /** Parses up to the frame's budget, a slice at a time; what is left waits for the next frame. */
  private writeWithinBudget(): void {
    const left = this.frameBudgetMs - this.spentMs;
    if (left > 0 && this.entries.length > 0) {
      this.writeSlice(Math.max(minSliceBytes, Math.floor(this.bytesPerMs * left)));
      if (this.queuedBytes <= this.bytesPerMs * this.frameBudgetMs) this.releaseDroppedAcks();
    }
    this.schedule();
  }

  /**
   * Writes up to `budget` bytes as one slice and measures how long the terminal takes to parse it. A
   * note ends the slice (it is written right after the bytes before it, in order).
   */
  private writeSlice(budget: number): void {
    const parts: Array<{ bytes: Uint8Array; ack: QueuedBytes['ack'] }> = [];
    let size = 0;
    while (this.entries.length > 0 && size < budget) {
      const entry = this.entries[0]!;
      if (entry.type === 'note') {
        this.entries.shift();
        this.writeParts(parts, size);
        this.sink.writeNote(entry.text);
        if (parts.length > 0) return;
        continue;
      }
      const take = Math.min(entry.bytes.byteLength, budget - size);
      if (take === entry.bytes.byteLength) {
        this.entries.shift();
        parts.push({ bytes: entry.bytes, ack: entry.ack });
      } else {
        parts.push({ bytes: entry.bytes.subarray(0, take), ack: entry.ack });
        entry.bytes = entry.bytes.subarray(take);
        entry.offset += take;
      }
      this.queuedBytes -= take;
      size += take;
    }
    this.writeParts(parts, size);
  }

  /**
   * One write per entry (each has its own ack); the last one's callback ends the slice. The parse
   * time is measured from an empty write's callback, which xterm.js calls when it starts on the slice:
   * from the write call it would include the frame's painting and every other task before the parse,
   * and slices would shrink with each measurement.
   */
  private writeParts(parts: ReadonlyArray<{ bytes: Uint8Array; ack: QueuedBytes['ack'] }>, size: number): void {
    if (parts.length === 0) return;
    const generation = this.generation;
    let started = this.now();
    this.writing = true;
    this.sink.write(noBytes, () => {
      started = this.now();
    });
    parts.forEach((part, index) => {
      this.sink.write(part.bytes, () => {
        if (generation !== this.generation) return;
        part.ack(part.bytes.byteLength, true);
        if (index < parts.length - 1) return;
        this.writing = false;
        const elapsed = this.now() - started;
        this.spentMs += elapsed;
        this.measure(size, elapsed);
        this.writeWithinBudget();
      });
    });
  }

  private releaseDroppedAcks(): void {
    const acks = this.droppedAcks;
    this.droppedAcks = [];
    for (const ack of acks) ack();
  }

  private measure(bytes: number, elapsedMs: number): void {
    // Small slices say more about timer overhead than about parsing.
    if (bytes < minSliceBytes) return;
    const speed = bytes / Math.max(1, elapsedMs);
    this.bytesPerMs = this.bytesPerMs * 0.7 + speed * 0.3;
  }

  /**
   * Drops the oldest live bytes when what is queued would take the terminal longer than
   * `maxQueuedMs` to get through (one slice a frame), keeping a tail of two frames' worth that starts
   * at a line start.
   */
  private dropWhatCannotBeShownInTime(): void {
    const limit = ((this.bytesPerMs * this.frameBudgetMs) / this.frameIntervalMs) * this.maxQueuedMs;
    if (this.queuedBytes <= limit) return;
    let droppable = 0;
    for (const entry of this.entries) if (entry.type === 'bytes' && !entry.keep) droppable += entry.bytes.byteLength;
    const keepTail = Math.max(minSliceBytes, Math.floor(this.bytesPerMs * this.frameBudgetMs * 2));
    let toDrop = droppable - keepTail;
    if (toDrop <= 0) return;

    const kept: Entry[] = [];
    const droppedNotes: Entry[] = [];
    let dropped = 0;
    let coreSkipped = 0;
    let insertAt = -1;
    for (const entry of this.entries) {
      if (toDrop === 0) {
        kept.push(entry);
        continue;
      }
      if (entry.type === 'note') {
        if (insertAt < 0) {
          kept.push(entry);
        } else if (entry.skippedBytes !== undefined) {
          coreSkipped += entry.skippedBytes;
        } else {
          droppedNotes.push(entry);
        }
        continue;
      }
      if (entry.keep) {
        kept.push(entry);
        continue;
      }
      if (insertAt < 0) insertAt = kept.length;
      let cut = Math.min(entry.bytes.byteLength, toDrop);
      if (cut < entry.bytes.byteLength && entry.bytes[cut - 1] !== newline) {
        // Resume at a line start when one is near: the tail then begins with a whole line.
        const rest = entry.bytes.subarray(cut, cut + lineStartSearchBytes);
        const lineEnd = rest.indexOf(newline);
        if (lineEnd >= 0) cut += lineEnd + 1;
      }
      const { ack } = entry;
      const count = cut;
      this.droppedAcks.push(() => ack(count, false));
      dropped += cut;
      toDrop = Math.max(0, toDrop - cut);
      if (cut < entry.bytes.byteLength) {
        entry.bytes = entry.bytes.subarray(cut);
        entry.offset += cut;
        kept.push(entry);
        toDrop = 0;
      }
    }
    if (dropped === 0) return;
    this.queuedBytes -= dropped;
    const marker: Entry = { type: 'note', text: this.options.onDropped(dropped, coreSkipped) };
    kept.splice(insertAt, 0, marker, ...droppedNotes);
    this.entries = kept;
  }
}
