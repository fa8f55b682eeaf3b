import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { startBrowserHost, type BrowserHost } from '../launchers/browser-host';

/**
 * The browser host is stopped and started again on the same port under a page that stays open. With
 * the same token (OPERATOR_CONSOLE_HOST_TOKEN) the page reconnects by itself; with a new one it says at
 * once that the console was restarted and that its new address must be opened, instead of retrying
 * forever.
 */

const keptToken = 'kept-across-this-restart_0123456789abcdef';

let dataDir: string;
const hosts: BrowserHost[] = [];

test.beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'oc-e2e-restart-'));
});

test.afterEach(async () => {
  for (const host of hosts.splice(0)) await host.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(options: { port?: number; token?: string } = {}): Promise<BrowserHost> {
  const host = await startBrowserHost({
    dataDir,
    ...(options.port !== undefined ? { port: options.port } : {}),
    env: options.token !== undefined ? { OPERATOR_CONSOLE_HOST_TOKEN: options.token } : { OPERATOR_CONSOLE_HOST_TOKEN: '' },
  });
  hosts.push(host);
  return host;
}

async function restart(host: BrowserHost, token?: string): Promise<BrowserHost> {
  expect(await host.stop()).toBe(0);
  hosts.splice(hosts.indexOf(host), 1);
  return start({ port: host.port, ...(token !== undefined ? { token } : {}) });
}

test('a restart with the same token: the open page reconnects by itself', async ({ page }) => {
  const first = await start({ token: keptToken });
  await page.goto(first.url);
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible();

  const second = await restart(first, keptToken);
  expect(second.url).toBe(first.url);
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible({ timeout: 15_000 });
  // Without a reload, the page works against the new console.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
  await expect(page.getByText('No agents yet')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'The console was restarted' })).toHaveCount(0);
});

test('a restart with a new token: the open page says at once to open the new address', async ({ page }) => {
  const first = await start();
  await page.goto(first.url);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();

  const second = await restart(first);
  expect(second.port).toBe(first.port);
  expect(second.token).not.toBe(first.token);
  // Within the client's first few retries (its backoff is capped at 5 s), not "reconnecting" forever.
  await expect(page.getByRole('heading', { level: 1, name: 'The console was restarted' })).toBeVisible({ timeout: 10_000 });
  await expect(page.getByRole('alert')).toContainText('Open the new address the console printed when it started');
  await expect(page.getByText(/reconnecting/i)).toHaveCount(0);

  // The address the console printed brings the page back.
  await page.goto(second.url);
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
});
