import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { test, expect } from '../console-test';
import { addProject, addTask, fixtureAgent, makeRepository, runTask, terminal } from './helpers';

/**
 * New agent, as a first-time operator meets it: choosing Sandboxed sets the agent up to work (an
 * isolated home, an AI connection made right in the dialog), the dialog says before saving whether
 * its runs would be refused and why, and the agent's first run is admitted.
 */

test('New agent with Sandboxed makes an agent whose first run is admitted, with its AI connection made in the dialog', async ({
  console: app,
  scratchDir,
}) => {
  const { page } = app;
  const key = `sk-test-e2e-${randomBytes(12).toString('hex')}`;
  await addProject(page, makeRepository(path.join(scratchDir, 'billing-service')));
  await addTask(page, 'Document the invoice states');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('button', { name: 'New agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'New agent' });
  await dialog.getByLabel('Name').fill('Sandboxed first');

  // The inline connection offers only what the agent's CLI can use: Codex speaks OpenAI-style APIs.
  await dialog.getByLabel('Provider').selectOption('codex');
  await dialog.getByRole('button', { name: 'Create an AI connection' }).click();
  const codexConnection = page.getByRole('dialog', { name: 'New AI connection' });
  await expect(codexConnection.getByLabel('Provider').locator('option')).toHaveText(['OpenAI', 'OpenRouter', 'Custom (OpenAI-compatible)']);
  await codexConnection.getByRole('button', { name: 'Cancel' }).click();
  await expect(codexConnection).toBeHidden();
  await expect(dialog).toBeVisible();

  await dialog.getByLabel('Provider').selectOption({ label: 'Command' });
  await dialog.getByLabel('Profile').selectOption('program-codex-json');
  await dialog.getByLabel('Executable path').fill(fixtureAgent);
  await dialog.getByLabel('Arguments').fill(['--json-events', '--lines', '3'].join('\n'));

  // Sandboxed: the home becomes isolated, and the dialog says what is still missing.
  const environment = dialog.getByLabel('Environment');
  await environment.selectOption((await environment.locator('option', { hasText: /^Sandboxed/ }).getAttribute('value'))!);
  await expect(dialog.getByLabel('Home mode')).toHaveValue('isolated');
  const preview = dialog.getByRole('status', { name: 'First run' });
  await expect(preview).toContainText('Its runs would be refused as it stands.');
  await expect(preview).toContainText('Choose an AI connection for Sandboxed first.');

  // A preconfigured home would be refused too, and the dialog names it.
  await dialog.getByLabel('Home mode').selectOption('preconfigured');
  await expect(preview).toContainText('needs an isolated home');
  await dialog.getByRole('button', { name: 'Use an isolated home' }).click();
  await expect(dialog.getByLabel('Home mode')).toHaveValue('isolated');

  // The connection, made without leaving the dialog, for this agent only.
  await dialog.getByRole('button', { name: 'Create an AI connection' }).click();
  const connection = page.getByRole('dialog', { name: 'New AI connection' });
  await expect(connection.getByRole('checkbox', { name: 'Sandboxed first (the new agent)' })).toBeChecked();
  await connection.getByLabel('Name').fill('Billing key');
  await connection.getByLabel('API key').fill(key);
  await connection.getByRole('button', { name: 'Create connection' }).click();
  await expect(connection).toBeHidden();
  await expect(dialog.getByRole('combobox', { name: 'AI connection' }).locator('option:checked')).toHaveText(/^Billing key/);
  await expect(preview).toContainText('Ready.');
  await expect(preview).toContainText('AI connection “Billing key”');

  await dialog.getByRole('button', { name: 'Create agent' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('link', { name: 'Sandboxed first' })).toBeVisible();

  // Its first run is admitted and succeeds, in the sandbox.
  await runTask(page, 'Document the invoice states', 'Sandboxed first');
  await expect(terminal(page)).toContainText('line 3 of 3', { timeout: 30_000 });
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('region', { name: 'Confinement' }).getByText('bubblewrap', { exact: true })).toBeVisible();

  // The connection is shared with the new agent (and no other).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('link', { name: 'AI connections' }).click();
  const row = page.getByRole('list', { name: 'AI connections' }).getByRole('listitem').filter({ hasText: 'Billing key' });
  await expect(row).toContainText('Sandboxed first');
  expect(await page.content()).not.toContain(key);
});

test('after Stop, the button under the pointer is not Delete run', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'slow-service')));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('button', { name: 'New agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'New agent' });
  await dialog.getByLabel('Name').fill('Slow fixture');
  await dialog.getByLabel('Provider').selectOption({ label: 'Command' });
  await dialog.getByLabel('Profile').selectOption('program-codex-json');
  await dialog.getByLabel('Executable path').fill(fixtureAgent);
  await dialog.getByLabel('Arguments').fill(['--lines', '1', '--sleep-ms', '60000'].join('\n'));
  await dialog.getByRole('button', { name: 'Create agent' }).click();
  await addTask(page, 'Walk the slow path');
  await runTask(page, 'Walk the slow path', 'Slow fixture');

  const stop = page.getByRole('button', { name: 'Stop' });
  await expect(stop).toBeVisible({ timeout: 30_000 });
  const box = (await stop.boundingBox())!;
  await stop.click();
  await expect(page.getByText('Cancelled', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  const under = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('button, a')?.textContent ?? null, {
    x: box.x + box.width / 2,
    y: box.y + box.height / 2,
  });
  expect(under).not.toBe('Delete run');
  await expect(page.getByRole('button', { name: 'Delete run' })).toBeVisible();
});
