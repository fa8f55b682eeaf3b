import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './launchers/chromium';
import { electronAvailability } from './launchers/electron-app';

/**
 * One suite, two launchers (DESIGN.md section 2): every spec under specs/ runs against the browser
 * host in Chromium, and against the Electron app where its binary exists. Where it does not (as on
 * the machines this project is built on), the electron project runs one test that reports the
 * binary's absence as a skip, once, and nothing else is skipped.
 */
const electron = electronAvailability();
// Said once, by the runner (workers load this file too): the one skip this suite allows, and why.
if (!electron.available && process.env.TEST_WORKER_INDEX === undefined) {
  console.log(`Electron launcher: not run here, ${electron.reason}; the browser-host launcher runs every spec.`);
}

export default defineConfig({
  testDir: '.',
  outputDir: '../test-results/e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    actionTimeout: 10_000,
  },
  projects: [
    {
      name: 'browser-host',
      testMatch: ['specs/**/*.spec.ts', 'host/**/*.spec.ts'],
      use: { launchOptions: chromiumLaunchOptions() },
    },
    {
      name: 'electron',
      testMatch: electron.available ? ['specs/**/*.spec.ts', 'electron-binary.spec.ts'] : 'electron-binary.spec.ts',
    },
  ],
});
