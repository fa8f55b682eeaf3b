import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../console-test';

test('Settings → About shows where the log is, and Open log folder says what it could do', async ({ console: app }) => {
  const { page, dataDir } = app;
  const logDir = path.join(dataDir, 'logs');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'About' }).click();
  const log = page.getByRole('group', { name: 'Log' });
  await expect(log).toBeVisible();
  await expect(log.getByText(path.join(logDir, 'console.log'))).toBeVisible();
  await expect(log.getByText(logDir, { exact: true })).toBeVisible();

  await log.getByRole('button', { name: 'Open log folder' }).click();
  // Whether this machine has a file manager to open is its own business; the console says which it was.
  await expect(log.getByRole('status')).toHaveText(
    /Asked this machine’s file manager to open the log folder|The console could not open a file manager on this machine\. Copy the path/,
  );

  // The file is really there, with what the console did.
  expect(existsSync(path.join(logDir, 'console.log'))).toBe(true);
  expect(readFileSync(path.join(logDir, 'console.log'), 'utf8')).toMatch(/"message":"(?:browser host listening|desktop app started)"/);
});
