/**
 * Coming back to a run that kept going with no window open (issue 27): a client attaches to the
 * console service (`npm run serve` started it, detached) and opens a terminal on a finished run with
 * 100 MiB of output. Two figures:
 *   - reattach: from connecting to the service's socket (hello and welcome) to the run's first replayed
 *     bytes (getRun, openRunOutput), in ms;
 *   - replay: the whole output from the ledger, acknowledged as it arrives (as the terminal does), in MiB/s.
 * The replay is checked against the run's size: nothing skipped, nothing missing.
 *
 *   npm run bench:reattach          (OC_BENCH_MIB=100 OC_BENCH_ROUNDS=5 to change them; needs npm run build)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, bench, describe } from 'vitest';
import { startBrowserHost } from '../e2e/launchers/browser-host';
import { connectToService, type ServiceConnection } from '../electron/service/service-client';
import { serviceSocketPath } from '../electron/service/service-socket-path';
import { gitInit } from '../electron/testing/run-test-kit';
import { machine, median } from './support/console-output-path';

const mib = Number(process.env.OC_BENCH_MIB ?? 100);
const rounds = Number(process.env.OC_BENCH_ROUNDS ?? 5);

const scratch = mkdtempSync(path.join(tmpdir(), 'oc-bench-reattach-'));
const dataDir = path.join(scratch, 'data');
const project = path.join(scratch, 'project');
const file = path.join(scratch, 'output.txt');
const line = 'reattach 0123456789 the quick brown fox jumps over the lazy dog abcdefghijabcdefghijabcdefghij\n';
writeFileSync(file, line.repeat(Math.ceil((mib * 2 ** 20) / line.length)));
mkdirSync(project);
gitInit(project);

const host = await startBrowserHost({ dataDir });
const socketPath = serviceSocketPath(dataDir);

/** One run whose output is the file: `sh -c 'cat FILE'` (the command provider adds the prompt as $0). */
async function recordRun(): Promise<{ runId: string; bytes: number }> {
  const connection = await connectToService(socketPath, { client: 'node-client' });
  try {
    const projectRow = await connection.call('addProject', { path: project });
    const agent = await connection.call('createAgent', { name: 'Cat', providerId: 'command', model: 'fixture', profileId: 'program-codex-json', executablePath: '/bin/sh', commandArgs: ['-c', `cat ${file}`] });
    const task = await connection.call('createTask', { projectId: projectRow.id, title: 'Long output', prompt: 'reattach' });
    const run = await connection.call('startRun', { taskId: task.id, agentId: agent.id });
    for (;;) {
      const detail = await connection.call('getRun', { runId: run.id });
      if (detail.status === 'succeeded') return { runId: run.id, bytes: detail.outputBytes };
      if (detail.status !== 'running' && detail.status !== 'preparing' && detail.status !== 'admitted' && detail.status !== 'queued') throw new Error(`the run ended ${detail.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await connection.close();
  }
}

const recorded = await recordRun();
const reattachMs: number[] = [];
const replayRates: number[] = [];
const problems: string[] = [];

/** A client comes back: attaches, opens the run's terminal from the start, and replays it all. */
async function reattachAndReplay(): Promise<void> {
  const started = performance.now();
  const connection: ServiceConnection = await connectToService(socketPath, { client: 'node-client' });
  try {
    const stream = { subscription: undefined as string | undefined, received: 0, skipped: 0, firstBytesAt: undefined as number | undefined };
    const early: Array<[string, { subscriptionId: string; bytes?: Uint8Array; skippedBytes?: number }]> = [];
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const take = (event: string, message: { subscriptionId: string; bytes?: Uint8Array; skippedBytes?: number }) => {
      if (message.subscriptionId !== stream.subscription) return;
      if (event === 'runOutputSkipped') stream.skipped += message.skippedBytes ?? 0;
      if (event !== 'runOutput' || !message.bytes) return;
      stream.firstBytesAt ??= performance.now();
      stream.received += message.bytes.length;
      connection.ack(message.subscriptionId, message.bytes.length);
      if (stream.received >= recorded.bytes) done();
    };
    connection.onEvent((event, payload) => {
      const message = payload as { subscriptionId: string; bytes?: Uint8Array; skippedBytes?: number };
      // Output may come before the answer that names its stream.
      if (stream.subscription === undefined) early.push([event, message]);
      else take(event, message);
    });
    await connection.call('getRun', { runId: recorded.runId });
    const replayStarted = performance.now();
    const opened = await connection.call('openRunOutput', { runId: recorded.runId, from: 'start' });
    stream.subscription = opened.subscriptionId;
    for (const [event, message] of early.splice(0)) take(event, message);
    await finished;
    const seconds = (performance.now() - replayStarted) / 1000;
    reattachMs.push((stream.firstBytesAt ?? performance.now()) - started);
    replayRates.push(stream.received / 2 ** 20 / seconds);
    if (stream.skipped > 0 || stream.received !== recorded.bytes) problems.push(`replayed ${stream.received} of ${recorded.bytes} bytes, ${stream.skipped} skipped`);
    await connection.call('closeRunOutput', { subscriptionId: opened.subscriptionId });
  } finally {
    await connection.close();
  }
}

describe(`reattach to the console service and replay a run of ${mib} MiB, ${rounds} rounds`, () => {
  bench(
    'attach, open the terminal, replay from the ledger',
    async () => {
      for (let index = 0; index < rounds; index += 1) await reattachAndReplay();
    },
    { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 },
  );
});

afterAll(async () => {
  const range = (values: number[], digits: number) => `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;
  console.log(`\nMeasured on ${machine()}`);
  console.log(`A finished run of ${(recorded.bytes / 2 ** 20).toFixed(1)} MiB in the ledger; median (min-max) of ${rounds} rounds`);
  console.log(`  reattach to first replayed bytes ${range(reattachMs, 0).padStart(16)} ms`);
  console.log(`  replay, acknowledged as it comes ${range(replayRates, 0).padStart(16)} MiB/s`);
  for (const problem of problems) console.log(`  ! ${problem}`);
  await host.stop();
  rmSync(scratch, { recursive: true, force: true });
});
