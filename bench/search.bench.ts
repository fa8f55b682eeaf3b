/**
 * Full-text search over a generated ledger of realistic agent output (issue 29): how fast the index is
 * built as output is stored, what it costs the writer, how large it is against the text, and how long
 * a query takes (p50/p95 over a mix of common and rare words, phrases, prefixes and filters), through
 * the real ledger, output writer thread and SearchService.
 *
 *   npm run bench:search                  (OC_BENCH_SEARCH_MIB=1024 by default: the output generated)
 *
 * The output is written the way runs write it, 1 MiB transactions through the writer thread, spread
 * over runs of about 10 MiB each: first with the index kept inline (what a trickle gets), measuring the
 * writer's rate; then, on a second ledger, a share of it with the index left behind (what a flood
 * gets, the plain store) for the writer's raw rate. A flood faster than the inline rate is stored at the
 * raw rate and indexed in the gaps (pty/ledger-write-queue.ts `behind`), so the run is not slowed.
 */
import path from 'node:path';
import { afterAll, bench, describe } from 'vitest';
import { openLedger, type Ledger } from '../electron/ledger/ledger';
import { OutputTextExtractor, type OutputTextRow } from '../electron/ledger/output-text';
import { createMemoryLogger } from '../electron/platform/log';
import { SearchIndexUpkeep } from '../electron/search/search-index-upkeep';
import { SearchService } from '../electron/search/search-service';
import { recordTestRun } from '../electron/testing/output-test-kit';
import { makeTempDir } from '../electron/testing/temp-dir';

const mib = 1024 * 1024;
const totalMiB = Number(process.env.OC_BENCH_SEARCH_MIB ?? 1024);
const runMiB = 10;
/** Runs generated, numbered 1 (the oldest) to `runs`. */
const runs = Math.ceil(totalMiB / runMiB);
const rawMiB = Math.min(totalMiB, 128);

/** A deterministic generator (mulberry32), so two invocations index the same output. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = random(29);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
/** Zipf-ish: a few words are everywhere, most are rare (as in real logs). */
const zipf = <T>(items: readonly T[]): T => items[Math.min(items.length - 1, Math.floor(items.length * rand() ** 3))]!;

const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'zen', 'dra', 'pol', 'quo', 'fer', 'gin', 'tas', 'mor', 'bel', 'cy', 'dox', 'ul'];
const vocabulary = Array.from({ length: 20_000 }, () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(syllables)).join(''));
const english = 'the a to of and in is for on with that this it not be are from by at as was an or has have error failed passed test build file module function type value expected received cannot find property undefined import export return const let async await'.split(' ');
const identifier = () => `${zipf(vocabulary)}${pick(['', 'Service', 'Handler', 'Store', 'Id', 'Config'])}`;
const filePath = () => `src/${zipf(vocabulary)}/${zipf(vocabulary)}.${pick(['ts', 'tsx', 'js', 'py', 'rs'])}`;
const hex = (length: number) => Array.from({ length }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');
const sentence = (words: number) => Array.from({ length: words }, () => (rand() < 0.6 ? zipf(english) : zipf(vocabulary))).join(' ');
const colour = (text: string) => (rand() < 0.3 ? `\x1b[${pick(['31', '32', '33', '1;34', '2'])}m${text}\x1b[0m` : text);

/** One line of what agents print: test runs, compiler errors, stack traces, JSON events, diffs, logs. */
function agentLine(): string {
  switch (Math.floor(rand() * 9)) {
    case 0:
      return `${colour(pick(['✓', '✗', '↓']))} ${filePath()} > ${sentence(4)} (${Math.floor(rand() * 900)} ms)`;
    case 1:
      return `${colour('error')} TS${2300 + Math.floor(rand() * 400)}: Property '${identifier()}' does not exist on type '${identifier()}'.`;
    case 2:
      return `    at ${identifier()}.${zipf(vocabulary)} (${filePath()}:${Math.floor(rand() * 500)}:${Math.floor(rand() * 80)})`;
    case 3:
      return JSON.stringify({ type: 'item.completed', item: { id: `item_${hex(8)}`, type: 'agent_message', text: sentence(12 + Math.floor(rand() * 20)) } });
    case 4:
      return JSON.stringify({ type: 'item.completed', item: { type: 'command_execution', command: `npm test -- ${filePath()}`, exit_code: Math.floor(rand() * 2), aggregated_output: sentence(8) } });
    case 5:
      return `${pick(['+', '-', ' '])}  const ${identifier()} = ${pick([`'${sentence(3)}'`, String(Math.floor(rand() * 1e6)), `${identifier()}(${identifier()})`])};`;
    case 6:
      return `[${new Date(1_790_000_000_000 + Math.floor(rand() * 1e9)).toISOString()}] ${colour(pick(['INFO', 'WARN', 'DEBUG', 'ERROR']))} ${sentence(8 + Math.floor(rand() * 10))}`;
    case 7:
      return `commit ${hex(40)} ${sentence(6)}`;
    default:
      return sentence(6 + Math.floor(rand() * 14));
  }
}

/** About `bytes` of output, as the PTY gives it ("\r\n"). */
function outputOf(bytes: number): Buffer {
  const lines: string[] = [];
  let length = 0;
  while (length < bytes) {
    const line = `${agentLine()}\r\n`;
    lines.push(line);
    length += Buffer.byteLength(line);
  }
  return Buffer.from(lines.join(''));
}

interface Build {
  ledger: Ledger;
  seconds: number;
  outputBytes: number;
  textBytes: number;
}

/** Writes `totalBytes` of output through the writer, 1 MiB per transaction, `runMiB` per run. */
async function buildLedger(dir: string, totalBytes: number, behind: boolean): Promise<Build> {
  const ledger = openLedger(dir);
  let seconds = 0;
  let textBytes = 0;
  let written = 0;
  for (let run = 1; written < totalBytes; run++) {
    const { runId, attemptId } = recordTestRun(ledger.db, `${run}`, path.join(dir, `project-${run}`));
    const extractor = new OutputTextExtractor(0);
    for (let offset = 0; offset < runMiB * mib && written < totalBytes; ) {
      const bytes = outputOf(mib);
      // What the index is given: the text the screen shows (counted outside the timed part).
      const rows: OutputTextRow[] = [];
      extractor.push(bytes, 0, rows);
      for (const row of rows) textBytes += Buffer.byteLength(row.text);
      // Chunks of 64 KiB, as the pipeline cuts its batches (pty/output-pipeline.ts batchMaxBytes).
      const chunks = [];
      for (let at = 0; at < bytes.length; at += 64 * 1024) {
        chunks.push({ runId, attemptId, byteOffset: offset + at, bytes: bytes.subarray(at, at + 64 * 1024), createdAt: 1_790_000_000_000 + run * 1000 });
      }
      const started = performance.now();
      await ledger.outputWriter.appendChunks(chunks, { behind });
      seconds += (performance.now() - started) / 1000;
      offset += bytes.length;
      written += bytes.length;
    }
  }
  return { ledger, seconds, outputBytes: written, textBytes };
}

const queries = [
  'error',
  'the',
  'failed test',
  'does not exist',
  '"does not exist on type"',
  // Common words that rarely stand in this order: its walk goes through the whole index (README, Search).
  '"type does not"',
  'Property',
  'cannot find',
  'npm test',
  'exit_code',
  'ERROR',
  'WARN build',
  ...Array.from({ length: 12 }, () => zipf(vocabulary)),
  ...Array.from({ length: 12 }, () => vocabulary[Math.floor(rand() * vocabulary.length)]!),
  ...Array.from({ length: 6 }, () => `${zipf(vocabulary).slice(0, 3)}*`),
  ...Array.from({ length: 4 }, () => `${zipf(vocabulary)} ${zipf(english)}`),
  'commit 3f*',
];

const dir = makeTempDir('oc-bench-search-');
const rawDir = makeTempDir('oc-bench-search-raw-');
const times: number[] = [];
const perQuery = new Map<string, number[]>();
const report: string[] = [];
const built = await buildLedger(dir.path, totalMiB * mib, false);
const raw = await buildLedger(rawDir.path, rawMiB * mib, true);
await raw.ledger.outputWriter.close();
raw.ledger.close();
const log = createMemoryLogger();
const upkeep = new SearchIndexUpkeep(built.ledger, log);
const search = new SearchService(built.ledger, upkeep, log);

const sizes = built.ledger.db
  .prepare("SELECT CASE WHEN name LIKE 'search%' THEN 'index' WHEN name LIKE 'output_chunks%' THEN 'output' ELSE 'other' END AS part, sum(pgsize) AS bytes FROM dbstat GROUP BY part")
  .all() as Array<{ part: string; bytes: number }>;
const sizeOf = (part: string) => sizes.find((row) => row.part === part)?.bytes ?? 0;
const rate = (bytes: number, seconds: number) => `${(bytes / mib / seconds).toFixed(1)} MiB/s`;
report.push(
  `output: ${(built.outputBytes / mib).toFixed(0)} MiB in ${runs} runs; text the screen shows: ${(built.textBytes / mib).toFixed(0)} MiB`,
  `writer with the index inline: ${rate(built.outputBytes, built.seconds)}; without (a flood's plain store, ${rawMiB} MiB): ${rate(raw.outputBytes, raw.seconds)}; inline share of raw: ${(raw.seconds / raw.outputBytes / (built.seconds / built.outputBytes)).toFixed(2)}`,
  `index: ${(sizeOf('index') / mib).toFixed(0)} MiB = ${(sizeOf('index') / built.textBytes).toFixed(2)} × the text, ${(sizeOf('index') / built.outputBytes).toFixed(2)} × the output (output pages ${(sizeOf('output') / mib).toFixed(0)} MiB)`,
);

describe(`search over ${totalMiB} MiB of agent output`, () => {
  bench(
    `${queries.length} queries, 20 results each`,
    async () => {
      for (const query of queries) {
        const started = performance.now();
        await search.search({ query, limit: 20 });
        const took = performance.now() - started;
        times.push(took);
        perQuery.set(query, [...(perQuery.get(query) ?? []), took]);
      }
      // And with filters, applied to every match (not only the newest): the oldest run's agent (1 % of
      // the rows, under all the others), the middle one's (as far as can be from either end of the
      // index: the walk's worst case) and the newest run's.
      for (const query of queries.slice(0, 8)) {
        for (const agentId of ['agt_1', `agt_${Math.ceil(runs / 2)}`, `agt_${runs}`]) {
          const started = performance.now();
          await search.search({ query, limit: 20, agentId, status: 'running' });
          const took = performance.now() - started;
          times.push(took);
          perQuery.set(`${query} [${agentId}]`, [...(perQuery.get(`${query} [${agentId}]`) ?? []), took]);
        }
      }
    },
    { iterations: 5, warmupIterations: 1, time: 0, warmupTime: 0 },
  );
});

afterAll(async () => {
  const summary = (each: number[]) => {
    const sorted = [...each].sort((a, b) => a - b);
    const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!.toFixed(1);
    return `${sorted.length}; p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`;
  };
  report.push(`queries: ${summary(times)}`);
  // The mix of the figures before the middle agent and the rare phrase joined it (README, Search).
  const middle = `[agt_${Math.ceil(runs / 2)}]`;
  const earlierMix = [...perQuery].filter(([query]) => !query.endsWith(middle) && !query.startsWith('"type does not"')).flatMap(([, each]) => each);
  report.push(`queries without the middle agent's and the rare phrase: ${summary(earlierMix)}`);
  const slowest = [...perQuery].map(([query, each]) => [query, Math.max(...each)] as const).sort((a, b) => b[1] - a[1]).slice(0, 8);
  report.push(`slowest: ${slowest.map(([query, ms]) => `${query} ${ms.toFixed(0)} ms`).join(', ')}`);
  console.log(`\nsearch benchmark\n  ${report.join('\n  ')}\n`);
  await search.close();
  await built.ledger.outputWriter.close();
  built.ledger.close();
  dir.remove();
  rawDir.remove();
});
