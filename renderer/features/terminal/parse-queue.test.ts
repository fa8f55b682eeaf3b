import { describe, expect, it } from 'vitest';
import { ParseQueue, type FrameScheduler, type QueuedBytes } from './parse-queue';

/** Animation frames that come when the test says, and a clock that moves only while the terminal parses. */
function testBed({ initialBytesPerMs = 1000 } = {}) {
  let clock = 0;
  const frames = new Map<number, () => void>();
  let nextFrame = 1;
  const scheduler: FrameScheduler = {
    request(callback) {
      frames.set(nextFrame, callback);
      return nextFrame++;
    },
    cancel: (handle) => void frames.delete(handle),
  };
  const writes: Array<{ bytes: Uint8Array; parsed: () => void }> = [];
  const terminal = {
    /** What the terminal was given, in order: bytes as text, notes as they are. */
    text: '',
    write(bytes: Uint8Array, parsed: () => void) {
      terminal.text += new TextDecoder().decode(bytes);
      writes.push({ bytes, parsed });
    },
    writeNote(text: string) {
      terminal.text += text;
    },
    reset: () => Promise.resolve(),
    /** Parses everything written so far at `bytesPerMs`, as xterm.js does: in order, one callback per write. */
    parse(bytesPerMs: number) {
      for (const write of writes.splice(0)) {
        clock += write.bytes.byteLength / bytesPerMs;
        write.parsed();
      }
    },
    unparsedBytes: () => writes.reduce((sum, write) => sum + write.bytes.byteLength, 0),
  };
  const acks: Array<{ bytes: number; parsed: boolean }> = [];
  const dropped: Array<{ droppedBytes: number; coreSkippedBytes: number }> = [];
  const queue = new ParseQueue(terminal, {
    frames: scheduler,
    now: () => clock,
    frameBudgetMs: 8,
    maxQueuedMs: 50,
    initialBytesPerMs,
    onDropped: (droppedBytes, coreSkippedBytes) => {
      dropped.push({ droppedBytes, coreSkippedBytes });
      return `[skipped ${droppedBytes + coreSkippedBytes}]`;
    },
  });
  let offset = 0;
  return {
    queue,
    terminal,
    acks,
    dropped,
    /** One animation frame, 1/60 s after the last. */
    frame() {
      const due = [...frames.values()];
      frames.clear();
      clock += 1000 / 60;
      for (const callback of due) callback();
    },
    framesWaiting: () => frames.size,
    push(text: string, { keep = false }: { keep?: boolean } = {}) {
      const bytes = new TextEncoder().encode(text);
      const entry: QueuedBytes = { bytes, offset, keep, ack: (count, parsed) => acks.push({ bytes: count, parsed }) };
      offset += bytes.byteLength;
      queue.push(entry);
    },
    acked: (parsed: boolean) => acks.filter((ack) => ack.parsed === parsed).reduce((sum, ack) => sum + ack.bytes, 0),
  };
}

/** `count` numbered lines of 20 bytes: `line 000001 .......\n`. */
const lines = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => `line ${String(from + index).padStart(6, '0')} .......\n`).join('');

describe('ParseQueue', () => {
  it('parses within a budget per frame, in slices sized to the measured speed, and acknowledges only what was parsed', () => {
    const bed = testBed({ initialBytesPerMs: 1000 });
    // A replay that was asked for: never dropped, however long it takes.
    bed.push(lines(0, 5000), { keep: true }); // 100,000 bytes
    // An idle terminal gets output at once: 8 ms of it at the first guess of 1000 bytes per ms.
    expect(bed.terminal.unparsedBytes()).toBe(8000);
    expect(bed.acked(true)).toBe(0);
    // While the slice is still being parsed, a frame gives the terminal nothing more.
    bed.frame();
    expect(bed.terminal.unparsedBytes()).toBe(8000);

    // Parsed in 2 ms: the estimate moves towards 4000 bytes per ms, and the rest of the frame's 8 ms goes at it.
    bed.terminal.parse(4000);
    expect(bed.acked(true)).toBe(8000);
    expect(bed.queue.parseSpeed).toBeCloseTo(1900);
    expect(bed.terminal.unparsedBytes()).toBe(11_400);
    for (let i = 0; i < 20 && bed.terminal.unparsedBytes() > 0; i += 1) bed.terminal.parse(4000);
    // The frame's budget is spent: the rest waits for the next frame.
    expect(bed.queue.pendingBytes).toBeGreaterThan(0);
    expect(bed.framesWaiting()).toBe(1);
    bed.frame();
    expect(bed.terminal.unparsedBytes()).toBeGreaterThan(0);

    for (let i = 0; i < 40 && bed.queue.pendingBytes + bed.terminal.unparsedBytes() > 0; i += 1) {
      bed.terminal.parse(4000);
      bed.frame();
    }
    expect(bed.terminal.text).toBe(lines(0, 5000));
    expect(bed.acked(true)).toBe(100_000);
    expect(bed.dropped).toEqual([]);
    expect(bed.framesWaiting()).toBe(0);
  });

  it('keeps the console’s own lines in order between the bytes', () => {
    const bed = testBed();
    bed.push('one\r\n');
    bed.queue.pushNote('── attempt 2 ──\r\n');
    bed.push('two\r\n');
    bed.frame();
    bed.terminal.parse(1000);
    bed.frame();
    bed.terminal.parse(1000);
    expect(bed.terminal.text).toBe('one\r\n── attempt 2 ──\r\ntwo\r\n');
    expect(bed.acked(true)).toBe(10);
  });

  it('when more is queued than the screen gets through in 50 ms, drops the oldest, marks it, resumes at a line start and acknowledges the dropped bytes', () => {
    const bed = testBed({ initialBytesPerMs: 1000 });
    // 8,000 bytes a frame at 60 frames a second: 24,000 bytes is 50 ms. A flood of 100,000 arrives;
    // the first 8,000 go to the idle terminal at once.
    bed.push(lines(0, 2500));
    bed.push(lines(2500, 2500));
    expect(bed.terminal.unparsedBytes()).toBe(8000);
    bed.frame();

    // Two frames' worth is kept (16,000 bytes), from a line start.
    expect(bed.dropped).toEqual([{ droppedBytes: 76_000, coreSkippedBytes: 0 }]);
    const firstKept = (8000 + 76_000) / 20;
    // Acknowledged once the kept tail is on its way to the terminal, not before.
    expect(bed.acked(false)).toBe(0);
    bed.terminal.parse(1000);
    bed.frame();
    expect(bed.terminal.text).toBe(`${lines(0, 400)}[skipped 76000]${lines(firstKept, 400)}`);
    expect(bed.acked(false)).toBe(76_000);
    expect(bed.acked(true)).toBe(8000);

    bed.terminal.parse(1000);
    bed.frame();
    bed.terminal.parse(1000);
    expect(bed.terminal.text).toBe(`${lines(0, 400)}[skipped 76000]${lines(firstKept, 800)}`);
    expect(bed.acked(true) + bed.acked(false)).toBe(100_000);
  });

  it('a cut that falls inside a line resumes after it', () => {
    const bed = testBed({ initialBytesPerMs: 1000 });
    bed.push('x'.repeat(8000));
    bed.push(`${'y'.repeat(50_010)}\n${lines(0, 1000)}tail`);
    bed.frame();
    bed.terminal.parse(1000);
    bed.frame();
    // 70,015 queued, 16,000 to keep: the cut at byte 54,015 falls 4 bytes into line 200; line 201 is the first shown.
    expect(bed.dropped[0]!.droppedBytes).toBe(50_011 + 201 * 20);
    expect(bed.terminal.text).toBe(`${'x'.repeat(8000)}[skipped ${bed.dropped[0]!.droppedBytes}]${lines(201, 400)}`);
  });

  it('never drops a replay that was asked for, and folds the core’s skip markers among the dropped bytes into its own', () => {
    const bed = testBed({ initialBytesPerMs: 1000 });
    bed.push(lines(0, 1000), { keep: true }); // 20,000 bytes of replay
    bed.push(lines(1000, 1000));
    bed.queue.pushNote('[core skipped 5000]', 5000);
    bed.queue.pushNote('── attempt 2 ──');
    bed.push(lines(2000, 2000));
    bed.frame();

    const { droppedBytes, coreSkippedBytes } = bed.dropped[0]!;
    expect(coreSkippedBytes).toBe(5000);
    const firstKept = 1000 + droppedBytes / 20;
    // The replay first; then one marker for both skips, the separator from the dropped part, and the tail.
    for (let i = 0; i < 10 && bed.queue.pendingBytes + bed.terminal.unparsedBytes() > 0; i += 1) {
      bed.terminal.parse(1000);
      bed.frame();
    }
    expect(bed.terminal.text).toBe(`${lines(0, 1000)}[skipped ${droppedBytes + 5000}]── attempt 2 ──${lines(firstKept, 4000 - firstKept)}`);
    expect(bed.acked(true) + bed.acked(false)).toBe(80_000);
  });

  it('after clear, forgets what was queued, unacknowledged, and ignores writes parsed later', () => {
    const bed = testBed();
    bed.push(lines(0, 1000), { keep: true });
    bed.frame();
    bed.queue.clear();
    expect(bed.queue.pendingBytes).toBe(0);
    bed.terminal.parse(1000);
    expect(bed.acks).toEqual([]);
    // And it takes new output at once, without waiting for the old write.
    bed.push('fresh\r\n');
    bed.frame();
    expect(bed.terminal.text.endsWith('fresh\r\n')).toBe(true);
  });
});
