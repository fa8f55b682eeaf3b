import { afterEach, describe, expect, it } from 'vitest';
import { OutputFanout, type OutputMessage, type OutputSubscription, type SubscribeOutputOptions } from './output-fanout';
import { OutputPipeline, type PtyOutputSource } from './output-pipeline';
import type { PtyExit, PtySession } from './pty-session';
import { openTestRunLedger, recordSessionOutput, startFixtureAgent, waitFor, type TestRunLedger } from '../testing/output-test-kit';
import { loadProviderCatalog } from '../providers/catalog';
import { attemptStarts } from '../runs/attempt-output';

const kib = 1024;
const mib = 1024 * kib;
const ledgers: TestRunLedger[] = [];
const sessions: PtySession[] = [];
const subscriptions: OutputSubscription[] = [];
afterEach(async () => {
  subscriptions.splice(0).forEach((subscription) => subscription.close());
  await Promise.all(sessions.splice(0).map((session) => session.stop({ graceMs: 200 })));
  ledgers.splice(0).forEach((ledger) => ledger.close());
});

function setup() {
  const test = openTestRunLedger();
  ledgers.push(test);
  const fanout = new OutputFanout({ output: test.ledger.output });
  return { test, output: test.ledger.output, fanout, ...test.createRun() };
}

function ledgerBytes(test: TestRunLedger, runId: string, from = 0): Buffer {
  return Buffer.from(test.ledger.output.read(runId, from, test.ledger.output.totalBytes(runId)).bytes);
}

/**
 * A viewer as a terminal would be: it checks that every message continues exactly where the previous
 * one ended (no gap, no duplicate) and keeps the bytes it was sent.
 */
function viewer(fanout: OutputFanout, options: Omit<SubscribeOutputOptions, 'send'>, ack: 'never' | 'inline' | 'later' = 'never') {
  const messages: OutputMessage[] = [];
  const parts: Buffer[] = [];
  /** Each attempt start sent, with where in the viewer's stream it came (the next byte's offset). */
  const attempts: Array<{ number: number; offset: number; at: number | undefined }> = [];
  let expectedOffset: number | undefined;
  let sent = 0;
  let unacked = 0;
  let maxUnacked = 0;
  let subscription: OutputSubscription | undefined;
  const errors: string[] = [];
  subscription = fanout.subscribe({
    ...options,
    send: (message) => {
      messages.push(message);
      if (message.type === 'skipped') {
        if (expectedOffset !== undefined && message.fromOffset !== expectedOffset) errors.push(`skip from ${message.fromOffset}, expected ${expectedOffset}`);
        if (message.skippedBytes !== message.toOffset - message.fromOffset) errors.push('skippedBytes disagrees with the offsets');
        expectedOffset = message.toOffset;
        return;
      }
      if (message.type === 'attempt') {
        attempts.push({ number: message.attempt.number, offset: message.offset, at: expectedOffset });
        return;
      }
      if (expectedOffset !== undefined && message.offset !== expectedOffset) errors.push(`output at ${message.offset}, expected ${expectedOffset}`);
      expectedOffset = message.offset + message.bytes.length;
      parts.push(Buffer.from(message.bytes));
      sent += message.bytes.length;
      unacked += message.bytes.length;
      maxUnacked = Math.max(maxUnacked, unacked);
      const n = message.bytes.length;
      if (ack === 'inline') {
        unacked -= n;
        subscription!.ack(n);
      }
      if (ack === 'later') {
        setImmediate(() => {
          unacked -= n;
          subscription!.ack(n);
        });
      }
    },
  });
  subscriptions.push(subscription);
  return {
    messages,
    attempts,
    errors,
    bytes: () => Buffer.concat(parts),
    firstOffset: () => messages.find((m) => m.type === 'output')?.offset,
    endOffset: () => expectedOffset,
    sent: () => sent,
    maxUnacked: () => maxUnacked,
    skips: () => messages.filter((m) => m.type === 'skipped'),
    ackAll: () => {
      const n = unacked;
      unacked = 0;
      subscription!.ack(n);
    },
    subscription: () => subscription!,
  };
}

/** A PTY stand-in whose bytes the test emits by hand, for exact control over timing. */
function scriptedPty() {
  const dataListeners = new Set<(bytes: Buffer) => void>();
  const exitListeners = new Set<(exit: PtyExit) => void>();
  let pauses = 0;
  const session: PtyOutputSource = {
    onData: (listener) => (dataListeners.add(listener), () => dataListeners.delete(listener)),
    onExit: (listener) => (exitListeners.add(listener), () => exitListeners.delete(listener)),
    pause: () => void (pauses += 1),
    resume: () => {},
  };
  let counter = 0;
  return {
    session,
    pauses: () => pauses,
    /** Emits `size` bytes whose values follow the offset, so any misplaced byte shows. */
    emit(size: number) {
      const bytes = Buffer.alloc(size);
      for (let k = 0; k < size; k += 1) bytes[k] = (counter + k) % 251;
      counter += size;
      for (const listener of dataListeners) listener(bytes);
    },
    exit: () => exitListeners.forEach((listener) => listener({ exitCode: 0, signal: null })),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('output viewers, with a scripted PTY', () => {
  it('replay reads the ledger and the unwritten queue, then follows live: no gap, no duplicate', async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const pty = scriptedPty();
    // batchMaxBytes 1: every emit is cut into a batch at once, so the test decides what is where.
    const pipeline = new OutputPipeline({ runId, attemptId, session: pty.session, output, batchMaxBytes: 1 });
    fanout.attachLive(pipeline.feed);
    pty.emit(1000);
    await settle();
    expect(output.totalBytes(runId)).toBe(1000); // in the ledger
    pty.emit(700); // queued, not yet written

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

  it('stops sending to a viewer whose window is full, then sends one skip and the tail', async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const pty = scriptedPty();
    const pipeline = new OutputPipeline({ runId, attemptId, session: pty.session, output, batchMaxBytes: 1 });
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

  it('does not skip what a viewer asked to replay, however slowly it reads', async () => {
    const { test, output, fanout, runId, attemptId } = setup();
    const pty = scriptedPty();
    const pipeline = new OutputPipeline({ runId, attemptId, session: pty.session, output, batchMaxBytes: 1 });
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
    const pipeline = new OutputPipeline({ runId, attemptId, session: pty.session, output });
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
    const pipeline = new OutputPipeline({ runId, attemptId, session: pty.session, output });
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
    const pipeline = new OutputPipeline({ runId, attemptId, session, output });
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
    const pipeline = new OutputPipeline({ runId, attemptId, session, output });
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
    const pipeline = new OutputPipeline({ runId, attemptId, session, output });
    fanout.attachLive(pipeline.feed);
    const windowBytes = 256 * kib;
    const stalled = viewer(fanout, { runId, fromOffset: 0, windowBytes });
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

describe('where attempts begin, as viewers are told', () => {
  /** A run whose fanout knows its attempts from the ledger, as the core's does. */
  function attemptsSetup() {
    const test = openTestRunLedger();
    ledgers.push(test);
    const catalog = loadProviderCatalog();
    const fanout = new OutputFanout({ output: test.ledger.output, attemptStarts: (runId) => attemptStarts(test.ledger, catalog, runId) });
    const { runId, attemptId } = test.createRun();
    let number = 1;
    /** One attempt as the run service makes it: its row, the fanout told, then its PTY's output. */
    const attempt = (id = number === 1 ? attemptId : `${runId}_att_${number}`) => {
      if (id !== attemptId) {
        test.ledger.runs.insertAttempt({ id, runId, number, startedAt: Date.now() });
        fanout.attemptStarted(runId);
      }
      number += 1;
      const pty = scriptedPty();
      // batchMaxBytes 1: every emit is its own batch (and its own ledger chunk).
      const pipeline = new OutputPipeline({ runId, attemptId: id, session: pty.session, output: test.ledger.output, batchMaxBytes: 1 });
      fanout.attachLive(pipeline.feed);
      return {
        emit: (size: number) => pty.emit(size),
        /** Exits, and marks the attempt failed once its output is all in the ledger. */
        end: async () => {
          pty.exit();
          await pipeline.whenFinished();
          test.ledger.runs.finishAttempt(id, { status: 'failed', failureCode: 'process_exit', exitCode: 1, signal: null, retryAt: null, endedAt: Date.now() });
        },
      };
    };
    return { test, fanout, runId, attempt };
  }

  /** A finished run of three attempts: 1000 bytes, then none, then 500. */
  async function threeAttempts() {
    const setup = attemptsSetup();
    const first = setup.attempt();
    first.emit(600);
    first.emit(400);
    await first.end();
    await setup.attempt().end();
    const third = setup.attempt();
    third.emit(200);
    third.emit(300);
    await third.end();
    return setup;
  }

  /** Output messages that hold bytes of two attempts: there must be none. */
  function spanning(messages: OutputMessage[], boundaries: number[]) {
    return messages.filter((m) => m.type === 'output' && boundaries.some((b) => m.offset < b && b < m.offset + m.bytes.length));
  }

  it('a replay from the start is told of every attempt just before its first byte, its slices cut there', async () => {
    const { test, fanout, runId } = await threeAttempts();
    // One read of the ledger would join all three attempts' chunks: the fanout cuts it at the boundary.
    const whole = viewer(fanout, { runId, fromOffset: 0 }, 'inline');
    await settle();
    expect(whole.errors).toEqual([]);
    expect(whole.bytes().equals(ledgerBytes(test, runId))).toBe(true);
    // The second attempt wrote nothing: it begins where the third's output does, and is still told.
    expect(whole.attempts).toEqual([
      { number: 1, offset: 0, at: undefined },
      { number: 2, offset: 1000, at: 1000 },
      { number: 3, offset: 1000, at: 1000 },
    ]);
    expect(spanning(whole.messages, [1000])).toEqual([]);
    const third = whole.messages.find((m) => m.type === 'attempt' && m.attempt.number === 3);
    expect(third).toMatchObject({ previous: { number: 2, failureCode: 'process_exit', exitCode: 1, outputOffset: null }, attempt: { outputOffset: 1000 } });
  });

  it('a tail replay that starts after an attempt began is told only of the ones after; one starting exactly there is told of it', async () => {
    const { test, fanout, runId } = await threeAttempts();
    const tail = viewer(fanout, { runId, fromOffset: 'tail', tailBytes: 300 }, 'inline');
    const fromThird = viewer(fanout, { runId, fromOffset: 1000 }, 'inline');
    const fromMiddle = viewer(fanout, { runId, fromOffset: 900 }, 'inline');
    await settle();
    expect(tail.firstOffset()).toBe(1200);
    expect(tail.attempts).toEqual([]);
    expect(fromThird.attempts.map((a) => a.number)).toEqual([2, 3]);
    expect(fromMiddle.attempts).toEqual([
      { number: 2, offset: 1000, at: 1000 },
      { number: 3, offset: 1000, at: 1000 },
    ]);
    expect(fromMiddle.bytes().equals(ledgerBytes(test, runId, 900))).toBe(true);
    expect(spanning(fromMiddle.messages, [1000])).toEqual([]);
  });

  it('a live viewer is told of a new attempt before its first byte, however early those bytes come', async () => {
    const { test, fanout, runId, attempt } = attemptsSetup();
    const first = attempt();
    const live = viewer(fanout, { runId, fromOffset: 0 }, 'inline');
    await settle();
    first.emit(700);
    await first.end();
    // The next attempt's bytes follow its start at once, before anyone could refetch the run.
    const second = attempt();
    second.emit(50);
    second.emit(25);
    await second.end();
    await settle();
    expect(live.errors).toEqual([]);
    expect(live.attempts).toEqual([
      { number: 1, offset: 0, at: undefined },
      { number: 2, offset: 700, at: 700 },
    ]);
    expect(live.bytes().equals(ledgerBytes(test, runId))).toBe(true);
    // A viewer that subscribes later, with the run done, sees the same.
    const later = viewer(fanout, { runId, fromOffset: 0 }, 'inline');
    await settle();
    expect(later.attempts).toEqual(live.attempts);
  });

  it('an attempt that began in bytes a lagging viewer was skipped past is told right after the skip', async () => {
    const { test, fanout, runId, attempt } = attemptsSetup();
    const first = attempt();
    const stalled = viewer(fanout, { runId, fromOffset: 0, windowBytes: 1000 });
    await settle();
    for (let k = 0; k < 10; k += 1) first.emit(300);
    await first.end();
    const second = attempt();
    for (let k = 0; k < 10; k += 1) second.emit(300);
    expect(stalled.sent()).toBe(1000);
    stalled.ackAll();
    // Skipped to the last half window (5500); attempt 2 began at 3000, inside the skip.
    expect(stalled.skips()).toEqual([{ type: 'skipped', runId, fromOffset: 1000, toOffset: 5500, skippedBytes: 4500 }]);
    expect(stalled.attempts).toEqual([
      { number: 1, offset: 0, at: undefined },
      { number: 2, offset: 3000, at: 5500 },
    ]);
    const order = stalled.messages.map((m) => m.type);
    expect(order.indexOf('attempt', 1)).toBe(order.indexOf('skipped') + 1);
    await second.end();
    expect(stalled.errors).toEqual([]);
    expect(ledgerBytes(test, runId).length).toBe(6000);
  });
});
