import { afterEach, describe, expect, it } from 'vitest';
import type { OutputChunk } from '../ledger/output-repository';
import { openTestRunLedger, type TestRunLedger } from '../testing/output-test-kit';
import { LedgerWriteQueue } from './ledger-write-queue';

/**
 * The queue in front of a real ledger file, whose appends fail the way a disk makes them fail:
 * SQLite's SQLITE_FULL for a full disk, SQLITE_BUSY for a moment's contention.
 */

const ledgers: TestRunLedger[] = [];
afterEach(() => ledgers.splice(0).forEach((ledger) => ledger.close()));

function sqliteError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function queueOn(failures: () => Error | null, giveUpAfterMs = 300) {
  const test = openTestRunLedger();
  ledgers.push(test);
  const { runId, attemptId } = test.createRun();
  const events = { written: 0, errors: 0, gaveUp: [] as unknown[] };
  const queue = new LedgerWriteQueue({
    appender: {
      appendChunks: (chunks) => {
        const failure = failures();
        if (failure) throw failure;
        test.ledger.output.appendChunks(chunks);
      },
    },
    startOffset: 0,
    giveUpAfterMs,
    onWritten: () => (events.written += 1),
    onWriteError: () => (events.errors += 1),
    onGaveUp: (error) => events.gaveUp.push(error),
  });
  let offset = 0;
  const enqueue = (text: string) => {
    const chunk: OutputChunk = { runId, attemptId, byteOffset: offset, bytes: Buffer.from(text), createdAt: Date.now() };
    offset += chunk.bytes.length;
    queue.enqueue(chunk);
  };
  const stored = () => Buffer.from(test.ledger.output.read(runId, 0, 1 << 20).bytes).toString();
  return { queue, enqueue, events, stored };
}

describe('the ledger write queue', () => {
  it('retries a write that fails for a moment, and stores everything', async () => {
    let failuresLeft = 3;
    const { queue, enqueue, events, stored } = queueOn(() => (failuresLeft-- > 0 ? sqliteError('SQLITE_BUSY', 'database is locked') : null), 50);
    enqueue('one ');
    enqueue('two');
    await expect.poll(() => stored()).toBe('one two');
    expect(events.errors).toBe(3);
    expect(events.gaveUp).toEqual([]);
    expect(queue.gaveUp).toBe(false);
  });

  it('gives up on a full disk after its bound, keeping what was committed and storing nothing more', async () => {
    let full = false;
    const { queue, enqueue, events, stored } = queueOn(() => (full ? sqliteError('SQLITE_FULL', 'database or disk is full') : null));
    enqueue('stored ');
    await expect.poll(() => stored()).toBe('stored ');
    full = true;
    enqueue('lost');
    await expect.poll(() => events.gaveUp.length, { timeout: 3000 }).toBe(1);
    expect(events.gaveUp[0]).toMatchObject({ code: 'SQLITE_FULL' });
    expect(queue.gaveUp).toBe(true);
    expect(queue.writtenOffset).toBe('stored '.length);
    // Space is back, but the queue has given up: the run is ending, nothing more is written.
    full = false;
    enqueue('after');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stored()).toBe('stored ');
  });

  it('keeps retrying any other failure while input comes, and gives it up once the input has ended', async () => {
    const { queue, enqueue, events } = queueOn(() => sqliteError('SQLITE_IOERR', 'disk I/O error'), 200);
    enqueue('never stored');
    await expect.poll(() => events.errors, { timeout: 3000 }).toBeGreaterThanOrEqual(4);
    expect(events.gaveUp).toEqual([]);
    queue.inputEnded();
    await expect.poll(() => events.gaveUp.length, { timeout: 3000 }).toBe(1);
  });

  it('keeps the newest committed output readable, joining small chunks and bounded in size', async () => {
    const { queue, enqueue, stored } = queueOn(() => null);
    // A trickle: 1,000 lines of 100 bytes, each its own chunk.
    const line = (index: number) => `${String(index).padStart(99, '.')}\n`;
    const lines = Array.from({ length: 1000 }, (_, index) => line(index));
    for (const text of lines) enqueue(text);
    let all = lines.join('');
    await expect.poll(() => stored().length).toBe(all.length);
    expect(queue.isEmpty).toBe(true);
    // All of it was committed and is still kept: a read from anywhere in it needs no ledger.
    expect(queue.retainedOffset).toBe(0);
    const slice = Buffer.from(queue.readQueued(150, 64 * 1024)).toString();
    // Small chunks come joined, a few dozen KiB at a time, not one message per line.
    expect(slice.length).toBeGreaterThanOrEqual(32 * 1024);
    expect(slice.length).toBeLessThan(64 * 1024);
    expect(slice).toBe(all.slice(150, 150 + slice.length));

    // At most 1,024 chunks are kept.
    const more = Array.from({ length: 2000 }, (_, index) => line(1000 + index));
    for (const text of more) enqueue(text);
    all += more.join('');
    await expect.poll(() => queue.writtenOffset).toBe(all.length);
    expect(queue.retainedOffset).toBe(all.length - 1024 * 100);

    // And about 1 MiB: more pushes the oldest out, to the ledger alone.
    for (let index = 0; index < 20; index += 1) enqueue('x'.repeat(64 * 1024));
    await expect.poll(() => queue.writtenOffset).toBe(all.length + 20 * 64 * 1024);
    expect(queue.retainedOffset).toBeGreaterThan(all.length);
    expect(queue.writtenOffset - queue.retainedOffset).toBeGreaterThanOrEqual(1024 * 1024);
    expect(queue.writtenOffset - queue.retainedOffset).toBeLessThan(1024 * 1024 + 64 * 1024);
    expect(queue.readQueued(queue.retainedOffset - 1, 10).length).toBe(0);
  });
});
