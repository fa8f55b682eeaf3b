import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { OutputPipeline } from './output-pipeline';
import type { PtySession } from './pty-session';
import { floodReport, openTestRunLedger, recordSessionOutput, startFixtureAgent, type TestRunLedger } from '../testing/output-test-kit';

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
  return { test, output: test.ledger.output, ...test.createRun() };
}

function start(args: string[]) {
  const session = startFixtureAgent(args);
  sessions.push(session);
  let pauses = 0;
  let resumes = 0;
  const pause = session.pause.bind(session);
  const resume = session.resume.bind(session);
  // Count every pause the PTY gets, whoever asks.
  session.pause = () => {
    pauses += 1;
    pause();
  };
  session.resume = () => {
    resumes += 1;
    resume();
  };
  return { session, recorded: recordSessionOutput(session), calls: () => ({ pauses, resumes }) };
}

function ledgerBytes(test: TestRunLedger, runId: string): Buffer {
  const total = test.ledger.output.totalBytes(runId);
  return Buffer.from(test.ledger.output.read(runId, 0, total).bytes);
}

function expectIntactFlood(text: string, targetBytes: number) {
  const report = floodReport(text);
  expect(report).toBeDefined();
  expect(report!.bytes).toBeGreaterThanOrEqual(targetBytes);
  expect(Buffer.byteLength(report!.body)).toBe(report!.bytes);
  expect(createHash('sha256').update(report!.body).digest('hex')).toBe(report!.sha256);
  // Every multi-byte character survived reads that split it: none decodes to U+FFFD.
  expect(text).not.toContain('\uFFFD');
  const lines = report!.body.split('\n').slice(0, -1);
  expect(lines).toHaveLength(report!.lines);
  lines.forEach((line, k) => expect(line.startsWith(`flood ${String(k).padStart(7, '0')} é漢🙂 `)).toBe(true));
}

describe('the live output pipeline', () => {
  it('stores every byte the PTY produced, in order, exactly as produced', async () => {
    const { test, output, runId, attemptId } = setup();
    const { session, recorded, calls } = start(['--flood-bytes', String(4 * mib)]);
    const pipeline = new OutputPipeline({ runId, attemptId, session, output });

    const result = await pipeline.whenFinished();

    expect(result.exit).toEqual({ exitCode: 0, signal: null });
    const stored = ledgerBytes(test, runId);
    expect(stored.length).toBe(result.endOffset);
    expect(stored.equals(recorded.bytes())).toBe(true);
    expectIntactFlood(stored.toString('utf8'), 4 * mib);
    // Batching: far fewer rows than bytes, none larger than a read plus the batch bound.
    const rows = test.ledger.db.prepare('SELECT count(*) AS n, max(length(bytes)) AS largest FROM output_chunks WHERE run_id = ?').get(runId) as {
      n: number;
      largest: number;
    };
    expect(rows.n).toBeLessThan(stored.length / 1024);
    expect(rows.largest).toBeLessThanOrEqual(2 * 64 * 1024);
    // A fast ledger never needed to hold the agent back.
    expect(calls().pauses).toBe(pipeline.stats().pauses);
  });

  it('batches a slow trickle into few chunks and finishes right after the agent exits', async () => {
    const { test, output, runId, attemptId } = setup();
    const { session, recorded } = start(['--lines', '20', '--delay-ms', '2', '--exit-code', '4']);
    const pipeline = new OutputPipeline({ runId, attemptId, session, output });
    const result = await pipeline.whenFinished();
    expect(result.exit.exitCode).toBe(4);
    expect(ledgerBytes(test, runId).equals(recorded.bytes())).toBe(true);
    expect(ledgerBytes(test, runId).toString()).toContain('line 20 of 20\r\n');
  });

  it('pauses the PTY while the ledger falls behind and resumes it, losing nothing', async () => {
    const { test, output, runId, attemptId } = setup();
    const { session, recorded, calls } = start(['--flood-bytes', String(2 * mib)]);
    const pipeline = new OutputPipeline({
      runId,
      attemptId,
      session,
      output,
      highWatermarkBytes: 128 * 1024,
      lowWatermarkBytes: 32 * 1024,
      writeDelayMs: 15,
      maxTransactionBytes: 96 * 1024,
    });

    const result = await pipeline.whenFinished();

    const stats = pipeline.stats();
    expect(stats.pauses).toBeGreaterThan(0);
    expect(stats.resumes).toBeGreaterThan(0);
    expect(calls()).toEqual({ pauses: stats.pauses, resumes: stats.resumes });
    // Bounded: the queue never grew much past the high watermark (one read and one batch over it).
    expect(stats.maxQueuedBytes).toBeLessThan(128 * 1024 + 2 * 64 * 1024 + 64 * 1024);
    const stored = ledgerBytes(test, runId);
    expect(stored.length).toBe(result.endOffset);
    expect(stored.equals(recorded.bytes())).toBe(true);
    expectIntactFlood(stored.toString('utf8'), 2 * mib);
  });

  it("continues a run's output after an earlier attempt's", async () => {
    const { test, output, runId, attemptId } = setup();
    const first = start(['--lines', '3']);
    await new OutputPipeline({ runId, attemptId, session: first.session, output }).whenFinished();
    const firstBytes = ledgerBytes(test, runId);

    test.ledger.db.prepare("INSERT INTO attempts (id, run_id, number, status) VALUES ('att_second', ?, 2, 'running')").run(runId);
    const second = start(['--lines', '2']);
    const result = await new OutputPipeline({ runId, attemptId: 'att_second', session: second.session, output }).whenFinished();

    const stored = ledgerBytes(test, runId);
    expect(result.endOffset).toBe(stored.length);
    expect(stored.equals(Buffer.concat([firstBytes, second.recorded.bytes()]))).toBe(true);
    const attempts = test.ledger.db
      .prepare('SELECT DISTINCT attempt_id FROM output_chunks WHERE run_id = ? AND byte_offset >= ?')
      .all(runId, firstBytes.length) as Array<{ attempt_id: string }>;
    expect(attempts.map((row) => row.attempt_id)).toEqual(['att_second']);
  });
});
