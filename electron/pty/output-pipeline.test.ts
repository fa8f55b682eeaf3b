import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../ledger/ledger';
import type { OutputChunk } from '../ledger/output-repository';
import { OutputPipeline } from './output-pipeline';
import type { PtySession } from './pty-session';
import { floodReport, openTestRunLedger, recordSessionOutput, startFixtureAgent, waitFor, type TestRunLedger } from '../testing/output-test-kit';

/** The live output pipeline, writing through the ledger's worker thread as runs do. */

const mib = 1024 * 1024;
const ledgers: TestRunLedger[] = [];
const sessions: PtySession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.stop({ graceMs: 200 })));
  ledgers.splice(0).forEach((ledger) => ledger.close());
});

function setup() {
  const test = openTestRunLedger();
  ledgers.push(test);
  const writer = test.ledger.outputWriter;
  let transactions = 0;
  // Counts the transactions handed to the worker, and lets a test hold back their confirmation.
  let confirmDelayMs = 0;
  const counted = {
    appendChunks: async (chunks: readonly OutputChunk[]) => {
      transactions += 1;
      await writer.appendChunks(chunks);
      if (confirmDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, confirmDelayMs));
    },
  };
  return {
    test,
    output: test.ledger.output,
    writer: counted,
    transactions: () => transactions,
    holdConfirmations: (ms: number) => (confirmDelayMs = ms),
    ...test.createRun(),
  };
}

function start(args: string[]) {
  const session = startFixtureAgent(args);
  sessions.push(session);
  let pauses = 0;
  const pause = session.pause.bind(session);
  session.pause = () => {
    pauses += 1;
    pause();
  };
  return { session, recorded: recordSessionOutput(session), pauses: () => pauses };
}

function ledgerBytes(test: TestRunLedger, runId: string): Buffer {
  const total = test.ledger.output.totalBytes(runId);
  return Buffer.from(test.ledger.output.read(runId, 0, total).bytes);
}

function expectIntactFlood(stored: Buffer, targetBytes: number) {
  const report = floodReport(stored.toString('utf8'));
  expect(report).toBeDefined();
  expect(report!.bytes).toBeGreaterThanOrEqual(targetBytes);
  expect(createHash('sha256').update(report!.body).digest('hex')).toBe(report!.sha256);
}

describe('the live output pipeline', () => {
  it('stores every byte of a flood, in order, in few transactions', async () => {
    const { test, output, writer, transactions, runId, attemptId } = setup();
    const { session, recorded } = start(['--flood-bytes', String(8 * mib)]);
    const pipeline = new OutputPipeline({ runId, attemptId, session, output, writer });

    const result = await pipeline.whenFinished();

    expect(result.exit).toEqual({ exitCode: 0, signal: null });
    const stored = ledgerBytes(test, runId);
    expect(stored.length).toBe(result.endOffset);
    expect(stored.equals(recorded.bytes())).toBe(true);
    expectIntactFlood(stored, 8 * mib);
    // Batches that came while a transaction was in flight went together in the next one.
    expect(transactions()).toBeLessThan(pipeline.stats().batches);
  });

  it('writes a trickle within milliseconds of each batch', async () => {
    const { test, output, writer, runId, attemptId } = setup();
    const { session, recorded } = start(['--lines', '10', '--delay-ms', '100']);
    const pipeline = new OutputPipeline({ runId, attemptId, session, output, writer });

    // One line is out: it is in the ledger long before the next one comes.
    await waitFor(() => recorded.text().includes('line 1 of 10'), 'the first line');
    await waitFor(() => test.ledger.output.totalBytes(runId) >= recorded.bytes().length, 'the first line in the ledger', 80);

    await pipeline.whenFinished();
    expect(ledgerBytes(test, runId).equals(recorded.bytes())).toBe(true);
  });

  it('keeps output that is not yet committed readable, with no gap', async () => {
    const { test, output, writer, holdConfirmations, runId, attemptId } = setup();
    holdConfirmations(150);
    const { session, recorded } = start(['--lines', '40', '--delay-ms', '10']);
    const pipeline = new OutputPipeline({ runId, attemptId, session, output, writer });

    let sawUncommitted = 0;
    while (!pipeline.feed.ended) {
      const live = pipeline.feed.liveOffset();
      // A read stops where the committed part ends; the next one goes on from the queue.
      const parts: Buffer[] = [];
      for (let at = 0; at < live; ) {
        const slice = pipeline.feed.read(at, live - at);
        expect(slice.fromOffset).toBe(at);
        expect(slice.nextOffset).toBeGreaterThan(at);
        parts.push(Buffer.from(slice.bytes));
        at = slice.nextOffset;
      }
      expect(Buffer.concat(parts).equals(recorded.bytes().subarray(0, live))).toBe(true);
      if (test.ledger.output.totalBytes(runId) < live) sawUncommitted += 1;
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    expect(sawUncommitted).toBeGreaterThan(0);
    await pipeline.whenFinished();
    expect(ledgerBytes(test, runId).equals(recorded.bytes())).toBe(true);
  });

  it('serves the newest committed output from memory, so a viewer catching up costs no ledger read', async () => {
    const { test, writer, runId, attemptId } = setup();
    // The ledger's reads, counted: the pipeline may read only what it no longer keeps.
    let ledgerReads = 0;
    const output = {
      read: (...args: Parameters<typeof test.ledger.output.read>) => {
        ledgerReads += 1;
        return test.ledger.output.read(...args);
      },
      totalBytes: (id: string) => test.ledger.output.totalBytes(id),
    };
    const { session, recorded } = start(['--flood-bytes', String(6 * mib)]);
    const pipeline = new OutputPipeline({ runId, attemptId, session, output, writer });

    const batches: Array<{ offset: number; bytes: Uint8Array }> = [];
    pipeline.feed.onBatch((batch) => batches.push({ offset: batch.offset, bytes: batch.bytes }));
    /** The largest piece of one batch inside [at, end). */
    const largestBatchPiece = (at: number, end: number) =>
      Math.max(0, ...batches.map((batch) => Math.min(end, batch.offset + batch.bytes.length) - Math.max(at, batch.offset)));
    const tails: Array<{ at: number; bytes: Buffer }> = [];
    let copiedLargeSlices = 0;
    let oldestRead: Buffer | null = null;
    /** Reads the catch-up tail a viewer behind a flood resumes with (output-fanout.ts): the last 256 KiB before `live`. */
    const readTail = (live: number) => {
      const reads = ledgerReads;
      const parts: Buffer[] = [];
      for (let at = live - 256 * 1024; at < live; ) {
        const slice = pipeline.feed.read(at, live - at);
        expect(slice.fromOffset).toBe(at);
        // A large batch comes as itself (a view of the batch), never copied; only small pieces are joined.
        const isView = batches.some((batch) => batch.bytes.buffer === slice.bytes.buffer);
        if (!isView && largestBatchPiece(at, slice.nextOffset) >= 32 * 1024) copiedLargeSlices += 1;
        parts.push(Buffer.from(slice.bytes));
        at = slice.nextOffset;
      }
      expect(ledgerReads).toBe(reads);
      tails.push({ at: live - 256 * 1024, bytes: Buffer.concat(parts) });
    };
    /** Older output is the ledger's to serve. */
    const readOldest = () => {
      const reads = ledgerReads;
      const bytes = Buffer.from(pipeline.feed.read(0, 1024).bytes);
      expect(ledgerReads).toBe(reads + 1);
      return bytes;
    };
    while (!pipeline.feed.ended) {
      const live = pipeline.feed.liveOffset();
      // While the flood goes on, whenever the ledger has committed the tail's start.
      if (live > 1 * mib && test.ledger.output.totalBytes(runId) > live - 256 * 1024) {
        readTail(live);
        if (oldestRead === null && live > 4 * mib) oldestRead = readOldest();
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await pipeline.whenFinished();
    // And once it is all committed: a machine too busy for the ledger to catch up during the flood
    // (the samples above are then none) still shows the newest output served from memory.
    readTail(pipeline.feed.liveOffset());
    oldestRead ??= readOldest();
    expect(tails.length).toBeGreaterThan(0);
    for (const tail of tails) expect(tail.bytes.equals(recorded.bytes().subarray(tail.at, tail.at + tail.bytes.length))).toBe(true);
    expect(copiedLargeSlices).toBe(0);
    expect(oldestRead?.equals(recorded.bytes().subarray(0, 1024))).toBe(true);
  });

  it('pauses the PTY while a slow writer falls behind, losing nothing', async () => {
    const { test, output, writer, runId, attemptId } = setup();
    const { session, recorded, pauses } = start(['--flood-bytes', String(2 * mib)]);
    const pipeline = new OutputPipeline({
      runId,
      attemptId,
      session,
      output,
      writer,
      highWatermarkBytes: 128 * 1024,
      lowWatermarkBytes: 32 * 1024,
      writeDelayMs: 15,
      maxTransactionBytes: 96 * 1024,
    });

    const result = await pipeline.whenFinished();

    const stats = pipeline.stats();
    expect(stats.pauses).toBeGreaterThan(0);
    expect(stats.resumes).toBe(stats.pauses);
    expect(pauses()).toBe(stats.pauses);
    expect(stats.maxQueuedBytes).toBeLessThan(128 * 1024 + 2 * 64 * 1024 + 64 * 1024);
    const stored = ledgerBytes(test, runId);
    expect(stored.length).toBe(result.endOffset);
    expect(stored.equals(recorded.bytes())).toBe(true);
    expectIntactFlood(stored, 2 * mib);
  });

  it('has every byte in the file once the run has finished and the writer is closed', async () => {
    const { test, output, runId, attemptId } = setup();
    const { session, recorded } = start(['--flood-bytes', String(2 * mib)]);
    const pipeline = new OutputPipeline({ runId, attemptId, session, output, writer: test.ledger.outputWriter });

    const result = await pipeline.whenFinished();
    await test.ledger.outputWriter.close();

    const reopened = openLedger(test.dir);
    try {
      expect(reopened.output.totalBytes(runId)).toBe(result.endOffset);
      expect(Buffer.from(reopened.output.read(runId, 0, result.endOffset).bytes).equals(recorded.bytes())).toBe(true);
    } finally {
      reopened.close();
    }
  });

  it("continues a run's output after an earlier attempt's", async () => {
    const { test, output, runId, attemptId } = setup();
    const writer = test.ledger.outputWriter;
    const first = start(['--lines', '3']);
    await new OutputPipeline({ runId, attemptId, session: first.session, output, writer }).whenFinished();
    const firstBytes = ledgerBytes(test, runId);

    test.ledger.db.prepare("INSERT INTO attempts (id, run_id, number, status) VALUES ('att_second', ?, 2, 'running')").run(runId);
    const second = start(['--lines', '2']);
    const result = await new OutputPipeline({ runId, attemptId: 'att_second', session: second.session, output, writer }).whenFinished();

    const stored = ledgerBytes(test, runId);
    expect(result.endOffset).toBe(stored.length);
    expect(stored.equals(Buffer.concat([firstBytes, second.recorded.bytes()]))).toBe(true);
    const attempts = test.ledger.db
      .prepare('SELECT DISTINCT attempt_id FROM output_chunks WHERE run_id = ? AND byte_offset >= ?')
      .all(runId, firstBytes.length) as Array<{ attempt_id: string }>;
    expect(attempts.map((row) => row.attempt_id)).toEqual(['att_second']);
  });
});
