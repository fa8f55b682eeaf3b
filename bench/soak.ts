/**
 * The soak: many short runs through the console as the browser host serves it (the real core, the
 * host's HTTP + WebSocket, the renderer's WebSocket client, real PTYs, the real ledger, a git project,
 * the fixture agent), a given number at a time. It reports each run's outcome and stored lines, and
 * this process's file descriptors and memory after warm-up and at the end, so a leak shows as a number
 * that grows with the run count. Not part of `npm test`:
 *
 *   npm run soak -- [--runs 300] [--concurrency 8] [--lines 200] [--warmup 16] [--git-rounds 32]
 *
 * (scripts/soak.mjs turns the flags into the SOAK_* variables read below.) The full report, one row
 * per run, is written to test-results/soak/report.json.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunStatus } from '../shared/entities';
import { createWebSocketClient, type SocketConstructor, type WebSocketClient } from '../renderer/api/ws-client';
import { startHostServer, type HostServer } from '../electron/host/host-server';
import { fixtureAgentPath } from '../electron/testing/output-test-kit';
import { openRunTestBed, type RunTestBed } from '../electron/testing/run-test-kit';
import { makeTempDir } from '../electron/testing/temp-dir';

const setting = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${process.env[name]}`);
  return value;
};
const runCount = setting('SOAK_RUNS', 300);
const concurrency = Math.max(1, Math.min(32, setting('SOAK_CONCURRENCY', 8)));
const linesPerRun = setting('SOAK_LINES', 200);
const warmupRuns = Math.min(runCount, setting('SOAK_WARMUP', 16));
/** File descriptors the end may hold above the warm-up's without counting as a leak (timers, a pending pipe). */
const fdSlack = 8;

const settled: ReadonlySet<RunStatus> = new Set(['succeeded', 'failed', 'cancelled', 'refused', 'stranded']);

interface RunRow {
  n: number;
  runId: string;
  status: RunStatus | 'error';
  storedLines: number;
  linesInOrder: boolean;
  seconds: number;
  error?: string;
}

interface ProcessSample {
  fds: number;
  rssMiB: number;
  heapUsedMiB: number;
}

function sample(): ProcessSample {
  // Only when node runs with --expose-gc (the soak's vitest config asks for it): settle the heap first.
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  return {
    fds: readdirSync('/proc/self/fd').length,
    rssMiB: Math.round((memory.rss / 1024 / 1024) * 10) / 10,
    heapUsedMiB: Math.round((memory.heapUsed / 1024 / 1024) * 10) / 10,
  };
}

/** `ws`'s class, sending the Origin the host's own page sends. */
function pageSocket(server: HostServer): SocketConstructor {
  class PageSocket extends WebSocket {
    constructor(url: string) {
      super(url, { origin: server.origin });
    }
  }
  return PageSocket as unknown as SocketConstructor;
}

/** The fixture's `line i of N` lines in the run's stored output, and whether they are 1..N in order. */
function storedLines(bed: RunTestBed, runId: string): { count: number; inOrder: boolean } {
  const chunks = bed.core.ledger.db.prepare('SELECT bytes FROM output_chunks WHERE run_id = ? ORDER BY byte_offset').all(runId) as Array<{ bytes: Buffer }>;
  const text = Buffer.concat(chunks.map((chunk) => chunk.bytes)).toString('utf8');
  const numbers = [...text.matchAll(/^line (\d+) of \d+\r?$/gm)].map((match) => Number(match[1]));
  return { count: numbers.length, inOrder: numbers.every((value, at) => value === at + 1) };
}

let bed: RunTestBed | undefined;
let server: HostServer | undefined;
let client: WebSocketClient | undefined;
let statics: ReturnType<typeof makeTempDir> | undefined;

afterAll(async () => {
  client?.close();
  await server?.close();
  await bed?.close();
  statics?.remove();
});

describe('soak', () => {
  it(`${runCount} runs of ${linesPerRun} lines, ${concurrency} at a time, through the browser host`, async () => {
    bed = await openRunTestBed();
    statics = makeTempDir('oc-soak-static-');
    writeFileSync(path.join(statics.path, 'index.html'), '<!doctype html><title>soak</title>');
    server = await startHostServer({ core: bed.core, staticDir: statics.path, port: 0, log: bed.log });
    client = createWebSocketClient({
      url: `ws://127.0.0.1:${server.port}/ws?token=${server.token}`,
      sessionUrl: `http://127.0.0.1:${server.port}/session?token=${server.token}`,
      WebSocketImpl: pageSocket(server),
    });
    const api = client;
    const agent = await api.createAgent({
      name: 'Soak agent',
      providerId: 'command',
      model: 'fixture-model',
      profileId: 'fixture',
      executablePath: fixtureAgentPath,
      commandArgs: ['--lines', String(linesPerRun)],
      capacity: concurrency,
    });

    const rows: RunRow[] = [];
    let next = 0;
    const oneRun = async (n: number): Promise<void> => {
      const started = Date.now();
      let runId = '';
      try {
        const task = await api.createTask({ projectId: bed!.projectId, title: `Soak run ${n}`, prompt: 'Print the lines' });
        runId = (await api.startRun({ taskId: task.id, agentId: agent.id })).id;
        let status: RunStatus;
        for (;;) {
          status = (await api.getRun({ runId })).status;
          if (settled.has(status)) break;
          if (Date.now() - started > 120_000) throw new Error(`still ${status} after 120 s`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const lines = storedLines(bed!, runId);
        rows.push({ n, runId, status, storedLines: lines.count, linesInOrder: lines.inOrder, seconds: (Date.now() - started) / 1000 });
      } catch (error) {
        rows.push({ n, runId, status: 'error', storedLines: 0, linesInOrder: false, seconds: (Date.now() - started) / 1000, error: String(error) });
      }
      const row = rows.at(-1)!;
      console.log(`run ${n}/${runCount} ${row.runId || '-'} ${row.status} lines=${row.storedLines}/${linesPerRun} ${row.seconds.toFixed(1)} s${row.error ? ` ${row.error}` : ''}`);
    };
    // `concurrency` workers, each taking the next run: always that many in flight until the phase ends.
    const phase = async (last: number) => {
      const worker = async () => {
        while (next < last) await oneRun((next += 1));
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      // What the last runs still hold (a PTY closing, the writer's last transaction) is given a moment.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return sample();
    };
    const startedAt = Date.now();
    // Both samples are taken with nothing running, so they compare like with like.
    const baseline = await phase(warmupRuns);
    const end = await phase(runCount);

    rows.sort((a, b) => a.n - b.n);
    const failed = rows.filter((row) => row.status !== 'succeeded' || row.storedLines !== linesPerRun || !row.linesInOrder);
    const summary = {
      runs: runCount,
      concurrency,
      linesPerRun,
      warmupRuns,
      seconds: Math.round((Date.now() - startedAt) / 100) / 10,
      succeeded: rows.filter((row) => row.status === 'succeeded').length,
      allLinesStored: rows.filter((row) => row.storedLines === linesPerRun && row.linesInOrder).length,
      afterWarmup: baseline,
      atEnd: end,
      growth: { fds: end.fds - baseline.fds, rssMiB: Math.round((end.rssMiB - baseline.rssMiB) * 10) / 10, heapUsedMiB: Math.round((end.heapUsedMiB - baseline.heapUsedMiB) * 10) / 10 },
    };
    const reportDir = path.resolve('test-results', 'soak');
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(path.join(reportDir, 'report.json'), `${JSON.stringify({ summary, runs: rows }, null, 2)}\n`);
    console.log(`\nsoak summary (every run in ${path.join(reportDir, 'report.json')}):\n${JSON.stringify(summary, null, 2)}`);
    for (const row of failed) console.log(`not as expected: run ${row.n} ${row.runId} ${row.status} lines=${row.storedLines}${row.error ? ` ${row.error}` : ''}`);

    expect(failed).toEqual([]);
    // Runs come and go; their descriptors (PTYs, sockets, git's pipes) must go with them.
    expect(end.fds).toBeLessThanOrEqual(baseline.fds + fdSlack);
  });
});
