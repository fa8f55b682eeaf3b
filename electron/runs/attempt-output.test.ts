import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { events, type EventPayload } from '../../shared/contract';
import { createClientChannel } from '../events/client-channel';
import { openRunTestBed, present, timeOf, type RunTestBed } from '../testing/run-test-kit';

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

type StreamEvent = 'runOutput' | 'runOutputAttempt' | 'runOutputSkipped';
type Received = { [E in StreamEvent]: { event: E; payload: EventPayload<E> } }[StreamEvent];

/** One output stream as a window would hold it: every event in order, checked against the contract, acked at once. */
async function openStream(b: RunTestBed, runId: string, from: 'start' | 'tail' | number) {
  const received: Received[] = [];
  const client = createClientChannel((event, payload) => {
    if (event === 'runOutput') received.push({ event, payload: events.runOutput.parse(payload) });
    else if (event === 'runOutputAttempt') received.push({ event, payload: events.runOutputAttempt.parse(payload) });
    else if (event === 'runOutputSkipped') received.push({ event, payload: events.runOutputSkipped.parse(payload) });
    else return;
    if (event === 'runOutput') {
      void b.core.dispatch('ackRunOutput', { subscriptionId: (payload as { subscriptionId: string }).subscriptionId, bytes: (payload as { bytes: Uint8Array }).bytes.length }, { transport: 'browser', client });
    }
  });
  const answer = await b.core.dispatch('openRunOutput', { runId, from }, { transport: 'browser', client });
  if (!answer.ok) throw new Error(answer.error.message);
  return {
    received,
    /** Each attempt start, with the offset of the byte that came next in the stream (where it was drawn). */
    attempts() {
      const starts: Array<{ number: number; offset: number; drawnAt: number | null }> = [];
      let next: number | null = null;
      for (const entry of received) {
        if (entry.event === 'runOutput') next = entry.payload.offset + entry.payload.bytes.length;
        if (entry.event === 'runOutputAttempt') starts.push({ number: entry.payload.attempt.number, offset: entry.payload.offset, drawnAt: next });
      }
      return starts;
    },
    close: () => client.close(),
  };
}

describe('where each attempt’s output begins', () => {
  it('a run whose attempts fail reports each one’s first byte in the ledger, and streams its start just before it', async () => {
    const b = await openRunTestBed();
    beds.push(b);
    const agent = await b.createAgent(['--lines', '2', '--exit-code', '3']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    // Watching from the start, before anything ran: the starts arrive live.
    const live = await openStream(b, started.id, 'start');
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('failed');
    expect(run.attempts.map((attempt: { number: number }) => attempt.number)).toEqual([1, 2, 3]);

    // Each outputOffset is the first byte the ledger holds for that attempt, and that byte begins the
    // attempt's own output.
    const ids = b.core.ledger.runs.attempts(run.id).map((attempt) => attempt.id);
    const firstByAttempt = b.core.ledger.db
      .prepare('SELECT attempt_id, min(byte_offset) AS first FROM output_chunks WHERE run_id = ? GROUP BY attempt_id')
      .all(run.id) as Array<{ attempt_id: string; first: number }>;
    const offsets = run.attempts.map((attempt) => attempt.outputOffset);
    expect(offsets).toEqual(ids.map((id) => firstByAttempt.find((row) => row.attempt_id === id)?.first ?? null));
    expect(offsets[0]).toBe(0);
    expect(offsets[1]).toBeGreaterThan(0);
    const [first, second, third] = [0, 1, 2].map((index) => present(offsets[index], 'an attempt’s first byte')) as [number, number, number];
    expect(third).toBeGreaterThan(second);
    const total = b.core.ledger.output.totalBytes(run.id);
    const bounds = [first, second, third, total];
    for (let index = 0; index < 3; index += 1) {
      const text = new TextDecoder().decode(b.core.ledger.output.read(run.id, bounds[index]!, bounds[index + 1]! - bounds[index]!).bytes);
      // Exactly one attempt's output between two offsets: its two lines, nothing of the console's.
      expect(text.match(/line 1 of 2/g)).toHaveLength(1);
      expect(text).toContain('line 2 of 2');
      expect(text).not.toContain('attempt');
    }

    // Live, and replayed later from the start: every start just before its first byte.
    const expected = [
      { number: 1, offset: 0, drawnAt: null },
      { number: 2, offset: offsets[1], drawnAt: offsets[1] },
      { number: 3, offset: offsets[2], drawnAt: offsets[2] },
    ];
    await expect.poll(() => live.attempts().length).toBe(3);
    expect(live.attempts()).toEqual(expected);
    const replay = await openStream(b, run.id, 'start');
    await expect.poll(() => replay.attempts().length).toBe(3);
    expect(replay.attempts()).toEqual(expected);

    // What the separator says: the attempt, how the one before it ended and when, and the profile's limit.
    const separator = replay.received.find((entry) => entry.event === 'runOutputAttempt' && entry.payload.attempt.number === 3);
    expect(separator?.event).toBe('runOutputAttempt');
    const thirdStart = separator?.event === 'runOutputAttempt' ? separator.payload : null;
    expect(thirdStart).toMatchObject({ maxAttempts: 3, previous: { number: 2, failureCode: 'process_exit', exitCode: 3 }, attempt: { number: 3 } });
    expect(timeOf(thirdStart?.attempt.startedAt)).toBeGreaterThanOrEqual(timeOf(thirdStart?.previous?.endedAt));

    // From an offset inside the second attempt: only the third's start.
    const fromMiddle = await openStream(b, run.id, second + 1);
    await expect.poll(() => fromMiddle.received.some((entry) => entry.event === 'runOutputAttempt')).toBe(true);
    expect(fromMiddle.attempts()).toEqual([{ number: 3, offset: third, drawnAt: third }]);
    for (const stream of [live, replay, fromMiddle]) stream.close();
  });

  it('an attempt that printed nothing has no outputOffset, and its start is where the next output begins', async () => {
    const b = await openRunTestBed();
    beds.push(b);
    const cli = path.join(b.dataDir, 'fails-silently.sh');
    writeFileSync(cli, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const agent = await b.createAgent(['{prompt}'], { executablePath: cli });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.attempts.map((attempt: { outputOffset: number | null }) => attempt.outputOffset)).toEqual([null, null, null]);
    const replay = await openStream(b, run.id, 'start');
    await expect.poll(() => replay.attempts().length).toBe(3);
    expect(replay.attempts().map((start) => start.offset)).toEqual([0, 0, 0]);
    replay.close();
  });
});
