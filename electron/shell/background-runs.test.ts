import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryLogger } from '../platform/log';
import { startConsoleService } from '../service/console-service';
import { connectToService } from '../service/service-client';
import { gitInit } from '../testing/run-test-kit';
import { startFixtureRun } from '../testing/service-test-kit';
import { backgroundRunsView, trayAvailable, watchLiveRuns, windowTitle } from './background-runs';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('what the desktop app shows of runs going on in the background', () => {
  it('ends each window title with the runs going, and nothing when none is', () => {
    const going = backgroundRunsView({ liveRuns: 2, openWindows: 1, trayAvailable: true, platform: 'linux' });
    expect(windowTitle('Runs · Operator Console', going)).toBe('Runs · Operator Console — 2 runs going');
    expect(windowTitle('Operator Console', backgroundRunsView({ liveRuns: 1, openWindows: 1, trayAvailable: false, platform: 'win32' }))).toBe('Operator Console — 1 run going');
    expect(windowTitle('Operator Console', backgroundRunsView({ liveRuns: 0, openWindows: 1, trayAvailable: true, platform: 'linux' }))).toBe('Operator Console');
    // A window is open: the runs are in it, no tray.
    expect(going.tray).toBeNull();
  });

  it('shows a tray icon while runs go on with no window open, and keeps the app there when its last window closes', () => {
    const noWindow = backgroundRunsView({ liveRuns: 3, openWindows: 0, trayAvailable: true, platform: 'linux' });
    expect(noWindow.tray).toEqual({
      tooltip: 'Operator Console: 3 runs going in the background',
      menu: [
        { action: 'open', label: 'Open Operator Console' },
        { action: 'quit', label: 'Quit Operator Console…' },
      ],
    });
    expect(noWindow.lastWindowClosed).toBe('stay');
    // The runs ended: the tray goes, and so does the app (off macOS).
    const ended = backgroundRunsView({ liveRuns: 0, openWindows: 0, trayAvailable: true, platform: 'linux' });
    expect(ended.tray).toBeNull();
    expect(ended.lastWindowClosed).toBe('quit');
    expect(backgroundRunsView({ liveRuns: 0, openWindows: 0, trayAvailable: true, platform: 'darwin' }).lastWindowClosed).toBe('stay');
  });

  it('quits as before where the desktop has no tray: the service goes on with the runs', () => {
    const view = backgroundRunsView({ liveRuns: 2, openWindows: 0, trayAvailable: false, platform: 'linux' });
    expect(view.tray).toBeNull();
    expect(view.lastWindowClosed).toBe('quit');
    expect(trayAvailable('linux', {})).toBe(false);
    expect(trayAvailable('linux', { XDG_CURRENT_DESKTOP: 'GNOME' })).toBe(true);
    expect(trayAvailable('win32', {})).toBe(true);
  });

  it('counts the runs going in a real console service as they start and end', async () => {
    const renderer = tempDir('oc-background-renderer-');
    writeFileSync(path.join(renderer, 'index.html'), '<!doctype html>');
    const service = await startConsoleService(['--data-dir', tempDir('oc-background-data-')], { log: createMemoryLogger(), env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer }, idleExitMs: 0 });
    cleanups.push(() => service.stop());
    const connection = await connectToService(service.socket.socketPath, { client: 'desktop-app' });
    cleanups.push(() => connection.close());
    const counts: number[] = [];
    cleanups.push(watchLiveRuns(connection, (count) => counts.push(count), 50));
    await vi.waitFor(() => expect(counts).toEqual([0]));

    const project = tempDir('oc-background-project-');
    gitInit(project);
    const { runId } = await startFixtureRun(connection, { project, args: ['--lines', '10', '--delay-ms', '100'], agentName: 'Background', taskTitle: 'Job' });
    await vi.waitFor(() => expect(counts.at(-1)).toBe(1), { timeout: 10_000 });
    await vi.waitFor(async () => expect((await connection.call('getRun', { runId })).status).toBe('succeeded'), { timeout: 20_000, interval: 100 });
    await vi.waitFor(() => expect(counts.at(-1)).toBe(0), { timeout: 10_000 });
    // Told on each change only.
    expect(counts).toEqual([0, 1, 0]);
  }, 40_000);
});
