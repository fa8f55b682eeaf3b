import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventHandler, EventName } from '../../../shared/contract';
import type { Attempt, AttemptStart } from '../../../shared/entities';
import { AckBatcher } from './ack-batcher';
import { attemptSeparator, chunkInput, earlierOutputMarker, skippedMarker } from './output-markers';
import type { OutputSink } from './parse-queue';
import { RunOutputStream } from './run-output-stream';

function fakeApi() {
  const handlers = new Map<EventName, Set<(payload: unknown) => void>>();
  let resolveOpen: ((value: { subscriptionId: string; fromOffset: number; totalBytes: number; untilOffset: number | null }) => void) | undefined;
  const api = {
    acks: [] as Array<{ subscriptionId: string; bytes: number }>,
    closed: [] as string[],
    opened: [] as Array<{ runId: string; from: unknown }>,
    subscribe<E extends EventName>(event: E, handler: EventHandler<E>) {
      const set = handlers.get(event) ?? new Set();
      handlers.set(event, set);
      set.add(handler as (payload: unknown) => void);
      return () => set.delete(handler as (payload: unknown) => void);
    },
    openRunOutput(input: { runId: string; from: unknown }) {
      api.opened.push(input);
      return new Promise<{ subscriptionId: string; fromOffset: number; totalBytes: number; untilOffset: number | null }>((resolve) => {
        resolveOpen = resolve;
      });
    },
    ackRunOutput(input: { subscriptionId: string; bytes: number }) {
      api.acks.push(input);
      return Promise.resolve({ ok: true });
    },
    closeRunOutput(input: { subscriptionId: string }) {
      api.closed.push(input.subscriptionId);
      return Promise.resolve({ ok: true });
    },
    answerOpen(subscriptionId: string, fromOffset = 0) {
      resolveOpen?.({ subscriptionId, fromOffset, totalBytes: 100, untilOffset: null });
    },
    emit(event: EventName, payload: unknown) {
      for (const handler of handlers.get(event) ?? []) handler(payload);
    },
    output(subscriptionId: string, text: string, runId = 'run_1', offset = 0) {
      api.emit('runOutput', { subscriptionId, runId, offset, bytes: new TextEncoder().encode(text) });
    },
    /** The core's word that attempt `number` begins at `offset` (sent before its first byte). */
    attemptStart(subscriptionId: string, number: number, offset: number) {
      api.emit('runOutputAttempt', { subscriptionId, runId: 'run_1', offset, ...attemptStart(number) });
    },
    listenerCount() {
      return [...handlers.values()].reduce((sum, set) => sum + set.size, 0);
    },
  };
  return api;
}

function fakeSink() {
  const frames = new Map<number, () => void>();
  let nextFrame = 1;
  const sink = {
    text: '',
    /** Write callbacks xterm has not called yet: the test decides when parsing happens. */
    unparsed: [] as Array<() => void>,
    resets: 0,
    /** Animation frames, run when the test says: the stream writes to the terminal on them. */
    frames: {
      request(callback: () => void) {
        frames.set(nextFrame, callback);
        return nextFrame++;
      },
      cancel: (handle: number) => void frames.delete(handle),
    },
    /** One animation frame: what is queued is written (not yet parsed). */
    frame() {
      const due = [...frames.values()];
      frames.clear();
      for (const callback of due) callback();
    },
    /** Frames and parsing until nothing is left to write. */
    draw() {
      for (let i = 0; i < 100 && (frames.size > 0 || sink.unparsed.length > 0); i += 1) {
        sink.frame();
        sink.parseAll();
      }
    },
    write(bytes: Uint8Array, parsed: () => void) {
      sink.text += new TextDecoder().decode(bytes);
      sink.unparsed.push(parsed);
    },
    writeNote(text: string) {
      sink.text += text;
    },
    reset() {
      sink.resets += 1;
      sink.text = '';
      return Promise.resolve();
    },
    parseAll() {
      for (const parsed of sink.unparsed.splice(0)) parsed();
    },
  };
  return sink satisfies OutputSink;
}

function attemptStart(number: number): AttemptStart {
  const attempt = (n: number, patch: Partial<Attempt>): Attempt => ({
    number: n,
    cause: n === 1 ? 'first' : 'retry',
    status: 'failed',
    failureCode: 'process_exit',
    exitCode: 1,
    signal: null,
    retryAt: null,
    startedAt: `2025-01-01T10:00:${String(n * 10).padStart(2, '0')}.000Z`,
    endedAt: `2025-01-01T10:00:${String(n * 10 + 7).padStart(2, '0')}.000Z`,
    outputOffset: null,
    ...patch,
  });
  return { attempt: attempt(number, { status: 'running', endedAt: null }), previous: number > 1 ? attempt(number - 1, {}) : null, maxAttempts: 3 };
}

const flush = () => new Promise((resolve) => queueMicrotask(() => queueMicrotask(() => resolve(undefined))));

describe('RunOutputStream', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => vi.useRealTimers());

  it('keeps output that arrives before openRunOutput answers, and only its own subscription’s', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const stream = new RunOutputStream(api, 'run_1', sink, { frames: sink.frames });
    const opening = stream.open('tail');
    api.output('sub_1', 'line 1\r\n');
    api.output('sub_other', 'not mine\r\n');
    api.output('sub_1', 'line 1\r\n', 'run_2');
    api.output('sub_1', 'line 2\r\n');
    api.answerOpen('sub_1');
    await opening;
    api.output('sub_1', 'line 3\r\n');
    sink.draw();
    expect(sink.text).toBe('line 1\r\nline 2\r\nline 3\r\n');
    expect(api.opened).toEqual([{ runId: 'run_1', from: 'tail' }]);
  });

  it('acknowledges only what the terminal has parsed, summed into one ack per interval', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const stream = new RunOutputStream(api, 'run_1', sink, { ackIntervalMs: 16, frames: sink.frames });
    const opening = stream.open('tail');
    api.answerOpen('sub_1');
    await opening;
    api.output('sub_1', 'abc');
    api.output('sub_1', 'defgh');
    // The idle terminal gets the first write at once; the next waits until it is parsed.
    expect(sink.text).toBe('abc');
    vi.advanceTimersByTime(100);
    expect(api.acks).toEqual([]);
    sink.draw();
    expect(sink.text).toBe('abcdefgh');
    expect(api.acks).toEqual([]);
    vi.advanceTimersByTime(16);
    expect(api.acks).toEqual([{ subscriptionId: 'sub_1', bytes: 8 }]);
  });

  it('marks where output was skipped and says where a tail replay starts', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const onSkipped = vi.fn();
    const stream = new RunOutputStream(api, 'run_1', sink, { onSkipped, frames: sink.frames });
    const opening = stream.open('tail');
    api.answerOpen('sub_1', 4096);
    await opening;
    api.emit('runOutputSkipped', { subscriptionId: 'sub_1', runId: 'run_1', fromOffset: 10, toOffset: 5010, skippedBytes: 5000 });
    sink.draw();
    expect(sink.text).toBe(earlierOutputMarker(4096) + skippedMarker(5000));
    expect(onSkipped).toHaveBeenCalledWith(5000);
  });

  it('reopening from the start closes the old subscription, clears the terminal and ignores the old stream', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const stream = new RunOutputStream(api, 'run_1', sink, { frames: sink.frames });
    const first = stream.open('tail');
    api.answerOpen('sub_1');
    await first;
    api.output('sub_1', 'tail');
    // Written to the terminal, not parsed yet, when Load full output is pressed.
    sink.frame();
    const second = stream.open('start');
    await flush();
    expect(api.closed).toEqual(['sub_1']);
    expect(sink.resets).toBe(1);
    api.output('sub_1', 'late old bytes');
    api.output('sub_2', 'from the start');
    api.answerOpen('sub_2');
    await second;
    sink.draw();
    expect(sink.text).toBe('from the start');
    // A write of the old subscription parsed after the reopen is not acknowledged to anyone.
    sink.parseAll();
    vi.advanceTimersByTime(50);
    expect(api.acks).toEqual([{ subscriptionId: 'sub_2', bytes: 14 }]);
  });

  it('after a reconnect, continues from the next byte without clearing the screen', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const stream = new RunOutputStream(api, 'run_1', sink, { frames: sink.frames });
    const first = stream.open('tail');
    api.answerOpen('sub_1');
    await first;
    api.output('sub_1', 'hello ', 'run_1', 100);
    const again = stream.reconnect();
    await flush();
    expect(api.opened.at(-1)).toEqual({ runId: 'run_1', from: 106 });
    api.output('sub_2', 'world', 'run_1', 106);
    api.answerOpen('sub_2', 106);
    await again;
    expect(sink.resets).toBe(0);
    sink.draw();
    expect(sink.text).toBe('hello world');
  });

  it('draws a separator where the core says an attempt begins, between the bytes, and none before the first', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const stream = new RunOutputStream(api, 'run_1', sink, { frames: sink.frames });
    const opening = stream.open('start');
    // Replay starts before the answer: the held events keep their order.
    api.attemptStart('sub_1', 1, 0);
    api.output('sub_1', 'first\r\n', 'run_1', 0);
    api.attemptStart('sub_1', 2, 7);
    api.answerOpen('sub_1');
    await opening;
    api.output('sub_1', 'second\r\n', 'run_1', 7);
    // An attempt that printed nothing still has its line; the next one's follows it.
    api.attemptStart('sub_1', 3, 15);
    api.attemptStart('sub_other', 3, 15);
    sink.draw();
    expect(sink.text).toBe(`first\r\n${attemptSeparator(attemptStart(2))}second\r\n${attemptSeparator(attemptStart(3))}`);
    expect(sink.text).toContain('── retry after process_exit (exit code 1) · attempt 2 of 3 · 3 s later ──');
    // Separators are not output: nothing to acknowledge for them.
    sink.parseAll();
    vi.advanceTimersByTime(50);
    expect(api.acks).toEqual([{ subscriptionId: 'sub_1', bytes: 15 }]);
  });

  it('a tail replay says earlier bytes are not shown, then draws only the separators the core sends after it', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const stream = new RunOutputStream(api, 'run_1', sink, { frames: sink.frames });
    const opening = stream.open('tail');
    // The tail starts inside attempt 2: the core sends no start for 1 or 2, only for 3.
    api.output('sub_1', 'end of two\r\n', 'run_1', 5000);
    api.attemptStart('sub_1', 3, 5012);
    api.output('sub_1', 'three\r\n', 'run_1', 5012);
    api.answerOpen('sub_1', 5000);
    await opening;
    sink.draw();
    expect(sink.text).toBe(`${earlierOutputMarker(5000)}end of two\r\n${attemptSeparator(attemptStart(3))}three\r\n`);
  });

  it('never draws a separator twice on one screen, and draws them again after Load full output clears it', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const stream = new RunOutputStream(api, 'run_1', sink, { frames: sink.frames });
    const first = stream.open('tail');
    api.answerOpen('sub_1');
    await first;
    api.output('sub_1', 'one\r\n', 'run_1', 0);
    api.attemptStart('sub_1', 2, 5);
    // The connection drops before attempt 2's bytes: the reopen at offset 5 is told of attempt 2 again.
    const again = stream.reconnect();
    await flush();
    expect(api.opened.at(-1)).toEqual({ runId: 'run_1', from: 5 });
    api.attemptStart('sub_2', 2, 5);
    api.output('sub_2', 'two\r\n', 'run_1', 5);
    api.answerOpen('sub_2', 5);
    await again;
    const once = `one\r\n${attemptSeparator(attemptStart(2))}two\r\n`;
    sink.draw();
    expect(sink.text).toBe(once);

    const full = stream.open('start');
    await flush();
    api.attemptStart('sub_3', 1, 0);
    api.output('sub_3', 'one\r\n', 'run_1', 0);
    api.attemptStart('sub_3', 2, 5);
    api.output('sub_3', 'two\r\n', 'run_1', 5);
    api.answerOpen('sub_3');
    await full;
    expect(sink.resets).toBe(1);
    sink.draw();
    expect(sink.text).toBe(once);
  });

  it('when a flood outruns the terminal, skips forward on this side, frees the core’s window for what it dropped, and reconnects after the last byte received', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const onSkipped = vi.fn();
    const stream = new RunOutputStream(api, 'run_1', sink, { onSkipped, frames: sink.frames, now: () => 0 });
    const opening = stream.open('tail');
    api.answerOpen('sub_1', 0);
    await opening;
    // 100 bytes were the replay (answerOpen says 100 in all); then 600,000 bytes of live output at once,
    // far more than a cold terminal parses in 50 ms (7 MB/s, 8 ms of each frame).
    const line = `${'x'.repeat(99)}\n`;
    api.output('sub_1', line, 'run_1', 0);
    for (let chunk = 0; chunk < 6; chunk += 1) api.output('sub_1', line.repeat(1000), 'run_1', 100 + chunk * 100_000);
    sink.frame();

    expect(onSkipped).toHaveBeenCalledTimes(1);
    const skipped = onSkipped.mock.calls[0]![0] as number;
    expect(skipped).toBeGreaterThan(400_000);
    // The replay went to the idle terminal at once; once it is parsed, the marker and a frame's worth of the tail follow.
    expect(sink.text).toBe(line);
    sink.parseAll();
    expect(sink.text).toBe(`${line}${skippedMarker(skipped)}${line.repeat(560)}`);
    // Once the kept tail is in the terminal, the dropped bytes are acknowledged (they will never be
    // parsed), with what was parsed; the rest once parsed.
    vi.advanceTimersByTime(16);
    expect(api.acks).toEqual([{ subscriptionId: 'sub_1', bytes: 100 + skipped }]);
    sink.draw();
    vi.advanceTimersByTime(16);
    expect(api.acks.reduce((sum, ack) => sum + ack.bytes, 0)).toBe(600_100);
    expect(sink.text).toBe(`${line}${skippedMarker(skipped)}${line.repeat(6000 - skipped / 100)}`);

    // The skip is on the screen, so a reconnect continues after the last byte that arrived: no gap unmarked.
    void stream.reconnect();
    await flush();
    expect(api.opened.at(-1)).toEqual({ runId: 'run_1', from: 600_100 });
  });

  it('says when the terminal has parsed up to an offset, and forgets it on reopen', async () => {
    const api = fakeApi();
    const sink = fakeSink();
    const stream = new RunOutputStream(api, 'run_1', sink, { frames: sink.frames });
    const opening = stream.open(40);
    api.answerOpen('sub_1', 40);
    await opening;
    const parsed = vi.fn();
    stream.whenParsed(49, parsed);
    api.output('sub_1', 'earlier\r\n', 'run_1', 40);
    sink.frame();
    expect(parsed).not.toHaveBeenCalled();
    sink.parseAll();
    expect(parsed).toHaveBeenCalledTimes(1);

    const stale = vi.fn();
    stream.whenParsed(60, stale);
    const again = stream.open('tail');
    await flush();
    api.answerOpen('sub_2', 0);
    await again;
    api.output('sub_2', 'x'.repeat(100), 'run_1', 0);
    sink.draw();
    expect(stale).not.toHaveBeenCalled();
  });

  it('closes the subscription and stops listening when disposed, even mid-open', async () => {
    const api = fakeApi();
    const stream = new RunOutputStream(api, 'run_1', fakeSink());
    const opening = stream.open('tail');
    stream.dispose();
    api.answerOpen('sub_1');
    expect(await opening).toBeNull();
    await flush();
    expect(api.closed).toEqual(['sub_1']);
    expect(api.listenerCount()).toBe(0);
  });
});

describe('AckBatcher', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends nothing after dispose', () => {
    const sent: number[] = [];
    const batcher = new AckBatcher((bytes) => sent.push(bytes), 16);
    batcher.add(10);
    batcher.dispose();
    batcher.add(5);
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([]);
  });

  it('sends at most once per interval', () => {
    const sent: number[] = [];
    const batcher = new AckBatcher((bytes) => sent.push(bytes), 16);
    for (let i = 0; i < 100; i += 1) batcher.add(1);
    vi.advanceTimersByTime(16);
    batcher.add(7);
    vi.advanceTimersByTime(16);
    expect(sent).toEqual([100, 7]);
  });
});

describe('markers and input', () => {
  it('says how many bytes were skipped, dimmed on a line of its own', () => {
    expect(skippedMarker(1234)).toBe('\r\n\x1b[2m… skipped 1234 bytes (the full output is kept; Load full output shows it) …\x1b[0m\r\n');
  });

  it('splits long input without breaking a surrogate pair', () => {
    const text = `${'a'.repeat(3)}😀${'b'.repeat(3)}`;
    const chunks = chunkInput(text, 4);
    expect(chunks.join('')).toBe(text);
    expect(chunks).toEqual(['aaa', '😀bb', 'b']);
    expect(chunkInput('')).toEqual([]);
  });
});
