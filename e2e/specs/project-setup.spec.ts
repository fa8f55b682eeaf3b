import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../console-test';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask, terminal } from './helpers';

test('an operator gives a project a setup command, files to copy and a variable, sees the run set up, then succeed', async ({ console: app, scratchDir }) => {
  const { page } = app;
  const repository = makeRepository(path.join(scratchDir, 'storefront'));
  // The run needs .env, which git ignores: only "Files to copy into each run" brings it into the view.
  writeFileSync(path.join(repository, '.gitignore'), '.env\n');
  writeFileSync(path.join(repository, '.env'), 'PAYMENTS_URL=http://127.0.0.1:9\n');
  await addProject(page, repository);

  await page.getByRole('link', { name: 'Setup of storefront' }).click();
  await expect(page.getByRole('heading', { name: 'Setup of storefront' })).toBeVisible();
  await page.getByLabel('Files to copy into each run').fill('.env');
  await page.getByLabel('Setup command').fill('echo installing dependencies; sleep 5; echo installed > setup-marker.txt; echo setup-complete');
  await page.getByRole('button', { name: 'Save setup' }).click();
  await expect(page.getByText('Saved the setup of storefront. New runs get it.')).toBeVisible();

  // A variable the console sets itself is refused before saving, saying which; an ordinary one is kept.
  await page.getByRole('button', { name: 'Add variable' }).click();
  await expect(page.getByLabel('Name of variable 1')).toBeFocused();
  await page.keyboard.type('HOME');
  await page.getByLabel('Value of variable 1').fill('/root');
  await page.getByRole('button', { name: 'Save variables' }).click();
  await expect(page.getByText('HOME is set by the console itself (the run’s home folder); use another name')).toBeVisible();
  await page.getByLabel('Name of variable 1').fill('GREETING');
  await page.getByLabel('Value of variable 1').fill('hello-from-the-project');
  await page.getByRole('button', { name: 'Save variables' }).click();
  await expect(page.getByText('Saved 1 variable for storefront.')).toBeVisible();

  await addFixtureAgent(page, 'Fixture reader', ['--print-file', 'setup-marker.txt', '--print-file', '.env', '--print-env', 'GREETING']);
  await addTask(page, 'Check the storefront');
  await runTask(page, 'Check the storefront', 'Fixture reader');

  // While the setup command runs, the run says so, here and in the Runs list.
  await expect(page.getByText('Setting up', { exact: true }).first()).toBeVisible();
  await expect(terminal(page)).toContainText('── setup · echo installing dependencies; sleep 5;');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  const row = page.getByRole('row', { name: /Check the storefront/ });
  await expect(row).toContainText('Setting up');
  await row.getByRole('link', { name: 'Check the storefront' }).click();

  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  const output = terminal(page);
  await expect(output).toContainText('setup-complete');
  await expect(output).toContainText('── setup finished · the agent starts ──');
  await expect(output).toContainText('file setup-marker.txt');
  await expect(output).toContainText('installed');
  await expect(output).toContainText('PAYMENTS_URL=http://127.0.0.1:9');
  await expect(output).toContainText('GREETING=hello-from-the-project');
  const setup = page.getByRole('region', { name: 'Setup' });
  await expect(setup).toContainText('Succeeded');
  await expect(setup.getByRole('list', { name: 'Files copied' })).toContainText('.env');
  await expect(setup.getByRole('table', { name: 'Environment variables' })).toContainText('GREETING');
  await expect(setup.getByRole('table', { name: 'Environment variables' })).toContainText('Project');
});
