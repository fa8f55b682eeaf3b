import type { AttemptStart } from '../../shared/entities';
import type { OutputRepository, OutputSlice } from '../ledger/output-repository';
import type { Logger } from '../platform/log';
import type { OutputBatch, OutputFeed } from './output-feed';

/** Where one of a run's attempts begins in its output (see attemptStarts in runs/attempt-output.ts). */
export interface AttemptStartAt extends AttemptStart {
  offset: number;
}

/** What a viewer of a run's output receives, in order. */
export type OutputMessage =
  /** The run's bytes from `offset`; the next output message starts where this one ends. */
  | { type: 'output'; runId: string; offset: number; bytes: Uint8Array }
  /**
   * The viewer fell behind and the bytes from `fromOffset` to `toOffset` were not sent (they are in
   * the ledger). The next output message starts at `toOffset`.
   */
  | { type: 'skipped'; runId: string; fromOffset: number; toOffset: number; skippedBytes: number }
  /**
   * An attempt begins at `offset`: sent before any byte at or after `offset`, and never inside an
   * output message (a replayed slice that would span attempts is cut there). An attempt that began
   * before where the viewer started is not sent; one that began in bytes skipped over is sent just
   * after the skip.
   */
  | ({ type: 'attempt'; runId: string } & AttemptStartAt);

export interface SubscribeOutputOptions {
  runId: string;
  /**
   * Where to start: an offset into the run's output (clamped to what exists), or 'tail' for the last
   * `tailBytes` of it. Everything from there up to the live end is replayed, then the viewer follows live.
   */
  fromOffset: number | 'tail';
  /**
   * Where to stop: a page of the output, [fromOffset, untilOffset), replayed and not followed live
   * (a terminal's scrollback holds so much; older output is read a page at a time).
   */
  untilOffset?: number;
  /** How many sent bytes may be unacknowledged before the viewer stops being sent anything. */
  windowBytes?: number;
  /**
   * How long a sent byte may go unacknowledged while live output waits before the viewer counts as
   * behind (a terminal parsing slower than the run writes), whatever room its window has left.
   */
  maxLagMs?: number;
  /** With fromOffset 'tail': how much of the end to start with. */
  tailBytes?: number;
  /** Called synchronously; the transport serialises it. Throwing closes the subscription. */
  send: (message: OutputMessage) => void;
}

export interface OutputSubscription {
  /** Where the replay starts (the tail's start, or the clamped offset asked for). */
  readonly fromOffset: number;
  /** The run's output size when the viewer subscribed. */
  readonly liveEnd: number;
  /** Where a page ends (untilOffset, clamped to what exists), or null when the viewer follows live. */
  readonly untilOffset: number | null;
  /** The viewer has parsed this many more bytes (xterm.js's write callback); frees window. */
  ack(bytesParsed: number): void;
  close(): void;
}

export interface OutputFanoutOptions {
  output: Pick<OutputRepository, 'read' | 'totalBytes'>;
  log?: Logger;
  /** The largest output message when replaying; live batches are sent as they were cut. */
  maxMessageBytes?: number;
  /**
   * Where the run's attempts begin, in order. Asked when a viewer subscribes and when the run service
   * says an attempt started (attemptStarted); without it viewers get bytes only.
   */
  attemptStarts?: (runId: string) => readonly AttemptStartAt[];
  /** The clock lag is measured with (milliseconds); tests pass their own. */
  now?: () => number;
}

const kib = 1024;
/**
 * What a viewer may have unacknowledged. Bytes in flight wait in socket buffers for a page that parses
 * slower than the run writes, so this bounds how late they arrive: 512 KiB is about 16 ms of a 32 MiB/s
 * flood and 50 ms of a screen parsing 10 MB/s. With 2 MiB the screen lagged up to 390 ms behind a
 * flood (bench/renderer-lag.bench.ts), almost all of it before the page saw the bytes.
 */
export const defaultWindowBytes = 512 * kib;
const defaultTailBytes = 256 * kib;
/**
 * A terminal acknowledges every 16 ms or so once it has parsed; a byte still unacknowledged after
 * this long means the screen is that far behind the run, and waiting longer only makes it worse.
 */
const defaultMaxLagMs = 50;

interface Viewer {
  readonly runId: string;
  readonly windowBytes: number;
  readonly maxLagMs: number;
  /** After falling behind, the viewer resumes with this much of the end of the output. */
  readonly catchUpBytes: number;
  /**
   * Sent and not yet acknowledged, oldest first: how many bytes had been sent in all once each
   * message was, and when (counted in bytes sent, not offsets, which jump at a skip).
   */
  readonly inFlight: Array<{ sentUpTo: number; sentAt: number }>;
  /** Bytes sent to the viewer in all. */
  sentTotal: number;
  readonly send: (message: OutputMessage) => void;
  /** The next offset to send. */
  cursor: number;
  /** The live end when the viewer subscribed: everything before it was asked for and is never skipped. */
  readonly replayEnd: number;
  /** A page's end: nothing at or after it is sent. Null when the viewer follows live. */
  readonly until: number | null;
  unacked: number;
  /** The window ran out while following live output: the next send starts with a skip forward. */
  behind: boolean;
  /** The highest attempt whose start was sent to the viewer, or lay before where it started. */
  attemptsPassed: number;
  started: boolean;
  sending: boolean;
  closed: boolean;
}

interface RunViewers {
  feed: OutputFeed | undefined;
  detachFeed: (() => void) | undefined;
  viewers: Set<Viewer>;
  /** Where the run's attempts begin, as last asked. */
  attemptStarts: readonly AttemptStartAt[];
}

/**
 * Sends runs' output to viewers (DESIGN.md section 5). Each viewer replays from the ledger, then
 * follows live, within its own window of unacknowledged bytes. A viewer that uses up its window is
 * simply not sent anything more: nothing is buffered for it and nothing waits for it, so the run goes
 * on at full speed. When it has room again it is told how much it missed and gets the recent tail.
 */
export class OutputFanout {
  private readonly runs = new Map<string, RunViewers>();
  private readonly maxMessageBytes: number;
  private readonly now: () => number;

  constructor(private readonly options: OutputFanoutOptions) {
    this.maxMessageBytes = options.maxMessageBytes ?? 256 * kib;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Follows a live run's output until it ends. Viewers of the run (already subscribed or later) read
   * through the feed while the run is live, and from the ledger once it has ended.
   */
  attachLive(feed: OutputFeed): () => void {
    const run = this.run(feed.runId);
    run.detachFeed?.();
    let stopBatches = () => {};
    let stopEnd = () => {};
    const detach = () => {
      stopBatches();
      stopEnd();
      if (run.feed !== feed) return;
      run.feed = undefined;
      run.detachFeed = undefined;
      this.forgetIfUnused(feed.runId, run);
    };
    run.feed = feed;
    run.detachFeed = detach;
    stopBatches = feed.onBatch((batch) => this.publish(run, batch));
    // Once the run has ended every byte is in the ledger, which is where viewers read from then.
    stopEnd = feed.onEnd(detach);
    return detach;
  }

  /**
   * A new attempt of the run has started (its row is in the ledger; its output, if any, follows):
   * viewers are told where it begins before they are sent any of its bytes.
   */
  attemptStarted(runId: string): void {
    const run = this.runs.get(runId);
    if (!run) return;
    this.loadAttemptStarts(runId, run);
    for (const viewer of run.viewers) this.pump(viewer);
  }

  subscribe(options: SubscribeOutputOptions): OutputSubscription {
    const run = this.run(options.runId);
    this.loadAttemptStarts(options.runId, run);
    const liveEnd = this.liveEnd(options.runId, run);
    const windowBytes = Math.max(1, options.windowBytes ?? defaultWindowBytes);
    const requested = options.fromOffset === 'tail' ? liveEnd - (options.tailBytes ?? defaultTailBytes) : options.fromOffset;
    const cursor = Number.isFinite(requested) ? Math.min(Math.max(0, Math.floor(requested)), liveEnd) : liveEnd;
    const until = options.untilOffset === undefined ? null : Math.min(Math.max(cursor, Math.floor(options.untilOffset)), liveEnd);
    const viewer: Viewer = {
      runId: options.runId,
      windowBytes,
      maxLagMs: options.maxLagMs ?? defaultMaxLagMs,
      // The tail a new viewer opens with (or half the window, if that is smaller): enough for the
      // screen and well beyond, and quick for a terminal to parse, so it is current again at once.
      catchUpBytes: Math.max(1, Math.min(defaultTailBytes, Math.floor(windowBytes / 2))),
      inFlight: [],
      sentTotal: 0,
      send: options.send,
      cursor,
      until,
      replayEnd: until ?? liveEnd,
      unacked: 0,
      behind: false,
      // An attempt that began before what the viewer asked for is not its to mark; one that begins
      // exactly there is (its separator comes first).
      attemptsPassed: run.attemptStarts.reduce((passed, start) => (start.offset < cursor ? start.attempt.number : passed), 0),
      started: false,
      sending: false,
      closed: false,
    };
    run.viewers.add(viewer);
    // Start on a microtask so that `send` may already use the subscription this call returns.
    queueMicrotask(() => {
      viewer.started = true;
      this.pump(viewer);
    });
    return {
      fromOffset: viewer.cursor,
      liveEnd,
      untilOffset: until,
      ack: (bytesParsed) => {
        if (viewer.closed || !(bytesParsed > 0)) return;
        viewer.unacked = Math.max(0, viewer.unacked - bytesParsed);
        const parsedUpTo = viewer.sentTotal - viewer.unacked;
        let done = 0;
        while (done < viewer.inFlight.length && viewer.inFlight[done]!.sentUpTo <= parsedUpTo) done += 1;
        if (done > 0) viewer.inFlight.splice(0, done);
        this.pump(viewer);
      },
      close: () => this.close(viewer),
    };
  }

  private run(runId: string): RunViewers {
    let run = this.runs.get(runId);
    if (!run) {
      run = { feed: undefined, detachFeed: undefined, viewers: new Set(), attemptStarts: [] };
      this.runs.set(runId, run);
    }
    return run;
  }

  private loadAttemptStarts(runId: string, run: RunViewers): void {
    if (!this.options.attemptStarts) return;
    try {
      run.attemptStarts = this.options.attemptStarts(runId);
    } catch (error) {
      // Separators are a convenience; the bytes still flow without new ones.
      this.options.log?.warn('Could not read where the run’s attempts begin', { runId, error: String(error) });
    }
  }

  /** The first attempt start the viewer has not been sent yet. */
  private nextAttemptStart(viewer: Viewer): AttemptStartAt | undefined {
    return this.runs.get(viewer.runId)?.attemptStarts.find((start) => start.attempt.number > viewer.attemptsPassed);
  }

  /** Sends the attempt starts at or before the viewer's cursor, in order. */
  private sendAttemptStarts(viewer: Viewer): void {
    for (let start = this.nextAttemptStart(viewer); start && start.offset <= viewer.cursor && !viewer.closed; start = this.nextAttemptStart(viewer)) {
      viewer.attemptsPassed = start.attempt.number;
      this.deliver(viewer, { type: 'attempt', runId: viewer.runId, ...start });
    }
  }

  private liveEnd(runId: string, run: RunViewers | undefined): number {
    return run?.feed ? run.feed.liveOffset() : this.options.output.totalBytes(runId);
  }

  private read(viewer: Viewer, maxBytes: number): OutputSlice {
    const feed = this.runs.get(viewer.runId)?.feed;
    return feed ? feed.read(viewer.cursor, maxBytes) : this.options.output.read(viewer.runId, viewer.cursor, maxBytes);
  }

  private publish(run: RunViewers, batch: OutputBatch): void {
    for (const viewer of run.viewers) {
      const fits = viewer.unacked + batch.bytes.length <= viewer.windowBytes && !this.lagging(viewer);
      // An attempt that begins inside or before this batch goes the slow way, so its start comes first.
      const nextStart = this.nextAttemptStart(viewer);
      const noStartInBatch = nextStart === undefined || nextStart.offset >= batch.offset + batch.bytes.length;
      if (viewer.until !== null) continue;
      if (viewer.started && !viewer.sending && !viewer.behind && viewer.cursor === batch.offset && fits && noStartInBatch) {
        // Following live with room: send the batch as it is, without reading it back.
        viewer.cursor += batch.bytes.length;
        this.sent(viewer, batch.bytes.length);
        this.deliver(viewer, { type: 'output', runId: viewer.runId, offset: batch.offset, bytes: batch.bytes });
      } else {
        this.pump(viewer);
      }
    }
  }

  /** Sends the viewer what it is owed from its cursor, as far as its window allows. */
  private pump(viewer: Viewer): void {
    // An ack from inside `send` lands here; the outer loop sees the room it made.
    if (!viewer.started || viewer.sending || viewer.closed) return;
    viewer.sending = true;
    try {
      while (!viewer.closed) {
        // Before any byte at the cursor (and right after a skip past them): the attempts that begin here.
        this.sendAttemptStarts(viewer);
        if (viewer.closed) break;
        const end = viewer.until ?? this.liveEnd(viewer.runId, this.runs.get(viewer.runId));
        if (viewer.cursor >= end) break;
        const room = viewer.windowBytes - viewer.unacked;
        if (viewer.behind) {
          // Wait until the whole catch-up tail fits and the screen has parsed what it was sent,
          // rather than trickling it out an ack at a time.
          if (room < viewer.catchUpBytes || this.lagging(viewer)) break;
          viewer.behind = false;
          const resumeAt = Math.max(viewer.cursor, end - viewer.catchUpBytes);
          if (resumeAt > viewer.cursor) {
            const fromOffset = viewer.cursor;
            viewer.cursor = resumeAt;
            this.deliver(viewer, { type: 'skipped', runId: viewer.runId, fromOffset, toOffset: resumeAt, skippedBytes: resumeAt - fromOffset });
          }
          continue;
        }
        const following = viewer.cursor >= viewer.replayEnd;
        if (room <= 0 || (following && this.lagging(viewer))) {
          // Replay was asked for and is finite, so it just waits for acks; falling behind live output
          // (out of window, or too long without parsing what it has) is what gets skipped.
          if (following) viewer.behind = true;
          break;
        }
        // A slice stops where the next attempt begins, even when the ledger holds both in one read.
        const nextStart = this.nextAttemptStart(viewer);
        const untilStart = nextStart && nextStart.offset > viewer.cursor ? nextStart.offset - viewer.cursor : Infinity;
        const slice = this.read(viewer, Math.min(room, this.maxMessageBytes, untilStart, end - viewer.cursor));
        if (slice.bytes.length === 0) break;
        viewer.cursor = slice.nextOffset;
        this.sent(viewer, slice.bytes.length);
        this.deliver(viewer, { type: 'output', runId: viewer.runId, offset: slice.fromOffset, bytes: slice.bytes });
      }
    } finally {
      viewer.sending = false;
    }
  }

  /** `bytes` more went out to the viewer. */
  private sent(viewer: Viewer, bytes: number): void {
    viewer.unacked += bytes;
    viewer.sentTotal += bytes;
    viewer.inFlight.push({ sentUpTo: viewer.sentTotal, sentAt: this.now() });
  }

  /** The oldest byte the viewer has not parsed was sent more than maxLagMs ago. */
  private lagging(viewer: Viewer): boolean {
    const oldest = viewer.inFlight[0];
    return oldest !== undefined && this.now() - oldest.sentAt > viewer.maxLagMs;
  }

  private deliver(viewer: Viewer, message: OutputMessage): void {
    const wasSending = viewer.sending;
    viewer.sending = true;
    try {
      viewer.send(message);
    } catch (error) {
      this.options.log?.warn('An output viewer failed; closing it', { runId: viewer.runId, error: String(error) });
      this.close(viewer);
    } finally {
      viewer.sending = wasSending;
    }
    // Acks that arrived inside `send` on the live path may have made room for more.
    if (!wasSending && !viewer.closed && viewer.unacked < viewer.windowBytes) this.pump(viewer);
  }

  private close(viewer: Viewer): void {
    if (viewer.closed) return;
    viewer.closed = true;
    const run = this.runs.get(viewer.runId);
    if (!run) return;
    run.viewers.delete(viewer);
    this.forgetIfUnused(viewer.runId, run);
  }

  private forgetIfUnused(runId: string, run: RunViewers): void {
    if (!run.feed && run.viewers.size === 0 && this.runs.get(runId) === run) this.runs.delete(runId);
  }
}
