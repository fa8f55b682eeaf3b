import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import { startBrowserHost } from '../launchers/browser-host';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask } from '../specs/helpers';

/**
 * A project's secret variable the console can no longer read: its data directory came back with
 * another key file (restored from a backup without its key, say). The next run fails before its agent
 * starts, with a notice whose link opens the project's variables with the secret's value focused, to
 * be entered again. The console is started twice on the same data directory, so this is a host spec.
 */
test('a secret the console cannot read any more: the run’s notice links to its value, to enter again', async ({ browser }) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'oc-e2e-secret-'));
  const scratch = mkdtempSync(path.join(tmpdir(), 'oc-e2e-secret-project-'));
  const context = await browser.newContext();
  try {
    const first = await startBrowserHost({ dataDir });
    let page = await context.newPage();
    await page.goto(first.url);
    await addProject(page, makeRepository(path.join(scratch, 'storefront')));
    await page.getByRole('link', { name: 'Setup of storefront' }).click();
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.keyboard.type('PAYMENTS_TOKEN');
    await page.getByLabel('Value of variable 1').fill('tok-e2e-secret-0000');
    await page.getByLabel('Variable 1 is secret').check();
    await page.getByRole('button', { name: 'Save variables' }).click();
    await expect(page.getByText('Saved 1 variable for storefront.')).toBeVisible();
    await addFixtureAgent(page, 'Fixture', ['--lines', '1']);
    await addTask(page, 'Check the storefront');
    await page.close();
    expect(await first.stop()).toBe(0);

    // Another key beside the same ledger: the sealed value no longer opens.
    writeFileSync(path.join(dataDir, 'connection-secrets.key'), randomBytes(32), { mode: 0o600 });
    const second = await startBrowserHost({ dataDir });
    try {
      page = await context.newPage();
      await page.goto(second.url);
      await runTask(page, 'Check the storefront', 'Fixture');
      await expect(page.getByText('variable_unreadable', { exact: true })).toBeVisible({ timeout: 30_000 });
      // The run's notice says so (one, in Notices too) and carries the fix.
      const notice = page.getByRole('article', { name: 'Agent configuration incomplete' });
      await expect(notice).toContainText(/The secret value of PAYMENTS_TOKEN \(.*\) cannot be read/);
      await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Notices 1 open notice/ })).toBeVisible();

      await notice.getByRole('link', { name: 'Fix it' }).click();
      await expect(page).toHaveURL(/#\/settings\/projects\/prj_[^/?]+\?field=variables$/);
      const value = page.getByLabel('Value of variable 1');
      await expect(value).toBeFocused();
      await expect(value).toBeInViewport();
      await expect(page.getByLabel('Name of variable 1')).toHaveValue('PAYMENTS_TOKEN');
    } finally {
      expect(await second.stop()).toBe(0);
    }
  } finally {
    await context.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
});
