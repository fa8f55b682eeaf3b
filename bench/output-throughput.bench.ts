/**
 * How fast a run's output gets through the console, as a share of raw node-pty reading the same
 * output (issue 15's table). Each round runs, back to back in one process: raw node-pty, then the
 * console's path (PTY → pipeline → ledger writer thread → ledger, fanout, WebSocket) with no viewer,
 * with a stalled viewer (never acknowledges) and with a viewer that acknowledges like the renderer;
 * the order rotates per round. Each console run's time is paired with its own round's raw time, so a
 * noisy machine moves both; the medians of those ratios are what to compare. A second raw run per
 * round shows how far the machine alone moves a share (on these 2-core VMs: a lot, so 9 rounds).
 *
 *   npm run bench:throughput            (OC_BENCH_ROUNDS=9 OC_BENCH_MIB=100 to change the size;
 *                                        OC_BENCH_PROFILE=main.cpuprofile for a CPU profile)
 *
 * A console run is done when every byte is in the ledger; it checks that none was lost.
 */
import { afterAll, bench, describe } from 'vitest';
import { profileMainThread } from './support/cpu-profile';
import { machine, median, openConsoleOutputPath, rawPty, writeFloodFile, type ViewerMode } from './support/console-output-path';

const mib = Number(process.env.OC_BENCH_MIB ?? 100);
const rounds = Number(process.env.OC_BENCH_ROUNDS ?? 9);

const flood = writeFloodFile(mib);
const { cat, expectedBytes } = flood;

const variants: Array<{ name: string; viewer: ViewerMode }> = [
  { name: 'no viewer', viewer: 'none' },
  { name: 'stalled viewer', viewer: 'stall' },
  { name: 'acking viewer', viewer: 'ack' },
];
/**
 * The same raw node-pty run a second time in each round, paired like the others: the share it gets
 * is the machine's own noise, the yardstick for the console's shares.
 */
const control = 'raw node-pty again';
const ratios = new Map<string, number[]>([[control, []], ...variants.map((variant): [string, number[]] => [variant.name, []])]);
const rates = new Map<string, number[]>([['raw node-pty', []], [control, []], ...variants.map((variant): [string, number[]] => [variant.name, []])]);
const problems: string[] = [];
/** Times the ledger's queue paused the PTY (it was writing slower than the agent), per console run. */
const pauses = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));

async function round(index: number): Promise<void> {
  const path = await openConsoleOutputPath();
  try {
    const order = ['raw', control, ...variants.map((variant) => variant.name)];
    const rotated = [...order.slice(index % order.length), ...order.slice(0, index % order.length)];
    const seconds = new Map<string, number>();
    for (const name of rotated) {
      if (name === 'raw' || name === control) {
        const raw = await rawPty(cat);
        seconds.set(name, raw.seconds);
        rates.get(name === 'raw' ? 'raw node-pty' : control)!.push(raw.bytes / 2 ** 20 / raw.seconds);
        if (raw.bytes < expectedBytes) problems.push(`round ${index + 1}: raw node-pty read ${expectedBytes - raw.bytes} bytes fewer than cat wrote`);
        continue;
      }
      const variant = variants.find((candidate) => candidate.name === name)!;
      const run = await path.run(cat, variant.viewer);
      const done = await run.finished;
      const viewer = await run.viewerStats(variant.viewer === 'ack' ? expectedBytes : undefined);
      seconds.set(name, done.seconds);
      pauses.get(name)!.push(done.pauses);
      rates.get(name)!.push(done.endOffset / 2 ** 20 / done.seconds);
      if (done.endOffset !== expectedBytes) problems.push(`round ${index + 1}, ${name}: the ledger holds ${done.endOffset} bytes, not ${expectedBytes}`);
      if (variant.viewer === 'ack' && viewer.bytes + viewer.skipped < expectedBytes) {
        problems.push(`round ${index + 1}, ${name}: the viewer got ${viewer.bytes} bytes and was told of ${viewer.skipped} skipped, short of ${expectedBytes}`);
      }
    }
    for (const name of ratios.keys()) ratios.get(name)!.push(seconds.get('raw')! / seconds.get(name)!);
  } finally {
    await path.close();
  }
}

describe(`${mib} MiB through cat in a PTY, ${rounds} paired rounds`, () => {
  bench(
    'raw node-pty vs the console (no viewer, stalled viewer, acking viewer)',
    async () => {
      const stopProfile = await profileMainThread();
      for (let index = 0; index < rounds; index += 1) await round(index);
      await stopProfile();
    },
    { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 },
  );
});

afterAll(() => {
  const range = (values: number[], digits: number) =>
    `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;
  console.log(`\nMeasured on ${machine()}`);
  console.log(`${mib} MiB through cat in a PTY, ${rounds} rounds; share of raw node-pty = raw time / console time, paired per round`);
  for (const [name, values] of rates) {
    const ratio = ratios.get(name);
    const paused = pauses.get(name);
    console.log(`  ${name.padEnd(18)} ${range(values, 0).padStart(16)} MiB/s${ratio ? `   share of raw ${range(ratio, 2)}` : ''}${paused ? `   PTY paused ${range(paused, 0)} times` : ''}`);
  }
  for (const problem of problems) console.log(`  ! ${problem}`);
  flood.remove();
});
