import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { test, expect } from '../console-test';
import { addProject, addSandboxedFixtureAgent, addTask, fixtureAgent, makeRepository, runTask, terminal } from './helpers';

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
  await environment.selectOption((await environment.locator('option', { hasText: /^Sandboxed/ }).getAttribute('value')));
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

  // Where the process is, in words; the raw record behind a toggle.
  const locators = page.getByRole('list', { name: 'Locators' });
  await expect(locators.getByRole('term').filter({ hasText: 'Process id' })).toBeVisible();
  await expect(locators.getByRole('term').filter({ hasText: 'Started at' })).toBeVisible();
  await expect(locators.getByText('startTime', { exact: true })).toBeHidden();
  await locators.getByText('Raw values').click();
  await expect(locators.getByText('startTime', { exact: true })).toBeVisible();

  // The keyboard is never trapped in the terminal: Tab goes to the run until Ctrl+M lets it move focus on.
  const input = terminal(page).getByRole('textbox', { name: 'Terminal input' });
  await terminal(page).locator('.xterm-screen').click();
  await expect(input).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(input).toBeFocused();
  await page.keyboard.press('Control+m');
  await expect(terminal(page)).toContainText('Tab moves focus out of the terminal');
  await page.keyboard.press('Tab');
  await expect(input).not.toBeFocused();

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

test('a preconfigured home in a sandbox: the notice opens the fix, one click makes the home isolated, and focus moves on to the AI connection', async ({
  console: app,
  scratchDir,
}) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'home-service')));
  await addSandboxedFixtureAgent(page, 'Own login', [], { homeMode: 'preconfigured' });
  await addTask(page, 'Rotate the keys');
  await runTask(page, 'Rotate the keys', 'Own login');

  const notice = page.getByRole('article', { name: 'AI connection required' });
  await notice.getByRole('link', { name: 'Choose an isolated home' }).click();
  await expect(page).toHaveURL(/#\/agents\/[^/]+\/home-mode$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Own login' })).toBeInViewport();
  const fix = page.getByRole('button', { name: 'Use an isolated home' });
  await expect(fix).toBeFocused();
  await fix.click();
  await expect(page.getByText('Saved: Own login has an isolated home. Next, give it an AI connection.')).toBeVisible();
  await expect(page.getByLabel('Home mode')).toHaveValue('isolated');
  await expect(page.getByRole('button', { name: 'Create an AI connection' })).toBeFocused();
  // Still refused until it has one, and the notice now names that.
  await expect(page.getByRole('region', { name: 'Notices for this agent' })).toContainText('Choose an AI connection for Own login');
});
