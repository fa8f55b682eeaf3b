import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { _electron, type ElectronApplication, type Page } from '@playwright/test';
import { installedElectronBinary, shortReason } from '../../scripts/electron-binary.mjs';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

export type ElectronAvailability = { available: true; executablePath: string } | { available: false; reason: string };

let cached: ElectronAvailability | undefined;

/**
 * Whether the Electron e2e launcher can run here. The electron package downloads its binary on first
 * use; this gives it that one chance (on an operator's machine it succeeds once and is then on disk),
 * and otherwise reports why not. The answer is computed once per process.
 */
export function electronAvailability(): ElectronAvailability {
  if (cached) return cached;
  let executable = installedElectronBinary({ appDir: repoRoot });
  let reason = 'the Electron binary is not installed';
  if (!executable) {
    const attempt = spawnSync(process.execPath, ['-e', "process.stdout.write('\\n' + require('electron'))"], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 300_000,
    });
    executable = installedElectronBinary({ appDir: repoRoot });
    if (!executable) reason = `the Electron binary could not be had (${shortReason(attempt.stderr || attempt.error?.message || '')})`;
  }
  cached = executable ? { available: true, executablePath: executable } : { available: false, reason };
  return cached;
}

export interface LaunchedElectronApp {
  app: ElectronApplication;
  page: Page;
  close(): Promise<void>;
}

/**
 * Starts the built desktop app (dist/electron/main.js) on a data dir of the test's own. The app starts
 * the console service detached; close() quits the app and then ends that service, so no test leaves one
 * behind. Quitting with runs going stops them without asking (the answer remembered in the profile the
 * app uses for this data directory), so a spec never waits on the question.
 */
export async function launchElectronApp(options: { dataDir: string; env?: Record<string, string> }): Promise<LaunchedElectronApp> {
  const electron = electronAvailability();
  if (!electron.available) throw new Error(`Electron cannot be launched here: ${electron.reason}`);
  const profile = path.join(path.resolve(options.dataDir), 'electron-profile');
  mkdirSync(profile, { recursive: true });
  writeFileSync(path.join(profile, 'quit-choice.json'), `${JSON.stringify({ quitWithRuns: 'stop' })}\n`);
  const env = { ...process.env, ...options.env, OPERATOR_CONSOLE_DATA_DIR: options.dataDir } as Record<string, string>;
  delete env.ELECTRON_RUN_AS_NODE;
  const app = await _electron.launch({
    executablePath: electron.executablePath,
    args: [repoRoot, ...(process.platform === 'linux' && process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
    cwd: repoRoot,
    env,
  });
  const page = await app.firstWindow();
  await page.waitForLoadState('domcontentloaded');
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const endService = async () => {
    let pid: number;
    try {
      pid = (JSON.parse(readFileSync(path.join(options.dataDir, 'console-owner.json'), 'utf8')) as { pid: number }).pid;
    } catch {
      // No owner file: the service stopped with the app, as it does when nothing is going.
      return;
    }
    if (alive(pid)) process.kill(pid, 'SIGTERM');
    for (let waited = 0; alive(pid) && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  };
  return {
    app,
    page,
    close: async () => {
      await app.close();
      await endService();
    },
  };
}
