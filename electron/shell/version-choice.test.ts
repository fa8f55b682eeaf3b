import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { otherVersionBuild } from '../../e2e/launchers/other-version-build';
import { connectToService, ServiceVersionMismatchError } from '../service/service-client';
import { attachOrStartService, processGone } from '../service/service-launcher';
import { serviceSocketPath } from '../service/service-socket-path';
import { ensureConsoleBuilt, serviceEntry } from '../testing/built-console';
import { gitInit } from '../testing/run-test-kit';
import { startFixtureRun } from '../testing/service-test-kit';
import { settleVersionChoice, versionChoiceQuestion } from './version-choice';

/** The desktop app's question when its data directory's service runs another version (main.ts shows it). */

const older = { type: 'other-version' as const, consoleVersion: '0.0.9', contractVersion: 'c1e1-00000000', pid: 4242, liveRuns: 2, handingOverTo: null };

it('names the version that runs the runs and offers the two ways on, letting them finish first', () => {
  const question = versionChoiceQuestion(older, 'refused', '0.1.0');
  expect(question.message).toBe('Version 0.0.9 of the console service is running 2 runs');
  expect(question.buttons).toEqual(['Let them finish, switch afterwards', 'Restart now', 'Quit']);
  expect(question.detail).toContain('This app is version 0.1.0.');
  expect(question.detail).toContain('Let them finish and switch afterwards: the older service starts no new run, stops when its last run ends, and version 0.1.0 starts by itself then');
  expect(question.detail).toContain('Or restart now: runs still going are stopped and marked stranded, and each can be resumed.');
});

it('says when the older service is already handing over, and quotes a service too old to say what it runs', () => {
  expect(versionChoiceQuestion({ ...older, liveRuns: 1, handingOverTo: '0.1.0' }, 'refused', '0.1.0').detail).toContain(
    'That service is already finishing its runs; version 0.1.0 starts by itself when they end. Let it finish',
  );
  expect(versionChoiceQuestion(undefined, 'The console service running here is version 0.0.1.', '0.1.0')).toEqual({
    message: 'Another version of the console service runs here',
    detail: 'The console service running here is version 0.0.1.',
    buttons: ['Let them finish, switch afterwards', 'Restart now', 'Quit'],
  });
});

describe('the two ways on, done as the desktop app does them, against a real service of another version', () => {
  beforeAll(ensureConsoleBuilt, 120_000);

  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** An older console's service, as an operator left it running, with a run going. */
  async function olderServiceWithARun(): Promise<{ dataDir: string; olderPid: number; runId: string }> {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'oc-version-choice-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const project = mkdtempSync(path.join(os.tmpdir(), 'oc-version-choice-project-'));
    cleanups.push(() => rmSync(project, { recursive: true, force: true }));
    gitInit(project);
    const older = otherVersionBuild('0.0.9-older');
    cleanups.push(() => older.remove());
    const serve = spawn(process.execPath, [older.serveEntry, '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => void serve.kill('SIGKILL'));
    await new Promise<string>((resolve) => createInterface({ input: serve.stdout }).once('line', resolve));
    const olderPid = (JSON.parse(readFileSync(path.join(dataDir, 'console-owner.json'), 'utf8')) as { pid: number }).pid;
    cleanups.push(() => kill(olderPid));
    const client = await connectToService(serviceSocketPath(dataDir), { client: 'node-client', consoleVersion: '0.0.9-older' });
    const { runId } = await startFixtureRun(client, { project, args: ['--lines', '30', '--delay-ms', '100'], agentName: 'Long one', taskTitle: 'Older job' });
    await vi.waitFor(async () => expect((await client.call('getRun', { runId })).status).toBe('running'), { timeout: 20_000, interval: 100 });
    return { dataDir, olderPid, runId };
  }

  function kill(pid: number): void {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as the test meant.
    }
  }

  it('lets the runs finish: the app quits saying so, and this version starts by itself once they have', async () => {
    const { dataDir, olderPid, runId } = await olderServiceWithARun();
    const socketPath = serviceSocketPath(dataDir);
    const start = { dataDir, port: 0, serviceEntry };
    const refused = await attachOrStartService({ ...start, client: 'desktop-app' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceVersionMismatchError);
    expect(versionChoiceQuestion((refused as ServiceVersionMismatchError).service, '', __APP_VERSION__).message).toBe('Version 0.0.9-older of the console service is running 1 run');

    const settled = await settleVersionChoice('after-runs', { socketPath, start, client: 'desktop-app', appVersion: __APP_VERSION__ });
    expect(settled).toEqual({
      kind: 'quit',
      say: `Version 0.0.9-older finishes its 1 run and starts no new one; version ${__APP_VERSION__} starts by itself when it ends. Open Operator Console again then.`,
    });
    // Opened again later: this version's service runs, and the run finished on the older one.
    expect(await processGone(olderPid, 30_000)).toBe(true);
    const attached = await vi.waitFor(() => attachOrStartService({ ...start, client: 'desktop-app' }), { timeout: 30_000, interval: 200 });
    cleanups.push(() => kill(attached.connection.welcome.pid));
    cleanups.push(() => attached.connection.close());
    expect(attached.started).toBe(false);
    expect(attached.connection.welcome.consoleVersion).toBe(__APP_VERSION__);
    expect((await attached.connection.call('getRun', { runId })).status).toBe('succeeded');
  }, 90_000);

  it('restarts now: the older service stops (its run strands) and the app attaches to this version', async () => {
    const { dataDir, olderPid, runId } = await olderServiceWithARun();
    const start = { dataDir, port: 0, serviceEntry };
    expect(await settleVersionChoice('restart-now', { socketPath: serviceSocketPath(dataDir), start, client: 'desktop-app', appVersion: __APP_VERSION__ })).toEqual({ kind: 'attach' });
    // Gone (a zombie until the older launcher, its parent, reaps it, counts as gone).
    expect(await processGone(olderPid, 5_000)).toBe(true);
    const attached = await attachOrStartService({ ...start, client: 'desktop-app' });
    cleanups.push(() => kill(attached.connection.welcome.pid));
    cleanups.push(() => attached.connection.close());
    expect(attached.connection.welcome.consoleVersion).toBe(__APP_VERSION__);
    expect((await attached.connection.call('getRun', { runId })).status).toBe('stranded');
  }, 90_000);
});
