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
});
