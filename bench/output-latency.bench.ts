/**
 * How soon a line an agent writes reaches a viewer, and what many chatty runs cost the console
 * (issue 15's table). Real parts as in output-throughput.bench.ts: PTYs, the pipeline, the ledger's
 * writer thread, the fanout, a WebSocket to a viewer in another process that acknowledges like the
 * renderer.
 *
 *   npm run bench:latency              (OC_BENCH_ROUNDS=5 for more rounds)
 *
 * - quiet: one agent writes a timestamped line every 10 ms; the viewer times each line on arrival
 *   (PTY write → client; both clocks are the machine's wall clock);
 * - under a flood: the same, while another run floods as fast as its PTY takes it, with its own viewer;
 * - 16 chatty runs: 16 agents each writing a 100-byte line every 20 ms, each watched; the console's
 *   CPU (this process, every thread: pipeline, writer, fanout, socket) per second of wall time.
 */
import { afterAll, bench, describe } from 'vitest';
import { agentScript, machine, median, openConsoleOutputPath, percentile, type ConsoleOutputPath } from './support/console-output-path';

const rounds = Number(process.env.OC_BENCH_ROUNDS ?? 3);
const seconds = 5;
const node = process.execPath;
const ticker = (intervalMs: number) => ({
  executable: node,
  args: [agentScript('ticker-agent.mjs'), '--interval-ms', String(intervalMs), '--duration-ms', String(seconds * 1000), '--line-bytes', '100'],
});
const flood = { executable: node, args: [agentScript('flood-agent.mjs'), '--duration-ms', String(seconds * 1000)] };

const results = { quiet: [] as number[][], flood: [] as number[][], cores: [] as number[], floodMiBs: [] as number[] };

async function latency(path: ConsoleOutputPath, withFlood: boolean): Promise<number[]> {
  const flooding = withFlood ? await path.run(flood, 'ack') : undefined;
  const quiet = await path.run(ticker(10), 'ack', { latency: true });
  await quiet.finished;
  const stats = await quiet.viewerStats();
  if (flooding) {
    const done = await flooding.finished;
    results.floodMiBs.push(done.endOffset / 2 ** 20 / done.seconds);
    await flooding.viewerStats();
  }
  return stats.latencies;
}

async function chattyCpu(path: ConsoleOutputPath): Promise<number> {
  const before = process.cpuUsage();
  const started = performance.now();
  const runs = await Promise.all(Array.from({ length: 16 }, () => path.run(ticker(20), 'ack')));
  await Promise.all(runs.map((run) => run.finished));
  const used = process.cpuUsage(before);
  const wallMs = performance.now() - started;
  await Promise.all(runs.map((run) => run.viewerStats()));
  return (used.user + used.system) / 1000 / wallMs;
}

describe(`output latency and the cost of chatty runs, ${rounds} rounds`, () => {
  bench(
    'latency quiet / under a flood, and 16 chatty runs',
    async () => {
      for (let round = 0; round < rounds; round += 1) {
        const path = await openConsoleOutputPath();
        try {
          results.quiet.push(await latency(path, false));
          results.flood.push(await latency(path, true));
          results.cores.push(await chattyCpu(path));
        } finally {
          await path.close();
        }
      }
    },
    { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 },
  );
});

afterAll(() => {
  const describe = (perRound: number[][]) => {
    const p = (q: number) => perRound.map((values) => percentile(values, q));
    const fmt = (values: number[]) => `${median(values).toFixed(1)} (${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)})`;
    return `p50 ${fmt(p(50))}  p95 ${fmt(p(95))}  p99 ${fmt(p(99))}  max ${fmt(p(100))} ms  (${perRound.map((values) => values.length).join('/')} lines)`;
  };
  console.log(`\nMeasured on ${machine()}; medians over ${rounds} rounds (range in brackets)`);
  console.log(`  latency PTY write → viewer, quiet          ${describe(results.quiet)}`);
  console.log(`  latency PTY write → viewer, under a flood  ${describe(results.flood)}   (the flood ran at ${median(results.floodMiBs).toFixed(0)} MiB/s)`);
  console.log(`  16 chatty runs: console CPU ${median(results.cores).toFixed(3)} cores (${Math.min(...results.cores).toFixed(3)}-${Math.max(...results.cores).toFixed(3)})`);
});
