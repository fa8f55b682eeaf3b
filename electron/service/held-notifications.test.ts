import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { openLedger } from '../ledger/ledger';
import { createMemoryLogger } from '../platform/log';
import { gitInit } from '../testing/run-test-kit';
import { startFixtureRun } from '../testing/service-test-kit';
import { startConsoleService, type RunningService } from './console-service';
import { connectToService, type ServiceConnection } from './service-client';

/**
 * A run ends in the background while no app that shows notifications is attached (only `npm run
 * serve`, which shows none): its notification waits in the service and is handed, once, to the next
 * app that attaches.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function attach(service: RunningService, client: 'node-client' | 'browser-launcher', seen?: string[]): Promise<ServiceConnection> {
  const connection = await connectToService(service.socket.socketPath, { client });
  cleanups.push(() => connection.close());
  if (seen) connection.onEvent((event, payload) => event === 'desktopNotification' && seen.push((payload as { body: string }).body));
  return connection;
}

it('holds a notification told while no app could show it, and hands it once to the next app that attaches', async () => {
  const renderer = tempDir('oc-held-renderer-');
  writeFileSync(path.join(renderer, 'index.html'), '<!doctype html>');
  const project = tempDir('oc-held-project-');
  gitInit(project);
  const log = createMemoryLogger();
  const service = await startConsoleService(['--data-dir', tempDir('oc-held-data-')], { log, env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer }, idleExitMs: 0 });
  cleanups.push(() => service.stop());

  // The launcher stays attached throughout: it is not an app that shows notifications.
  const launcher = await attach(service, 'browser-launcher');
  const operator = await attach(service, 'node-client');
  const { runId } = await startFixtureRun(operator, { project, args: ['--lines', '5', '--delay-ms', '100'], agentName: 'Quick one', taskTitle: 'Background job' });
  // The operator closes the console's window; the run goes on.
  await operator.close();

  await vi.waitFor(async () => expect((await launcher.call('getRun', { runId })).status).toBe('succeeded'), { timeout: 20_000, interval: 100 });
  await vi.waitFor(() => expect(log.lines.some((line) => line.message === 'desktop notification')).toBe(true), { timeout: 10_000 });

  const first: string[] = [];
  await attach(service, 'node-client', first);
  await vi.waitFor(() => expect(first).toEqual(['Quick one finished “Background job”. Open the run to review its changes.']));
  // Once: the next app does not get it again.
  const second: string[] = [];
  await attach(service, 'node-client', second);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(second).toEqual([]);
}, 40_000);

it('keeps the newest held notifications in the ledger file, and takes each for delivery only once, even from a ledger opened again', () => {
  const dataDir = tempDir('oc-held-ledger-');
  const notification = (index: number) => ({ id: `ntf_${index}`, event: 'run_succeeded', title: 'Run finished', body: `run ${index}`, route: '#/runs', runId: null, noticeId: null, count: 1, silent: false, quietWhenFocused: true, at: new Date(0).toISOString() });
  let ledger = openLedger(dataDir);
  for (let index = 0; index < 60; index += 1) ledger.notifications.hold(`ntf_${index}`, JSON.stringify(notification(index)), 1_000 + index, 50);
  ledger.close();

  // A service that stopped, or died: the next one opens the same file.
  ledger = openLedger(dataDir);
  cleanups.push(() => ledger.close());
  const taken = ledger.notifications.takeHeld(5_000);
  expect(taken.map((row) => row.id)).toEqual(Array.from({ length: 50 }, (_, index) => `ntf_${index + 10}`));
  expect(ledger.notifications.takeHeld(6_000)).toEqual([]);
  expect(ledger.notifications.heldCount()).toBe(0);
});
