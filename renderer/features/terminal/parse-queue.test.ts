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
  it('writes a frame’s worth at a time, sized to the measured parse speed, and acknowledges only what was parsed', () => {
    const bed = testBed({ initialBytesPerMs: 1000 });
    // A replay that was asked for: never dropped, however long it takes.
    bed.push(lines(0, 5000), { keep: true }); // 100,000 bytes
    expect(bed.terminal.text).toBe('');

    bed.frame();
    // 8 ms at the first guess of 1000 bytes per ms.
    expect(bed.terminal.unparsedBytes()).toBe(8000);
    expect(bed.acked(true)).toBe(0);
    // While the slice is still being parsed, the next frame gives the terminal nothing more.
    bed.frame();
    expect(bed.terminal.unparsedBytes()).toBe(8000);

    bed.terminal.parse(4000);
    expect(bed.acked(true)).toBe(8000);
    bed.frame();
    // Measured at 4000 bytes per ms: the estimate moves towards it, and so does the slice.
    expect(bed.queue.parseSpeed).toBeCloseTo(1900);
    expect(bed.terminal.unparsedBytes()).toBe(15_200);

    for (let i = 0; i < 40 && bed.queue.pendingBytes > 0; i += 1) {
      bed.terminal.parse(4000);
      bed.frame();
    }
    bed.terminal.parse(4000);
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
    // 8,000 bytes a frame at 60 frames a second: 24,000 bytes is 50 ms. A flood of 100,000 arrives.
    bed.push(lines(0, 2500));
    bed.push(lines(2500, 2500));
    bed.frame();

    expect(bed.dropped).toHaveLength(1);
    const { droppedBytes } = bed.dropped[0]!;
    // Two frames' worth is kept, starting with a whole line.
    expect(100_000 - droppedBytes).toBeLessThanOrEqual(16_000);
    expect(100_000 - droppedBytes).toBeGreaterThan(15_980);
    expect(droppedBytes % 20).toBe(0);
    const firstKept = droppedBytes / 20;
    expect(bed.terminal.text).toBe(`[skipped ${droppedBytes}]${lines(firstKept, 400)}`);
    // The dropped bytes free the core's window now that the kept tail is on its way to the terminal.
    expect(bed.acked(false)).toBe(droppedBytes);
    expect(bed.acked(true)).toBe(0);

    bed.terminal.parse(1000);
    bed.frame();
    bed.terminal.parse(1000);
    expect(bed.terminal.text).toBe(`[skipped ${droppedBytes}]${lines(firstKept, 5000 - firstKept)}`);
    expect(bed.acked(true) + bed.acked(false)).toBe(100_000);
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
    bed.terminal.parse(1000);
    for (let i = 0; i < 10 && bed.queue.pendingBytes > 0; i += 1) {
      bed.frame();
      bed.terminal.parse(1000);
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
