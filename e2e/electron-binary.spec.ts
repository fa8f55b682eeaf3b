import { test, expect } from '@playwright/test';
import { electronAvailability, launchElectronApp } from './launchers/electron-app';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The one place the Electron launcher may skip: where the Electron binary cannot be had, this test
 * says so once, with the reason. Where it can, it proves the app starts with a secure window.
 */
test('the Electron app starts where its binary exists', async () => {
  const electron = electronAvailability();
  test.skip(!electron.available, `Electron e2e not run: ${electron.available ? '' : electron.reason}`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'oc-e2e-electron-'));
  const app = await launchElectronApp({ dataDir });
  try {
    await expect(app.page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    // The page sees the contract bridge and nothing of Node.
    const seen = await app.page.evaluate(() => ({
      bridge: typeof (window as unknown as { operator?: unknown }).operator,
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
    }));
    expect(seen).toEqual({ bridge: 'object', require: 'undefined', process: 'undefined' });
    const windows = await app.app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length);
    expect(windows).toBe(1);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
