import { afterEach, describe, expect, it } from 'vitest';
import { OutputFanout, type OutputMessage } from './output-fanout';
import { OutputPipeline } from './output-pipeline';
import { openTestRunLedger, type TestRunLedger } from '../testing/output-test-kit';
import { closeViewers, ledgerBytes, scriptedPty, settle, viewer } from '../testing/output-viewer-kit';
import { loadProviderCatalog } from '../providers/catalog';
import { attemptStarts } from '../runs/attempt-output';

const ledgers: TestRunLedger[] = [];
afterEach(() => {
  closeViewers();
  ledgers.splice(0).forEach((ledger) => ledger.close());
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
        test.ledger.runs.insertAttempt({ id, runId, number, cause: 'retry', startedAt: Date.now() });
        fanout.attemptStarted(runId);
      }
      number += 1;
      const pty = scriptedPty();
      // batchMaxBytes 1: every emit is its own batch (and its own ledger chunk).
      const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId: id, session: pty.session, output: test.ledger.output, batchMaxBytes: 1 });
      fanout.attachLive(pipeline.feed);
      return {
        emit: (size: number) => pty.emit(size),
        /** Exits, and marks the attempt failed once its output is all in the ledger. */
        end: async () => {
          pty.exit();
          await pipeline.whenFinished();
          test.ledger.runs.endAttempt(id, 'running', { status: 'failed', failureCode: 'process_exit', exitCode: 1, signal: null, retryAt: null, endedAt: Date.now() });
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
