import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserHost, type BrowserHost } from '../../e2e/launchers/browser-host';
import { createWebSocketClient, type SocketConstructor, type WebSocketClient } from '../../renderer/api/ws-client';
import { lockDirName, ownerFileName } from '../platform/data-dir-lock';
import { fixtureAgentPath } from '../testing/output-test-kit';
import { gitInit } from '../testing/run-test-kit';
import { makeTempDir } from '../testing/temp-dir';

/**
 * Real browser hosts (`node dist/electron/serve.js`, started by the e2e launcher) on one data
 * directory: the second refuses in one line and leaves the first and its run alone; after a crash the
 * next one starts at once; another data directory is no obstacle.
 */

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const serveEntry = path.join(repoRoot, 'dist', 'electron', 'serve.js');
const buildOutputs = [serveEntry, path.join(repoRoot, 'dist', 'renderer', 'index.html')];

/** Newest non-test source under a folder: the hosts must run this checkout's code, not an old build. */
function newestSource(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return Math.max(newest, newestSource(full));
    return /\.test\.tsx?$/.test(entry.name) ? newest : Math.max(newest, statSync(full).mtimeMs);
  }, 0);
}

beforeAll(() => {
  const built = buildOutputs.every((file) => existsSync(file));
  const sources = Math.max(...['electron', 'shared', 'renderer'].map((dir) => newestSource(path.join(repoRoot, dir))));
  if (built && Math.min(...buildOutputs.map((file) => statSync(file).mtimeMs)) >= sources) return;
  // The same builds as `npm run build`, with vite directly, as scripts/start.mjs does.
  const vite = path.join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
  for (const mode of ['renderer', 'node', 'preload']) {
    const step = spawnSync(process.execPath, [vite, 'build', '--mode', mode], { cwd: repoRoot, encoding: 'utf8' });
    if (step.status !== 0) throw new Error(`the ${mode} build failed:\n${step.stdout}${step.stderr}`);
  }
}, 120_000);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = makeTempDir(prefix);
  cleanups.push(dir.remove);
  return dir.path;
}

async function host(dataDir: string): Promise<BrowserHost> {
  const started = await startBrowserHost({ dataDir });
  cleanups.push(() => started.stop());
  return started;
}

/** Watches, without changing them, the timers a host arms (see the fixture). */
const timerRecorder = path.join(repoRoot, 'e2e', 'fixtures', 'timer-recorder.mjs');

/**
 * A host that is expected to refuse: run to its exit (bounded), with everything it printed and every
 * timer it armed on the way (so a test can tell whether it waited for anything before it refused).
 */
function refusedHost(dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string; timersArmed: unknown[] }> {
  const record = path.join(tempDir('oc-lock-timers-'), 'timers.json');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(timerRecorder).href, serveEntry, '--port', '0', '--data-dir', dataDir],
      { cwd: repoRoot, timeout: 20_000, encoding: 'utf8', env: { ...process.env, OC_TIMER_RECORD: record } },
      (error, stdout, stderr) => {
        if (error && error.killed) return reject(new Error(`the second host did not exit in 20 s:\n${stderr}`));
        const timersArmed = JSON.parse(readFileSync(record, 'utf8')) as unknown[];
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr, timersArmed });
      },
    );
  });
}

/** The renderer's own WebSocket client, speaking to the host as its page would. */
function connect(target: BrowserHost): WebSocketClient {
  class PageSocket extends WebSocket {
    constructor(url: string) {
      super(url, { origin: target.origin });
    }
  }
  const client = createWebSocketClient({
    url: `ws://127.0.0.1:${target.port}/ws?token=${target.token}`,
    WebSocketImpl: PageSocket as unknown as SocketConstructor,
  });
  cleanups.push(() => client.close());
  return client;
}

describe('one console per data directory, with real browser hosts', () => {
  it('refuses a second host in one line naming the first, and leaves the first and its run alone', async () => {
    const dataDir = tempDir('oc-lock-host-data-');
    const project = tempDir('oc-lock-host-project-');
    gitInit(project);
    const first = await host(dataDir);
    const client = connect(first);
    const projectRow = await client.addProject({ path: project });
    const agent = await client.createAgent({
      name: 'Long runner',
      providerId: 'command',
      model: 'fixture',
      profileId: 'program-codex-json',
      executablePath: fixtureAgentPath,
      commandArgs: ['--lines', '1000', '--delay-ms', '50'],
    });
    const task = await client.createTask({ projectId: projectRow.id, title: 'Long job', prompt: 'Run for a while' });
    const { id: runId } = await client.startRun({ taskId: task.id, agentId: agent.id });
    await expect.poll(async () => (await client.getRun({ runId })).outputBytes, { timeout: 10_000 }).toBeGreaterThan(0);

    const second = await refusedHost(dataDir);
    expect(second.code).toBe(1);
    // It refused on its first look, waiting for nothing: it armed no timer at all before it exited
    // (a holder that has not named itself yet would be looked at again and again, for up to 12 s).
    expect(second.timersArmed).toEqual([]);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe(
      `Another Operator Console is already using ${dataDir} (pid ${first.pid}, http://127.0.0.1:${first.port}/). ` +
        'Close it first, or start this one with --data-dir DIR.\n',
    );
    expect(second.stderr).not.toContain(first.token);

    // The first console still serves, and its run was not stopped by a second start-up's recovery.
    expect((await fetch(first.url)).status).toBe(200);
    const before = await client.getRun({ runId });
    expect(before.status).toBe('running');
    await expect.poll(async () => (await client.getRun({ runId })).outputBytes, { timeout: 5_000 }).toBeGreaterThan(before.outputBytes);
    expect((await client.getRun({ runId })).status).toBe('running');

    // A clean shutdown gives the directory up.
    expect(await first.stop()).toBe(0);
    expect(existsSync(path.join(dataDir, lockDirName))).toBe(false);
    expect(existsSync(path.join(dataDir, ownerFileName))).toBe(false);
  }, 60_000);

  it('starts at once on the data directory of a host that crashed', async () => {
    const dataDir = tempDir('oc-lock-crash-data-');
    const first = await host(dataDir);
    await first.crash();
    const lockDir = path.join(dataDir, lockDirName);
    expect(existsSync(lockDir)).toBe(true);
    // The crashed host's lock is dated an hour ahead, so it cannot go stale by its age while the next
    // host waits: only the dead pid in the owner file can let that one in, and it must do so at once.
    const anHourAhead = new Date(Date.now() + 3_600_000);
    utimesSync(lockDir, anHourAhead, anHourAhead);

    const next = await host(dataDir);
    expect(next.stderr()).toMatch(/took over the data directory lock of a console that is no longer running/);
    expect((await fetch(next.url)).status).toBe(200);
  }, 60_000);

  it('starts a host on another data directory beside the first', async () => {
    const first = await host(tempDir('oc-lock-one-'));
    const other = await host(tempDir('oc-lock-two-'));
    expect(other.port).not.toBe(first.port);
    expect((await fetch(first.url)).status).toBe(200);
    expect((await fetch(other.url)).status).toBe(200);
  }, 60_000);
});
