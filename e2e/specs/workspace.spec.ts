import { existsSync } from 'node:fs';
import path from 'node:path';
import { test, expect } from '../console-test';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask } from './helpers';

/**
 * The run's workspace as the operator meets it in the run detail: what the agent changed against the
 * base revision, how the run was confined, its folder, and archiving and deleting it.
 *
 * A sandboxed run is not part of this spec: a sandboxed agent needs an AI connection, which the
 * fixture agent (a Command provider) has no way to use, so such a run is refused before it starts.
 */
test('an operator reviews what a run changed and how it was confined, then archives and deletes it', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'refunds')));
  await addFixtureAgent(page, 'Fixture writer', ['--json-events', '--write-file', 'src/refund.ts']);
  await addTask(page, 'Write the refund module');
  await runTask(page, 'Write the refund module', 'Fixture writer');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 20_000 });

  // Changes: the new file, listed as added, and its content in the diff.
  const changes = page.getByRole('region', { name: 'Changes' });
  const files = changes.getByRole('list', { name: 'Files changed' });
  const refund = files.getByRole('listitem').filter({ hasText: 'src/refund.ts' });
  await expect(refund).toContainText('Added');
  await expect(files.getByRole('listitem')).toHaveCount(1);
  await expect(changes).toContainText(/against base revision [0-9a-f]{12}/);
  await expect(changes.getByText(/^written by fixture-agent/)).toBeVisible();

  // Confinement: a local run, no OS sandbox, the operator's own login, writing only in its task root.
  const confinement = page.getByRole('region', { name: 'Confinement' });
  await expect(confinement.getByText('Local', { exact: true })).toBeVisible();
  await expect(confinement.getByText('None (local)', { exact: true })).toBeVisible();
  await expect(confinement.getByText(/^Preconfigured/)).toBeVisible();
  await expect(confinement.getByRole('list', { name: 'Writable roots' }).getByRole('listitem')).toHaveText(['view', 'tmp', 'cache', 'home']);

  // Open folder: the run's working folder, whether or not a file manager could show it here.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await changes.getByRole('button', { name: 'Open folder' }).click();
  const folder = changes.getByText(/\/view$/);
  await expect(folder).toBeVisible();
  const view = (await folder.textContent())!;
  expect(view.startsWith(path.join(app.dataDir, 'tasks') + path.sep)).toBe(true);
  expect(existsSync(path.join(view, 'src', 'refund.ts'))).toBe(true);
  await changes.getByRole('button', { name: 'Copy path' }).click();
  await expect(changes.getByText('Copied.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(view);

  // Archive: the record stays, the worktree goes, and the run can no longer be resumed.
  await page.getByRole('button', { name: 'Archive run' }).click();
  const archiveDialog = page.getByRole('alertdialog', { name: 'Archive run' });
  await expect(archiveDialog).toContainText('Its record stays; its worktree and branch are removed, so it cannot be resumed.');
  await archiveDialog.getByRole('button', { name: 'Archive' }).click();
  await expect(archiveDialog).toBeHidden();
  await expect(page.getByText('Archived', { exact: true })).toBeVisible();
  await expect(changes).toContainText('worktree was cleaned up');
  await expect(changes.getByRole('button', { name: 'Open folder' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Resume' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Archive run' })).toHaveCount(0);
  expect(existsSync(view)).toBe(false);

  // Delete: the record goes too, and the operator is back at the run list.
  await page.getByRole('button', { name: 'Delete run' }).click();
  const deleteDialog = page.getByRole('alertdialog', { name: 'Delete run' });
  await expect(deleteDialog).toContainText('Delete this run? Its record, output and worktree are removed.');
  await deleteDialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await expect(page.getByText('No runs yet')).toBeVisible();
});
