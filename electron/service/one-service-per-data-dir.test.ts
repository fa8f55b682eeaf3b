import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync } from 'node:fs';
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
import { ensureConsoleBuilt, repoRoot, serviceEntry } from '../testing/built-console';
import { connectToService } from './service-client';

/**
 * Real launchers (`node dist/electron/serve.js`, started by the e2e launcher) and the console service
 * each starts detached, on one data directory: a second launcher attaches to the first's service, a
 * second service refuses in one line and leaves the first and its run alone; after a crash the next
 * launcher starts a service at once; another data directory is no obstacle.
 */

beforeAll(ensureConsoleBuilt, 120_000);

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
function refusedService(dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string; timersArmed: unknown[] }> {
  const record = path.join(tempDir('oc-lock-timers-'), 'timers.json');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(timerRecorder).href, serviceEntry, '--port', '0', '--data-dir', dataDir],
      { cwd: repoRoot, timeout: 20_000, encoding: 'utf8', env: { ...process.env, OC_TIMER_RECORD: record } },
      (error, stdout, stderr) => {
        if (error && error.killed) return reject(new Error(`the second service did not exit in 20 s:\n${stderr}`));
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
  it('attaches a second launcher to the running service; a second service refuses in one line and leaves the first and its run alone', async () => {
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

    // `npm run serve` again: the same service, its address (with its token), one line, and a word on the run.
    const again = await host(dataDir);
    expect(again.url).toBe(first.url);
    expect(again.pid).toBe(first.pid);
    expect(again.launcherPid).not.toBe(first.launcherPid);
    expect(again.stdoutLines).toEqual([`Operator Console: ${first.url}`]);
    expect(again.stderr()).toContain(`Operator Console: attached to the console service (pid ${first.pid}), 1 run going in the background.`);

    // A second service on the same directory is refused by the lock, at once, naming the first.
    const second = await refusedService(dataDir);
    expect(second.code).toBe(1);
    // It refused on its first look, waiting for nothing: it armed no timer at all before it exited
    // (a holder that has not named itself yet would be looked at again and again, for up to 12 s).
    expect(second.timersArmed).toEqual([]);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe(
      `Another Operator Console is already using ${dataDir} (pid ${first.pid}, the console service at http://127.0.0.1:${first.port}/; ` +
        'stop it with npm run serve -- --stop). Close it first, or start this one with --data-dir DIR.\n',
    );
    expect(second.stderr).not.toContain(first.token);

    // The first service still serves, and its run was not stopped by a second start-up's recovery.
    expect((await fetch(first.url)).status).toBe(200);
    const before = await client.getRun({ runId });
    expect(before.status).toBe('running');
    await expect.poll(async () => (await client.getRun({ runId })).outputBytes, { timeout: 5_000 }).toBeGreaterThan(before.outputBytes);
    expect((await client.getRun({ runId })).status).toBe('running');

    // One launcher quits: the service goes on with its run, for the other launcher and in the background.
    expect(await again.stop()).toBe(0);
    expect(again.stderr()).toMatch(/SIGTERM received; the console service \(pid \d+\) goes on: 1 run going in the background, and 1 other app is attached\./);
    expect((await client.getRun({ runId })).status).toBe('running');

    // The last one stops (and its launcher ends the service its run kept going): the directory is given up.
    expect(await first.stop()).toBe(0);
    expect(existsSync(path.join(dataDir, lockDirName))).toBe(false);
    expect(existsSync(path.join(dataDir, ownerFileName))).toBe(false);
  }, 90_000);

  it('starts a service at once on the data directory of a service that was killed, replacing its socket', async () => {
    const dataDir = tempDir('oc-lock-crash-data-');
    const first = await host(dataDir);
    await first.crash();
    const lockDir = path.join(dataDir, lockDirName);
    expect(existsSync(lockDir)).toBe(true);
    // The dead service's socket is still there; nothing answers on it.
    const socketPath = path.join(dataDir, 'service', 'console.sock');
    const staleSocket = statSync(socketPath);
    expect(staleSocket.isSocket()).toBe(true);
    // The crashed host's lock is dated an hour ahead, so it cannot go stale by its age while the next
    // host waits: only the dead pid in the owner file can let that one in, and it must do so at once.
    const anHourAhead = new Date(Date.now() + 3_600_000);
    utimesSync(lockDir, anHourAhead, anHourAhead);

    const next = await host(dataDir);
    expect(next.pid).not.toBe(first.pid);
    await expect.poll(() => next.stderr()).toMatch(/took over the data directory lock of a console that is no longer running/);
    expect((await fetch(next.url)).status).toBe(200);
    // A new socket in the dead one's place, answered by the new service.
    expect(statSync(socketPath).ctimeMs).toBeGreaterThan(staleSocket.ctimeMs);
    const attached = await connectToService(socketPath, { client: 'node-client' });
    cleanups.push(() => attached.close());
    expect(attached.welcome.pid).toBe(next.pid);
  }, 60_000);

  it('starts a host on another data directory beside the first', async () => {
    const first = await host(tempDir('oc-lock-one-'));
    const other = await host(tempDir('oc-lock-two-'));
    expect(other.port).not.toBe(first.port);
    expect((await fetch(first.url)).status).toBe(200);
    expect((await fetch(other.url)).status).toBe(200);
  }, 60_000);
});
