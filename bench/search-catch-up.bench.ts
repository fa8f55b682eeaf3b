/**
 * Whether the search index's catch-up slows a run (issue 29: indexing must not). A flood is stored
 * ahead of the index and indexed later, in the gaps between writes (electron/search/search-index-upkeep.ts);
 * the worst case is a flood that starts while such a catch-up is under way. Each round runs, back to
 * back in one process and in a rotating order: raw node-pty (twice: the second is the noise's
 * yardstick), a console run on a ledger whose index is idle (no catch-up at all), and a console run that
 * starts while the index is catching up on a 16 MiB backlog. Each console run's time is paired with its
 * own round's raw time; the figure to read is the catch-up run's share against the idle run's, beside
 * raw against itself.
 *
 *   npm run bench:search-catch-up        (OC_BENCH_ROUNDS=9 OC_BENCH_MIB=100 to change the size)
 *
 * Both console runs have no viewer (the output path's cheapest, where a cost shows most).
 *
 * Then how long the index takes to catch up on the same backlog, from its last append: with no run
 * going (the upkeep does not rest) and with a run going that prints nothing (it rests three times as
 * long as each step took), in alternating order.
 */
import { afterAll, bench, describe } from 'vitest';
import { machine, median, openConsoleOutputPath, rawPty, writeFloodFile, type ConsoleOutputPath } from './support/console-output-path';

const mib = Number(process.env.OC_BENCH_MIB ?? 100);
const rounds = Number(process.env.OC_BENCH_ROUNDS ?? 9);
const backlogMiB = 16;

const flood = writeFloodFile(mib);
const { cat, expectedBytes } = flood;
/** Agent-like text with many distinct words, so the backlog costs the index what real output does. */
const backlog = Buffer.from(
  Array.from({ length: (backlogMiB * 1024 * 1024) / 64 }, (_, index) => `step ${index} wrote src/module${index % 997}/file${index}.ts ok\n`.padEnd(64, '.')).join(''),
);

const names = ['raw', 'raw node-pty again', 'idle index', 'meets a catch-up'] as const;
const shares = new Map<string, number[]>(names.slice(1).map((name) => [name, []]));
/** The catch-up run's time against the idle run's, per round (above 1: the catch-up slowed it). */
const costs: number[] = [];
/** Seconds from the backlog's last append until it is all indexed, per round. */
const catchUpSeconds = { 'no run going': [] as number[], 'a run going': [] as number[] };
const problems: string[] = [];

async function consoleRun(output: ConsoleOutputPath, name: string, index: number): Promise<number> {
  const run = await output.run(cat, 'none');
  const done = await run.finished;
  if (done.endOffset !== expectedBytes) problems.push(`round ${index + 1}, ${name}: the ledger holds ${done.endOffset} bytes, not ${expectedBytes}`);
  return done.seconds;
}

/** Settles once the catch-up has indexed part of the backlog and has more to do: it is under way. */
async function catchUpUnderWay(output: ConsoleOutputPath): Promise<boolean> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const state = output.searchIndex!.state();
    if (state.indexedBytes > 0 && !state.complete) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

async function round(index: number): Promise<void> {
  const idle = await openConsoleOutputPath({ searchCatchUp: false });
  const catchingUp = await openConsoleOutputPath();
  try {
    const rotated = [...names.slice(index % names.length), ...names.slice(0, index % names.length)];
    const seconds = new Map<string, number>();
    for (const name of rotated) {
      if (name === 'raw' || name === 'raw node-pty again') seconds.set(name, (await rawPty(cat)).seconds);
      else if (name === 'idle index') seconds.set(name, await consoleRun(idle, name, index));
      else {
        await catchingUp.leaveIndexBehind(backlog);
        if (!(await catchUpUnderWay(catchingUp))) problems.push(`round ${index + 1}: the catch-up did not start within 10 s`);
        seconds.set(name, await consoleRun(catchingUp, name, index));
      }
    }
    for (const name of shares.keys()) shares.get(name)!.push(seconds.get('raw')! / seconds.get(name)!);
    costs.push(seconds.get('meets a catch-up')! / seconds.get('idle index')!);
  } finally {
    await idle.close();
    await catchingUp.close();
  }
}

/** The backlog left behind, then the time until the index has caught up on it. */
async function catchUpTime(going: boolean): Promise<number> {
  const output = await openConsoleOutputPath();
  const release = going ? output.holdRunGoing() : () => {};
  try {
    await output.leaveIndexBehind(backlog);
    const started = performance.now();
    await output.searchIndex!.caughtUp();
    if (!output.searchIndex!.state().complete) problems.push('the catch-up ended with the index incomplete');
    return (performance.now() - started) / 1000;
  } finally {
    release();
    await output.close();
  }
}

describe(`${mib} MiB through cat in a PTY, ${rounds} paired rounds, beside a search index catch-up`, () => {
  bench(
    'a flood on an idle index vs a flood that meets a catch-up',
    async () => {
      for (let index = 0; index < rounds; index += 1) await round(index);
    },
    { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 },
  );
  bench(
    `the index catching up on ${backlogMiB} MiB, with and without a run going`,
    async () => {
      for (let index = 0; index < rounds; index += 1) {
        const order = index % 2 === 0 ? [false, true] : [true, false];
        for (const going of order) catchUpSeconds[going ? 'a run going' : 'no run going'].push(await catchUpTime(going));
      }
    },
    { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 },
  );
});

afterAll(() => {
  const range = (values: number[]) => `${median(values).toFixed(2)} (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`;
  console.log(`\nMeasured on ${machine()}`);
  console.log(`${mib} MiB through cat in a PTY, no viewer, ${rounds} rounds; share of raw node-pty = raw time / console time, paired per round`);
  for (const [name, values] of shares) console.log(`  ${name.padEnd(20)} share of raw ${range(values)}`);
  console.log(`  a flood that meets a ${backlogMiB} MiB catch-up takes ${range(costs)} × the time of one on an idle index`);
  for (const [name, values] of Object.entries(catchUpSeconds)) console.log(`  the index catches up on ${backlogMiB} MiB in ${range(values)} s with ${name} (from the last append; a second of it is the wait for quiet)`);
  for (const problem of problems) console.log(`  ! ${problem}`);
  flood.remove();
});
