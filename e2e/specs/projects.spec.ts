import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { test, expect } from '../console-test';

test('a project added by its path is still there after a reload', async ({ console: app, scratchDir }) => {
  const { page } = app;
  const projectDir = path.join(scratchDir, 'payments-service');
  mkdirSync(projectDir);
  execFileSync('git', ['init', '-q', projectDir]);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('link', { name: 'Projects' }).click();
  await expect(page.getByRole('heading', { name: 'Projects' })).toBeVisible();
  await expect(page.getByText('No projects yet')).toBeVisible();

  await page.getByLabel('Project folder').fill(projectDir);
  await page.getByRole('button', { name: 'Add project' }).click();
  const projects = page.getByRole('list', { name: 'Projects' });
  await expect(projects.getByText('payments-service', { exact: true })).toBeVisible();
  await expect(projects.getByText(projectDir, { exact: true })).toBeVisible();
  await expect(projects.getByText('git', { exact: true })).toBeVisible();

  await page.reload();
  await expect(page.getByRole('list', { name: 'Projects' }).getByText('payments-service', { exact: true })).toBeVisible();

  // Tasks now offers the project instead of asking for one.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
  await expect(page.getByText('No tasks in payments-service yet')).toBeVisible();
});

test('a project can be picked by browsing folders, and removed after confirming', async ({ console: app, scratchDir }) => {
  const { page } = app;
  const projectDir = path.join(scratchDir, 'web-client');
  mkdirSync(path.join(projectDir, 'src'), { recursive: true });
  writeFileSync(path.join(projectDir, 'README.md'), '# web client\n');

  await page.evaluate(() => (window.location.hash = '#/settings/projects'));
  // Start the picker at the scratch folder by typing it, then browse into the project.
  await page.getByLabel('Project folder').fill(scratchDir);
  await page.getByRole('button', { name: 'Browse…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Choose a project folder' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: /web-client/ }).click();
  await expect(dialog.getByText(projectDir)).toBeVisible();
  await dialog.getByRole('button', { name: 'Choose this folder' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByLabel('Project folder')).toHaveValue(projectDir);
  await page.getByRole('button', { name: 'Add project' }).click();
  await expect(page.getByRole('list', { name: 'Projects' }).getByText('web-client', { exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'Remove web-client' }).click();
  await expect(page.getByText(/files on disk are not touched/i)).toBeVisible();
  await page.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(page.getByText('No projects yet')).toBeVisible();
  await page.reload();
  await expect(page.getByText('No projects yet')).toBeVisible();
});

test('a path that does not exist is refused with a message that says why', async ({ console: app }) => {
  const { page } = app;
  await page.evaluate(() => (window.location.hash = '#/settings/projects'));
  await page.getByLabel('Project folder').fill('/no/such/folder/anywhere');
  await page.getByRole('button', { name: 'Add project' }).click();
  await expect(page.getByRole('alert')).toContainText('does not exist');
  await expect(page.getByText('No projects yet')).toBeVisible();
});
