import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryLogger } from '../platform/log';
import { startConsoleService, type RunningService } from '../service/console-service';
import { connectToService, type ServiceConnection } from '../service/service-client';
import { gitInit } from '../testing/run-test-kit';
import { startFixtureRun } from '../testing/service-test-kit';
import { quitRunsQuestion, settleRunsOnQuit, type QuitRunsAnswer } from './quit-runs';

/** Quitting the desktop app with runs going, against a real console service and a real run. */

const dirs: string[] = [];
let service: RunningService;
let connection: ServiceConnection;
let remembered: string;

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

beforeEach(async () => {
  const renderer = tempDir('oc-quit-renderer-');
  writeFileSync(path.join(renderer, 'index.html'), '<!doctype html>');
  service = await startConsoleService(['--data-dir', tempDir('oc-quit-data-')], { log: createMemoryLogger(), env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer }, idleExitMs: 0 });
  connection = await connectToService(service.socket.socketPath, { client: 'desktop-app' });
  remembered = path.join(tempDir('oc-quit-profile-'), 'quit-choice.json');
});

afterEach(async () => {
  await connection.close();
  await service.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function startLongRun(): Promise<string> {
  const project = tempDir('oc-quit-project-');
  gitInit(project);
  const { runId } = await startFixtureRun(connection, { project, args: ['--lines', '1000', '--delay-ms', '50'], agentName: 'Long runner', taskTitle: 'Long job' });
  await vi.waitFor(async () => expect((await connection.call('getRun', { runId })).status).toBe('running'), { timeout: 15_000, interval: 100 });
  return runId;
}

describe('quitting the desktop app with runs going', () => {
  it('asks nothing when no run is going', async () => {
    const ask = vi.fn<(going: number) => Promise<QuitRunsAnswer>>();
    expect(await settleRunsOnQuit({ connection, rememberedFile: remembered, ask })).toEqual({ choice: 'keep', stopped: 0 });
    expect(ask).not.toHaveBeenCalled();
  });

  it('keeps the runs going when the operator keeps them (the default), and does not ask again once remembered', async () => {
    const runId = await startLongRun();
    const ask = vi.fn((going: number) => Promise.resolve<QuitRunsAnswer>({ choice: going === 1 ? 'keep' : 'stop', remember: true }));
    expect(await settleRunsOnQuit({ connection, rememberedFile: remembered, ask })).toEqual({ choice: 'keep', stopped: 0 });
    expect(ask).toHaveBeenCalledWith(1);
    expect((await connection.call('getRun', { runId })).status).toBe('running');
    expect(JSON.parse(readFileSync(remembered, 'utf8'))).toEqual({ quitWithRuns: 'keep' });

    expect(await settleRunsOnQuit({ connection, rememberedFile: remembered, ask })).toEqual({ choice: 'keep', stopped: 0 });
    expect(ask).toHaveBeenCalledTimes(1);
    // The dialog's first button, the default, is the one that keeps them.
    expect(quitRunsQuestion(1).buttons[0]).toBe('Keep running in the background');
    expect(quitRunsQuestion(2).message).toBe('2 runs are still going');
  }, 30_000);

  it('stops every run going when the operator says so, and asks again next time when not remembered', async () => {
    const runId = await startLongRun();
    const ask = vi.fn(() => Promise.resolve<QuitRunsAnswer>({ choice: 'stop', remember: false }));
    expect(await settleRunsOnQuit({ connection, rememberedFile: remembered, ask })).toEqual({ choice: 'stop', stopped: 1 });
    await vi.waitFor(async () => expect((await connection.call('getRun', { runId })).status).toBe('cancelled'), { timeout: 15_000, interval: 100 });
    expect(() => readFileSync(remembered)).toThrow();
  }, 30_000);
});
