import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { startBrowserHost, type BrowserHost } from './launchers/browser-host';
import { launchElectronApp } from './launchers/electron-app';

/**
 * What a spec gets, whichever launcher runs it: a page showing the console, the data directory
 * behind it, and a way to reload the way an operator would (F5 in a browser, Ctrl+R in the app).
 */
export interface ConsoleUnderTest {
  page: Page;
  dataDir: string;
  launcher: 'browser-host' | 'electron';
  /** The browser host, when that is the launcher (for specs about the host itself). */
  host: BrowserHost | undefined;
}

export const test = base.extend<{
  console: ConsoleUnderTest;
  scratchDir: string;
  /** Environment variables the console starts with (`test.use({ consoleEnv })`), e.g. OPERATOR_CONSOLE_MIN_FREE_MIB. */
  consoleEnv: Record<string, string>;
}>({
  consoleEnv: [{}, { option: true }],

  scratchDir: async ({}, use) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'oc-e2e-scratch-'));
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },

  console: async ({ browser, consoleEnv }, use, testInfo) => {
    if (testInfo.project.name === 'electron') {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'oc-e2e-data-'));
      const app = await launchElectronApp({ dataDir, env: consoleEnv });
      await use({ page: app.page, dataDir, launcher: 'electron', host: undefined });
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      return;
    }
    const host = await startBrowserHost({ env: consoleEnv });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(host.url);
    await use({ page, dataDir: host.dataDir, launcher: 'browser-host', host });
    await context.close();
    // The host's own contract: one line on stdout, and a clean exit on SIGTERM.
    const code = await host.stop();
    expect(host.stdoutLines).toHaveLength(1);
    expect(code).toBe(0);
  },
});

export { expect };
