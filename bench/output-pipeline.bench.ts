/**
 * Run throughput through a real PTY and a real ledger file, with no viewer, a stalled viewer (never
 * acknowledges: a hidden or throttled tab) and an acking viewer (a terminal that keeps up). DESIGN.md
 * section 5 promises that a viewer never slows the agent: the three should be about equal.
 *
 *   npx vitest bench --run bench/output-pipeline.bench.ts
 *
 * Each iteration is one whole run: the fixture agent floods `floodBytes` of text and exits; the time
 * is from spawn to "every byte is in the ledger" (for the baseline, to the PTY's exit). MiB/s lines are
 * printed when the file is done; they include the fixture's own cost of generating its text.
 */
import { afterAll, bench, describe } from 'vitest';
import { OutputFanout, type OutputSubscription } from '../electron/pty/output-fanout';
import { OutputPipeline } from '../electron/pty/output-pipeline';
import { openTestRunLedger, startFixtureAgent } from '../electron/testing/output-test-kit';

const floodBytes = 16 * 1024 * 1024;
const options = { iterations: 6, warmupIterations: 1, time: 0, warmupTime: 0 };

const test = openTestRunLedger();
const fanout = new OutputFanout({ output: test.ledger.output });
const timings = new Map<string, number[]>();

type Viewer = 'none' | 'stalled' | 'acking';

function record(name: string, bytes: number, started: number): void {
  const seconds = (performance.now() - started) / 1000;
  const list = timings.get(name) ?? [];
  list.push(bytes / (1024 * 1024) / seconds);
  timings.set(name, list);
}

/** The baseline: the same agent on a PTY with nothing but a byte counter reading it. */
async function ptyOnly(): Promise<void> {
  const started = performance.now();
  const session = startFixtureAgent(['--flood-bytes', String(floodBytes)]);
  let bytes = 0;
  session.onData((chunk) => (bytes += chunk.length));
  await new Promise((resolve) => session.onExit(resolve));
  record('PTY only', bytes, started);
}

async function oneRun(name: string, viewer: Viewer, pipelineOptions: { writeDelayMs?: number } = {}): Promise<void> {
  const { runId, attemptId } = test.createRun();
  const started = performance.now();
  const session = startFixtureAgent(['--flood-bytes', String(floodBytes)]);
  const pipeline = new OutputPipeline({ runId, attemptId, session, output: test.ledger.output, ...pipelineOptions });
  fanout.attachLive(pipeline.feed);
  let subscription: OutputSubscription | undefined;
  if (viewer === 'stalled') subscription = fanout.subscribe({ runId, fromOffset: 0, send: () => {} });
  if (viewer === 'acking') {
    subscription = fanout.subscribe({
      runId,
      fromOffset: 0,
      // Acknowledge a turn of the event loop later, as a renderer does after xterm.js has parsed.
      send: (message) => {
        if (message.type === 'output') setImmediate(() => subscription?.ack(message.bytes.length));
      },
    });
  }
  const { endOffset } = await pipeline.whenFinished();
  subscription?.close();
  record(name, endOffset, started);
}

describe(`run of ${floodBytes / (1024 * 1024)} MiB through PTY + ledger`, () => {
  bench('PTY only (baseline: no ledger, no viewer)', () => ptyOnly(), options);
  bench('no viewer', () => oneRun('no viewer', 'none'), options);
  bench('stalled viewer (never acks)', () => oneRun('stalled viewer', 'stalled'), options);
  bench('acking viewer', () => oneRun('acking viewer', 'acking'), options);
  bench('no viewer, slow ledger (2 ms per transaction)', () => oneRun('slow ledger', 'none', { writeDelayMs: 2 }), options);
});

afterAll(() => {
  for (const [name, list] of timings) {
    const sorted = [...list].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    console.log(`${name.padEnd(16)} median ${median.toFixed(1)} MiB/s over ${list.length} runs incl. warmup (min ${sorted[0]?.toFixed(1)}, max ${sorted.at(-1)?.toFixed(1)})`);
  }
  test.close();
});
