/**
 * How far the screen lags behind a flooding agent (issue 15: never more than 250 ms, first second
 * included). The real browser host (dist/, so `npm run build` first) and Chromium via Playwright: a run
 * whose agent prints about 32 MiB/s of lines stamped with their write time (`T=<ms since epoch>`,
 * the fixture agent's --timed-flood-ms) for several seconds. Every 250 ms the page itself reads the
 * newest stamp in the terminal's visible rows and keeps `Date.now()` minus it; a sample before the
 * first flood line reached the screen counts from the flood's start (read from the ledger).
 *
 *   npm run build && npx vitest bench --run bench/renderer-lag.bench.ts
 *
 * Chromium runs with the e2e suite's flags (--disable-gpu: usually no WebGL, so xterm.js draws with
 * its DOM renderer). LAG_BENCH_GPU=1 drops --disable-gpu and lets Chromium use SwiftShader's WebGL
 * (--enable-unsafe-swiftshader) or a real GPU, so the terminal draws with WebGL where it can; the
 * renderer used is printed. LAG_BENCH_ROUNDS and LAG_BENCH_FLOOD_MS change the rounds and their length.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { chromium, type Page } from '@playwright/test';
import { afterAll, bench, describe } from 'vitest';
import { startBrowserHost } from '../e2e/launchers/browser-host';
import { chromiumArgs, chromiumLaunchOptions } from '../e2e/launchers/chromium';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask } from '../e2e/specs/helpers';
import { ledgerFileName } from '../electron/ledger/ledger';

const rounds = Number(process.env.LAG_BENCH_ROUNDS ?? 4);
const floodMs = Number(process.env.LAG_BENCH_FLOOD_MS ?? 6000);
const floodMiBPerSecond = 32;
const sampleEveryMs = 250;
const gpu = process.env.LAG_BENCH_GPU === '1';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'oc-bench-lag-'));
const host = await startBrowserHost();
const launch = chromiumLaunchOptions();
const browser = await chromium.launch({
  ...launch,
  args: gpu ? [...chromiumArgs.filter((arg) => arg !== '--disable-gpu'), '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'] : chromiumArgs,
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
await page.goto(host.url);
await addProject(page, makeRepository(path.join(scratch, 'flood-project')));
// The shell step waits a second first, so the run's page is open and following when the flood begins.
await addFixtureAgent(page, 'Flood', ['--shell', 'sleep 1', '--timed-flood-ms', String(floodMs), '--flood-mib-per-s', String(floodMiBPerSecond)]);
await addTask(page, 'Flood the terminal');

interface Round {
  lags: number[];
  firstSecondMax: number;
  renderer: string;
}
const results: Round[] = [];

/**
 * Runs in the page every 250 ms: the newest `T=` stamp in the rows on screen. The rows are read from
 * xterm.js's DOM renderer where it draws them, else from the screen's test hook (the WebGL renderer
 * draws on a canvas).
 */
const sampler = `(() => {
  const samples = [];
  const newest = () => {
    const screen = document.querySelector('.run-terminal__screen');
    if (!screen) return { text: '', renderer: 'none' };
    if (typeof screen.visibleText === 'function') return { text: screen.visibleText(), renderer: screen.dataset.renderer ?? 'hook' };
    return { text: [...screen.querySelectorAll('.xterm-rows > div')].map((row) => row.textContent).join('\\n'), renderer: 'dom' };
  };
  const timer = setInterval(() => {
    const { text, renderer } = newest();
    let latest = null;
    for (const match of text.matchAll(/T=(\\d{13})/g)) latest = Math.max(latest ?? 0, Number(match[1]));
    samples.push({ at: Date.now(), latest, renderer });
  }, ${sampleEveryMs});
  window.__lagSamples = () => { clearInterval(timer); return samples; };
})()`;

/** When the agent began its flood: the first stamp it wrote, from the ledger (the screen may have skipped it). */
function floodStartOf(runId: string): number {
  const db = new Database(path.join(host.dataDir, ledgerFileName), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT bytes FROM output_chunks WHERE run_id = ? ORDER BY byte_offset LIMIT 64').all(runId) as Array<{ bytes: Buffer }>;
    const match = /T=(\d{13})/.exec(Buffer.concat(rows.map((row) => row.bytes)).toString('latin1'));
    if (!match) throw new Error(`no flood line in the first output of ${runId}`);
    return Number(match[1]);
  } finally {
    db.close();
  }
}

async function oneRound(target: Page): Promise<void> {
  await runTask(target, 'Flood the terminal', 'Flood');
  await target.evaluate(sampler);
  const runId = /\/runs\/([^/?#]+)/.exec(target.url())?.[1];
  if (!runId) throw new Error(`not on a run's page: ${target.url()}`);
  await target.getByText('Succeeded', { exact: true }).first().waitFor({ timeout: floodMs + 60_000 });
  const samples = await target.evaluate<Array<{ at: number; latest: number | null; renderer: string }>>('window.__lagSamples()');
  const start = floodStartOf(runId);
  const end = start + floodMs;
  const during = samples.filter((sample) => sample.at >= start && sample.at <= end);
  const lags = during.map((sample) => sample.at - (sample.latest ?? start));
  const firstSecond = during.filter((sample) => sample.at < start + 1000).map((sample) => sample.at - (sample.latest ?? start));
  results.push({ lags, firstSecondMax: Math.max(...firstSecond), renderer: samples.at(-1)?.renderer ?? 'none' });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const median = (values: number[]) => percentile(values, 50);

describe(`on-screen lag behind a ${floodMiBPerSecond} MiB/s flood`, () => {
  bench(`one ${floodMs / 1000} s flood, sampled every ${sampleEveryMs} ms`, () => oneRound(page), {
    iterations: rounds,
    warmupIterations: 0,
    time: 0,
    warmupTime: 0,
  });
});

afterAll(async () => {
  const cpus = os.cpus();
  console.log(`machine: ${cpus.length} cores, ${cpus[0]?.model ?? 'unknown CPU'}; Chromium ${browser.version()}${gpu ? ' with GPU flags' : ' --disable-gpu'}`);
  for (const [index, round] of results.entries()) {
    console.log(
      `round ${index + 1} (${round.renderer} renderer, ${round.lags.length} samples): p50 ${median(round.lags)} ms, p95 ${percentile(round.lags, 95)} ms, max ${Math.max(...round.lags)} ms, first second max ${round.firstSecondMax} ms`,
    );
  }
  const all = results.flatMap((round) => round.lags);
  console.log(
    `over ${results.length} rounds: p50 ${median(all)} ms, p95 ${percentile(all, 95)} ms, max ${Math.max(...all)} ms; first second max (median of rounds) ${median(results.map((round) => round.firstSecondMax))} ms, worst ${Math.max(...results.map((round) => round.firstSecondMax))} ms`,
  );
  await browser.close();
  await host.stop();
  rmSync(scratch, { recursive: true, force: true });
});
