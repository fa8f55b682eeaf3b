/**
 * How far the screen lags behind a flooding agent (issue 15: never more than 250 ms, first second
 * included). The real browser host (dist/, so `npm run build` first) and Chromium via Playwright: a run
 * whose agent prints about 32 MiB/s of lines stamped with their write time (`T=<ms since epoch>`,
 * the fixture agent's --timed-flood-ms) for several seconds. Every 250 ms the page itself reads the
 * newest stamp in the terminal's visible rows and keeps `Date.now()` minus it; a sample before the
 * first flood line reached the screen counts from the flood's start (read from the ledger). The same
 * is kept for the newest stamp that has arrived over the WebSocket (a listener of the page's own on
 * the console's socket): the lag at arrival is what the host and the transport add, the rest is the
 * renderer's.
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
// Every socket the console opens gets a listener of ours: the newest stamp in each binary frame's tail.
await page.addInitScript(`(() => {
  const Native = window.WebSocket;
  const decoder = new TextDecoder();
  window.__newestArrived = null;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        if (!(event.data instanceof ArrayBuffer)) return;
        const tail = decoder.decode(new Uint8Array(event.data, Math.max(0, event.data.byteLength - 300)));
        const stamps = tail.match(/T=\\d{13}/g);
        if (stamps) window.__newestArrived = Number(stamps.at(-1).slice(2));
      });
    }
  };
})()`);
await page.goto(host.url);
await addProject(page, makeRepository(path.join(scratch, 'flood-project')));
// The shell step waits a second first, so the run's page is open and following when the flood begins.
await addFixtureAgent(page, 'Flood', ['--shell', 'sleep 1', '--timed-flood-ms', String(floodMs), '--flood-mib-per-s', String(floodMiBPerSecond)]);
await addTask(page, 'Flood the terminal');

interface Round {
  lags: number[];
  /** The same samples' lag of the newest stamp that had arrived in the page. */
  arrivalLags: number[];
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
    samples.push({ at: Date.now(), latest, arrived: window.__newestArrived, renderer });
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
  const samples = await target.evaluate<Array<{ at: number; latest: number | null; arrived: number | null; renderer: string }>>('window.__lagSamples()');
  const start = floodStartOf(runId);
  const end = start + floodMs;
  const during = samples.filter((sample) => sample.at >= start && sample.at <= end);
  const lags = during.map((sample) => sample.at - (sample.latest ?? start));
  const arrivalLags = during.map((sample) => sample.at - Math.max(start, sample.arrived ?? start));
  const firstSecond = during.filter((sample) => sample.at < start + 1000).map((sample) => sample.at - (sample.latest ?? start));
  results.push({ lags, arrivalLags, firstSecondMax: Math.max(...firstSecond), renderer: samples.at(-1)?.renderer ?? 'none' });
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
      `round ${index + 1} (${round.renderer} renderer, ${round.lags.length} samples): p50 ${median(round.lags)} ms, p95 ${percentile(round.lags, 95)} ms, max ${Math.max(...round.lags)} ms, first second max ${round.firstSecondMax} ms; at arrival p50 ${median(round.arrivalLags)} ms, p95 ${percentile(round.arrivalLags, 95)} ms`,
    );
  }
  const all = results.flatMap((round) => round.lags);
  const arrival = results.flatMap((round) => round.arrivalLags);
  // Paired sample by sample: what the renderer adds on top of the lag the data arrived with.
  const added = results.flatMap((round) => round.lags.map((lag, index) => lag - (round.arrivalLags[index] ?? 0)));
  console.log(
    `over ${results.length} rounds: p50 ${median(all)} ms, p95 ${percentile(all, 95)} ms, max ${Math.max(...all)} ms; first second max (median of rounds) ${median(results.map((round) => round.firstSecondMax))} ms, worst ${Math.max(...results.map((round) => round.firstSecondMax))} ms`,
  );
  console.log(
    `  of which at arrival in the page (host and transport): p50 ${median(arrival)} ms, p95 ${percentile(arrival, 95)} ms; added by the renderer (paired): p50 ${median(added)} ms, p95 ${percentile(added, 95)} ms, max ${Math.max(...added)} ms`,
  );
  await browser.close();
  await host.stop();
  rmSync(scratch, { recursive: true, force: true });
});
