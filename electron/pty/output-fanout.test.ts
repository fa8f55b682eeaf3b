import { afterEach, describe, expect, it } from 'vitest';
import { OutputFanout } from './output-fanout';
import { OutputPipeline } from './output-pipeline';
import type { PtySession } from './pty-session';
import { openTestRunLedger, recordSessionOutput, startFixtureAgent, waitFor, type TestRunLedger } from '../testing/output-test-kit';
import { closeViewers, ledgerBytes, scriptedPty, settle, viewer } from '../testing/output-viewer-kit';

/**
 * Viewers of a run's output: replay from the ledger, then live, and what a slow viewer is sent. Where
 * attempts begin, as viewers are told, is output-fanout-attempts.test.ts.
 */

const kib = 1024;
const mib = 1024 * kib;
const ledgers: TestRunLedger[] = [];
const sessions: PtySession[] = [];
afterEach(async () => {
  closeViewers();
  await Promise.all(sessions.splice(0).map((session) => session.stop({ graceMs: 200 })));
  ledgers.splice(0).forEach((ledger) => ledger.close());
});

function setup() {
  const test = openTestRunLedger();
  ledgers.push(test);
  const fanout = new OutputFanout({ output: test.ledger.output });
  return { test, output: test.ledger.output, fanout, ...test.createRun() };
}

/**
 * A live run on a scripted PTY with 1000 bytes in the ledger and 700 more queued, not yet written.
 * batchMaxBytes 1: every emit is cut into a batch at once, so the test decides what is where.
 */
async function liveRunWithQueuedOutput() {
  const { test, output, fanout, runId, attemptId } = setup();
  const pty = scriptedPty();
  const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session: pty.session, output, batchMaxBytes: 1 });
  fanout.attachLive(pipeline.feed);
  pty.emit(1000);
  await waitFor(() => output.totalBytes(runId) === 1000, 'the first batch in the ledger');
  pty.emit(700);
  return { test, fanout, runId, pty, pipeline };
}

describe('output viewers, with a scripted PTY', () => {
  it('replay reads the ledger and the unwritten queue, then follows live: no gap, no duplicate', async () => {
    const { test, fanout, runId, pty, pipeline } = await liveRunWithQueuedOutput();

    // The window holds the live bytes that arrive during the replay, so nothing needs skipping.
    const late = viewer(fanout, { runId, fromOffset: 300, windowBytes: 1024 }, 'later');
    pty.emit(500); // arrives before the viewer's replay has even started
    await settle();
    pty.emit(64);
    pty.exit();
    await pipeline.whenFinished();
    await waitFor(() => late.endOffset() === 2264, 'the viewer to catch up');

    expect(late.errors).toEqual([]);
    expect(late.firstOffset()).toBe(300);
    expect(late.skips()).toEqual([]);
    expect(late.bytes().equals(ledgerBytes(test, runId, 300))).toBe(true);
    expect(late.maxUnacked()).toBeLessThanOrEqual(1024);
    expect(late.messages.length).toBeGreaterThan(2);
    expect(pty.pauses()).toBe(0);
  });

  it('a page of a live run: sends exactly [from, until), from the ledger and the queue, and nothing live after it', async () => {
    const { test, fanout, runId, pty, pipeline } = await liveRunWithQueuedOutput();

    const page = viewer(fanout, { runId, fromOffset: 600, untilOffset: 1200, windowBytes: 256 }, 'later');
    // An end past the output is clamped to what there is.
    const beyond = viewer(fanout, { runId, fromOffset: 1500, untilOffset: 10_000 }, 'later');
    pty.emit(500);
    await settle();
    pty.emit(64);
    pty.exit();
    await pipeline.whenFinished();
    await waitFor(() => page.endOffset() === 1200 && beyond.endOffset() === 1700, 'both pages');
    await settle();

    expect(page.errors).toEqual([]);
    expect(page.firstOffset()).toBe(600);
    expect(page.endOffset()).toBe(1200);
    expect(page.skips()).toEqual([]);
    expect(page.bytes().equals(ledgerBytes(test, runId, 600).subarray(0, 600))).toBe(true);
    expect(page.maxUnacked()).toBeLessThanOrEqual(256);
    expect(beyond.endOffset()).toBe(1700);
    expect(beyond.bytes().equals(ledgerBytes(test, runId, 1500).subarray(0, 200))).toBe(true);
  });

  it('stops sending to a viewer whose window is full, then sends one skip and the tail', async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const pty = scriptedPty();
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session: pty.session, output, batchMaxBytes: 1 });
    fanout.attachLive(pipeline.feed);
    const stalled = viewer(fanout, { runId, fromOffset: 0, windowBytes: 1000 });
    await settle();
    for (let k = 0; k < 30; k += 1) pty.emit(300);
    await settle();

    expect(stalled.sent()).toBe(1000); // exactly its window, the last batch cut to fit
    stalled.ackAll();
    // Tail: the last half window of what exists now; the skip covers everything in between.
    expect(stalled.skips()).toEqual([{ type: 'skipped', runId, fromOffset: 1000, toOffset: 9000 - 500, skippedBytes: 7500 }]);
    expect(stalled.endOffset()).toBe(9000);
    pty.emit(100); // then it follows live again
    expect(stalled.endOffset()).toBe(9100);
    expect(stalled.errors).toEqual([]);
    pty.exit();
    await pipeline.whenFinished();
    const stored = ledgerBytes(test, runId);
    expect(stalled.bytes().equals(Buffer.concat([stored.subarray(0, 1000), stored.subarray(8500)]))).toBe(true);
  });

  it('counts a viewer behind once it has left output unparsed too long, window or not, and brings it back current', async () => {
    const test = openTestRunLedger();
    ledgers.push(test);
    let clock = 0;
    const fanout = new OutputFanout({ output: test.ledger.output, now: () => clock });
    const { runId, attemptId } = test.createRun();
    const pty = scriptedPty();
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session: pty.session, output: test.ledger.output, batchMaxBytes: 1 });
    fanout.attachLive(pipeline.feed);
    // A big window: only time can make this viewer fall behind.
    const slow = viewer(fanout, { runId, fromOffset: 0, windowBytes: 64 * mib, maxLagMs: 100 });
    const quick = viewer(fanout, { runId, fromOffset: 0, windowBytes: 64 * mib, maxLagMs: 100 });
    await settle();
    pty.emit(1000);
    quick.ackAll();
    clock = 90;
    pty.emit(1000);
    quick.ackAll();
    expect(slow.sent()).toBe(2000); // 90 ms: not behind yet
    clock = 150;
    for (let k = 0; k < 600; k += 1) {
      pty.emit(1000); // 600 KB more while the slow one has parsed nothing for 150 ms
      quick.ackAll();
    }
    expect(slow.sent()).toBe(2000);
    expect(quick.sent()).toBe(602_000);
    // It parses what it had: it is sent one skip to the recent tail, not the 600 KB it missed.
    slow.ackAll();
    expect(slow.skips()).toEqual([{ type: 'skipped', runId, fromOffset: 2000, toOffset: 602_000 - 256 * kib, skippedBytes: 600_000 - 256 * kib }]);
    expect(slow.endOffset()).toBe(602_000);
    // Current again, it follows live; a viewer that keeps up is never skipped.
    clock = 160;
    pty.emit(500);
    expect(slow.endOffset()).toBe(602_500);
    expect(quick.skips()).toEqual([]);
    expect(slow.errors).toEqual([]);
    pty.exit();
    await pipeline.whenFinished();
    const stored = ledgerBytes(test, runId);
    expect(quick.bytes().equals(stored)).toBe(true);
    expect(slow.bytes().equals(Buffer.concat([stored.subarray(0, 2000), stored.subarray(602_000 - 256 * kib)]))).toBe(true);
  });

  it('does not skip what a viewer asked to replay, however slowly it reads', async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const pty = scriptedPty();
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session: pty.session, output, batchMaxBytes: 1 });
    fanout.attachLive(pipeline.feed);
    for (let k = 0; k < 10; k += 1) pty.emit(1000);
    pty.exit();
    await pipeline.whenFinished();

    const reader = viewer(fanout, { runId, fromOffset: 0, windowBytes: 1500 });
    await settle();
    expect(reader.sent()).toBe(1500);
    for (let k = 0; k < 10 && reader.sent() < 10_000; k += 1) reader.ackAll();
    expect(reader.skips()).toEqual([]);
    expect(reader.bytes().equals(ledgerBytes(test, runId))).toBe(true);
  });

  it("starts a 'tail' viewer at the last tailBytes", async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const pty = scriptedPty();
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session: pty.session, output });
    fanout.attachLive(pipeline.feed);
    pty.emit(5000);
    pty.exit();
    await pipeline.whenFinished();
    const tail = viewer(fanout, { runId, fromOffset: 'tail', tailBytes: 1200 }, 'inline');
    await settle();
    expect(tail.firstOffset()).toBe(3800);
    expect(tail.bytes().equals(ledgerBytes(test, runId, 3800))).toBe(true);
    // An offset past the end is clamped; the viewer just waits for more.
    const past = viewer(fanout, { runId, fromOffset: 99_999 });
    await settle();
    expect(past.messages).toEqual([]);
  });

  it('follows a run that starts after the viewer subscribed, and survives a viewer that throws', async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const early = viewer(fanout, { runId, fromOffset: 0 }, 'inline');
    const broken = fanout.subscribe({
      runId,
      fromOffset: 0,
      send: () => {
        throw new Error('transport gone');
      },
    });
    await settle();
    const pty = scriptedPty();
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session: pty.session, output });
    fanout.attachLive(pipeline.feed);
    pty.emit(3000);
    pty.emit(70_000);
    pty.exit();
    await pipeline.whenFinished();
    await settle();
    expect(early.errors).toEqual([]);
    expect(early.bytes().equals(ledgerBytes(test, runId))).toBe(true);
    expect(output.totalBytes(runId)).toBe(73_000);
    broken.ack(10); // harmless after it was closed
  });
});

describe('output viewers of a real agent', () => {
  it('a viewer that opens mid-run replays from the ledger, then follows live, byte-exact', async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const session = startFixtureAgent(['--lines', '400', '--delay-ms', '1']);
    sessions.push(session);
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session, output });
    fanout.attachLive(pipeline.feed);

    await waitFor(() => pipeline.liveOffset > 3000, 'some output');
    // A small window: the replay takes many acks while new lines keep arriving.
    const late = viewer(fanout, { runId, fromOffset: 0, windowBytes: 2 * kib }, 'later');
    const result = await pipeline.whenFinished();
    await waitFor(() => late.endOffset() === result.endOffset, 'the viewer to catch up');

    expect(late.errors).toEqual([]);
    expect(late.skips()).toEqual([]);
    expect(late.firstOffset()).toBe(0);
    expect(late.bytes().equals(ledgerBytes(test, runId))).toBe(true);
    expect(late.bytes().toString()).toContain('line 400 of 400\r\n');
  });

  it('a viewer that opens a finished run replays all of it, or just its tail', async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const session = startFixtureAgent(['--flood-bytes', String(1 * mib)]);
    sessions.push(session);
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session, output });
    fanout.attachLive(pipeline.feed);
    const { endOffset } = await pipeline.whenFinished();

    const whole = viewer(fanout, { runId, fromOffset: 0, windowBytes: 256 * kib }, 'later');
    const tail = viewer(fanout, { runId, fromOffset: 'tail' }, 'later');
    await waitFor(() => whole.endOffset() === endOffset && tail.endOffset() === endOffset, 'both viewers to finish');
    expect(whole.errors).toEqual([]);
    expect(whole.bytes().equals(ledgerBytes(test, runId))).toBe(true);
    expect(tail.firstOffset()).toBe(endOffset - 256 * kib);
    expect(tail.bytes().equals(ledgerBytes(test, runId, endOffset - 256 * kib))).toBe(true);
  });

  it('a stalled viewer never slows or pauses the run, and resumes with one skip and the tail', async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const session = startFixtureAgent(['--flood-bytes', String(3 * mib)]);
    sessions.push(session);
    const recorded = recordSessionOutput(session);
    let pauses = 0;
    const pause = session.pause.bind(session);
    session.pause = () => {
      pauses += 1;
      pause();
    };
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session, output });
    fanout.attachLive(pipeline.feed);
    const windowBytes = 256 * kib;
    // About the byte window: time behind (maxLagMs) must not cut in first on a slow machine.
    const stalled = viewer(fanout, { runId, fromOffset: 0, windowBytes, maxLagMs: 60_000 });
    const keeping = viewer(fanout, { runId, fromOffset: 0 }, 'later');

    const result = await pipeline.whenFinished();

    // Every pause the PTY got came from the ledger queue (none at all, with a healthy disk): the
    // fanout only ever sees a read-only feed.
    expect(pauses).toBe(pipeline.stats().pauses);
    expect(pipeline.stats().pauses).toBe(0);
    const stored = ledgerBytes(test, runId);
    expect(stored.length).toBe(result.endOffset);
    expect(stored.equals(recorded.bytes())).toBe(true);
    expect(stalled.sent()).toBeLessThanOrEqual(windowBytes);
    expect(stalled.sent()).toBe(windowBytes);
    expect(stalled.skips()).toEqual([]);

    stalled.ackAll();
    const tailStart = result.endOffset - windowBytes / 2;
    expect(stalled.skips()).toEqual([
      { type: 'skipped', runId, fromOffset: windowBytes, toOffset: tailStart, skippedBytes: tailStart - windowBytes },
    ]);
    await waitFor(() => stalled.endOffset() === result.endOffset, 'the tail');
    expect(stalled.errors).toEqual([]);
    expect(stalled.bytes().equals(Buffer.concat([stored.subarray(0, windowBytes), stored.subarray(tailStart)]))).toBe(true);

    await waitFor(() => keeping.endOffset() === result.endOffset, 'the acking viewer');
    expect(keeping.errors).toEqual([]);
    expect(keeping.bytes().equals(stored) || keeping.skips().length > 0).toBe(true);
  });
});
