import path from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from '../console-test';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask } from './helpers';

/**
 * Clean up shows what the ledger takes on the disk, and deleting a run gives the room its output
 * took back to the disk at once: the figure goes down by about the run's output, with nothing left
 * waiting to be given back.
 */

/** Clean up's ledger section, opened from the Runs page as an operator would. */
async function ledgerSection(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  await page.getByRole('region', { name: 'Disk used by runs' }).getByRole('link', { name: 'Clean up' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Clean up' })).toBeVisible();
  return page.getByRole('region', { name: 'The ledger' });
}

/** The ledger's size as the section says it ("… takes 9.4 MB on the disk"), in bytes. */
async function ledgerTakes(section: ReturnType<Page['getByRole']>): Promise<number> {
  const text = (await section.getByText(/takes .* on the disk/).textContent()) ?? '';
  const match = /takes ([\d.]+) (kB|MB|GB) on the disk/.exec(text);
  expect(match, text).not.toBeNull();
  return Number(match![1]) * { kB: 1e3, MB: 1e6, GB: 1e9 }[match![2] as 'kB' | 'MB' | 'GB'];
}

test('deleting a run gives its output’s room in the ledger back to the disk, as Clean up shows', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'logs')));
  await addFixtureAgent(page, 'Chatty writer', ['--flood-bytes', String(12 * 1024 * 1024)]);
  await addTask(page, 'Print the whole log');
  await runTask(page, 'Print the whole log', 'Chatty writer');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 40_000 });
  const runPage = page.url();

  let section = await ledgerSection(page);
  await expect(section).toContainText('Deleting a run gives the room its output took back to the disk at once.');
  const before = await ledgerTakes(section);
  expect(before).toBeGreaterThan(12e6);

  await page.goto(runPage);
  await page.getByRole('button', { name: 'Delete run' }).click();
  await page.getByRole('alertdialog', { name: 'Delete run' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();

  section = await ledgerSection(page);
  await expect(section.getByText('Nothing in it is waiting to go back to the disk.')).toBeVisible();
  expect(before - (await ledgerTakes(section))).toBeGreaterThan(11e6);
});
