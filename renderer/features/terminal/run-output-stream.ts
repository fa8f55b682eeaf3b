import type { ChannelOutput, EventPayload, OperatorApi } from '../../../shared/contract';
import { AckBatcher } from './ack-batcher';
import { attemptSeparator, earlierOutputMarker, skippedMarker } from './output-markers';
import { ParseQueue, type FrameScheduler, type OutputSink } from './parse-queue';

export type OutputApi = Pick<OperatorApi, 'openRunOutput' | 'ackRunOutput' | 'closeRunOutput' | 'subscribe'>;
export type OpenedOutput = ChannelOutput<'openRunOutput'>;

type OutputEvent =
  | { type: 'output'; payload: EventPayload<'runOutput'> }
  | { type: 'skipped'; payload: EventPayload<'runOutputSkipped'> }
  | { type: 'attempt'; payload: EventPayload<'runOutputAttempt'> };

export interface RunOutputStreamOptions {
  ackIntervalMs?: number;
  /** The viewer fell behind and was skipped forward; the total skipped so far. */
  onSkipped?: (totalSkippedBytes: number) => void;
  timers?: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'>;
  /** Animation frames and the clock the parse queue writes by (tests drive their own). */
  frames?: FrameScheduler;
  now?: () => number;
}

const ignore = () => {};

/**
 * One run's live output in one terminal (DESIGN.md section 5): opens a subscription, draws what
 * arrives, acknowledges only what the terminal has parsed, and closes it when done.
 *
 * The core starts replaying as soon as it opens the subscription, so output events can arrive before
 * the answer to openRunOutput says which subscription they belong to. The stream listens first and
 * holds this run's events until the id is known, then keeps only that subscription's.
 *
 * Separators between attempts come from the core in the same ordered stream as the bytes
 * (`runOutputAttempt`, sent before the first byte at the attempt's offset, a replayed slice cut there),
 * so a separator lands in place live and on replay without this side knowing any offsets: waiting
 * for the run detail to learn of a new attempt would race its first bytes, which may already be here.
 */
export class RunOutputStream {
  private subscriptionId: string | null = null;
  private acks: AckBatcher | null = null;
  private opening = false;
  private held: OutputEvent[] = [];
  private generation = 0;
  private disposed = false;
  private skippedTotal = 0;
  /** Where the replay asked for ends: bytes before it are never skipped here (nor by the core). */
  private replayEnd = 0;
  private readonly queue: ParseQueue;
  private parsedWaiters: Array<{ offset: number; generation: number; callback: () => void }> = [];
  /** Where the next byte of this run's output starts, once anything has arrived: a reconnect continues there. */
  private nextOffset: number | null = null;
  /**
   * Attempts whose separator is on the screen. A reconnect reopens at the next byte, where the core
   * sends an attempt that begins there again; the screen already has it.
   */
  private separatorsShown = new Set<number>();
  private readonly unsubscribe: Array<() => void>;
  /** Where the page on screen ends, or null while following live. */
  private until: number | null = null;
  /** Where the screen's output begins (a page reopened from scratch starts there again). */
  private replayStart = 0;

  constructor(
    private readonly api: OutputApi,
    private readonly runId: string,
    private readonly sink: OutputSink,
    private readonly options: RunOutputStreamOptions = {},
  ) {
    this.queue = new ParseQueue(sink, {
      ...(options.frames ? { frames: options.frames } : {}),
      ...(options.now ? { now: options.now } : {}),
      onDropped: (droppedBytes, coreSkippedBytes) => {
        this.skippedTotal += droppedBytes;
        this.options.onSkipped?.(this.skippedTotal);
        return skippedMarker(droppedBytes + coreSkippedBytes);
      },
    });
    this.unsubscribe = [
      api.subscribe('runOutput', (payload) => this.receive({ type: 'output', payload })),
      api.subscribe('runOutputSkipped', (payload) => this.receive({ type: 'skipped', payload })),
      api.subscribe('runOutputAttempt', (payload) => this.receive({ type: 'attempt', payload })),
    ];
  }

  /**
   * (Re)opens the output from `from`. A reopen (Load full output) closes the current subscription and
   * clears the terminal first. Resolves to null when a later open or dispose overtook this one.
   */
  async open(from: 'start' | 'tail' | number, options: { keepScreen?: boolean; until?: number } = {}): Promise<OpenedOutput | null> {
    const generation = ++this.generation;
    const reopening = this.subscriptionId !== null || generation > 1;
    this.closeSubscription();
    if (reopening && !options.keepScreen) {
      this.nextOffset = null;
      this.separatorsShown = new Set();
      this.queue.clear();
      await this.sink.reset();
      if (generation !== this.generation || this.disposed) return null;
    }
    this.opening = true;
    this.held = [];
    let opened: OpenedOutput;
    try {
      opened = await this.api.openRunOutput({ runId: this.runId, from, ...(options.until !== undefined ? { until: options.until } : {}) });
    } catch (error) {
      if (generation === this.generation) {
        this.opening = false;
        this.held = [];
      }
      throw error;
    }
    if (generation !== this.generation || this.disposed) {
      this.api.closeRunOutput({ subscriptionId: opened.subscriptionId }).catch(ignore);
      return null;
    }
    const subscriptionId = opened.subscriptionId;
    this.subscriptionId = subscriptionId;
    this.opening = false;
    this.replayEnd = opened.untilOffset ?? opened.totalBytes;
    this.until = opened.untilOffset;
    if (!options.keepScreen) this.replayStart = opened.fromOffset;
    this.acks = new AckBatcher(
      (bytes) => {
        this.api.ackRunOutput({ subscriptionId, bytes }).catch(ignore);
      },
      this.options.ackIntervalMs,
      this.options.timers,
    );
    if (opened.fromOffset > 0 && !options.keepScreen) this.queue.pushNote(earlierOutputMarker(opened.fromOffset));
    const held = this.held;
    this.held = [];
    for (const event of held) {
      if (event.payload.subscriptionId === subscriptionId) this.deliver(event);
    }
    return opened;
  }

  /**
   * After the connection to the core dropped and came back: the old subscription died with the
   * connection, so open a new one where the screen left off (no gap, no duplicate), or the tail when
   * nothing had arrived yet.
   */
  reconnect(): Promise<OpenedOutput | null> {
    if (this.until !== null) {
      // A page: the rest of it, and still nothing after it.
      if (this.nextOffset !== null && this.nextOffset >= this.until) return Promise.resolve(null);
      return this.nextOffset === null ? this.open(this.replayStart, { until: this.until }) : this.open(this.nextOffset, { keepScreen: true, until: this.until });
    }
    return this.nextOffset === null ? this.open('tail') : this.open(this.nextOffset, { keepScreen: true });
  }

  /**
   * Calls `callback` once the terminal has parsed the output up to `offset` (not skipped past it),
   * unless the output is reopened first.
   */
  whenParsed(offset: number, callback: () => void): void {
    this.parsedWaiters.push({ offset, generation: this.generation, callback });
  }

  /** Stops listening and closes the subscription. The stream cannot be reopened. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.generation += 1;
    this.queue.clear();
    this.parsedWaiters = [];
    this.closeSubscription();
    this.held = [];
    for (const unsubscribe of this.unsubscribe) unsubscribe();
  }

  private closeSubscription(): void {
    this.acks?.dispose();
    this.acks = null;
    if (this.subscriptionId !== null) this.api.closeRunOutput({ subscriptionId: this.subscriptionId }).catch(ignore);
    this.subscriptionId = null;
  }

  private receive(event: OutputEvent): void {
    if (this.disposed || event.payload.runId !== this.runId) return;
    if (this.subscriptionId === null) {
      if (this.opening) this.held.push(event);
      return;
    }
    if (event.payload.subscriptionId === this.subscriptionId) this.deliver(event);
  }

  private deliver(event: OutputEvent): void {
    if (event.type === 'output') {
      const acks = this.acks;
      const { offset, bytes } = event.payload;
      this.nextOffset = offset + bytes.byteLength;
      let done = offset;
      this.queue.push({
        bytes,
        offset,
        keep: offset < this.replayEnd,
        ack: (count, parsed) => {
          acks?.add(count);
          done += count;
          if (parsed) this.parsedUpTo(done);
        },
      });
      return;
    }
    if (event.type === 'attempt') {
      const { number } = event.payload.attempt;
      // The first attempt is where the output begins: there is nothing before it to separate from.
      if (number <= 1 || this.separatorsShown.has(number)) return;
      this.separatorsShown.add(number);
      this.queue.pushNote(attemptSeparator(event.payload));
      return;
    }
    this.nextOffset = event.payload.toOffset;
    this.skippedTotal += event.payload.skippedBytes;
    this.queue.pushNote(skippedMarker(event.payload.skippedBytes), event.payload.skippedBytes);
    this.options.onSkipped?.(this.skippedTotal);
  }

  private parsedUpTo(offset: number): void {
    if (this.parsedWaiters.length === 0) return;
    const due = this.parsedWaiters.filter((waiter) => waiter.generation === this.generation && waiter.offset <= offset);
    this.parsedWaiters = this.parsedWaiters.filter((waiter) => waiter.generation === this.generation && waiter.offset > offset);
    for (const waiter of due) waiter.callback();
  }
}
