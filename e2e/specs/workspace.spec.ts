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
  await expect(confinement.getByText(/^None \(local\) · runs as you, with your rights$/)).toBeVisible();
  await expect(confinement.getByText(/^Preconfigured/)).toBeVisible();
  await expect(confinement.getByRole('list', { name: 'Writable roots' }).getByRole('listitem')).toHaveText(['view', 'tmp', 'cache', 'home', 'git']);

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
  await expect(archiveDialog).toContainText('Its record stays; its working folder and its repository (the run’s branch and commits) are removed, so it cannot be resumed.');
  await archiveDialog.getByRole('button', { name: 'Archive' }).click();
  await expect(archiveDialog).toBeHidden();
  await expect(page.getByText('Archived', { exact: true })).toBeVisible();
  await expect(changes).toContainText('files were cleaned up');
  await expect(changes.getByRole('button', { name: 'Open folder' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Resume' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Archive run' })).toHaveCount(0);
  expect(existsSync(view)).toBe(false);

  // Delete: the record goes too, and the operator is back at the run list.
  await page.getByRole('button', { name: 'Delete run' }).click();
  const deleteDialog = page.getByRole('alertdialog', { name: 'Delete run' });
  await expect(deleteDialog).toContainText('Delete this run? Its record, output, working folder and repository are removed.');
  await deleteDialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await expect(page.getByText('No runs yet')).toBeVisible();
});

/**
 * Code an unattended agent wrote can read one way and run another: bidirectional controls reorder how
 * a line is shown ("Trojan Source") and zero-width characters make look-alike names differ. The
 * Changes view warns about them, marks the file, and shows each one as a badge that names it.
 */
test('an operator is warned about hidden characters an agent wrote, and sees each one in the diff', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'admin-panel')));
  // The Trojan Source "commenting out" example (trojansource.codes): it reads as one comment, and the
  // admin-only line runs for everyone. Then a zero width space inside a string. The fixture decodes
  // the escapes; braces are doubled because the command provider reads {name} as a placeholder.
  const content = [
    'var isAdmin = false;',
    '/*\\u202E }} \\u2066if (isAdmin)\\u2069 \\u2066 begin admins only */',
    '    console.log("You are an admin.");',
    '/* end admins only \\u202E {{ \\u2066*/',
    'const role = "admin\\u200B";',
    '',
  ].join('\\n');
  await addFixtureAgent(page, 'Fixture trojan', ['--write-file', 'src/access.js', '--file-content', content]);
  await addTask(page, 'Guard the admin page');
  await runTask(page, 'Guard the admin page', 'Fixture trojan');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 20_000 });

  // The warning, at the top of Changes: how many lines in which file, which characters, and why.
  const changes = page.getByRole('region', { name: 'Changes' });
  const warning = changes.getByRole('alert', { name: 'Hidden characters in the agent’s changes' });
  await expect(warning).toContainText('3 lines in 1 file hold hidden characters.');
  await expect(warning).toContainText('Bidirectional controls change the order in which text is shown');
  await expect(warning).toContainText('Invisible characters show as nothing');
  const warned = warning.getByRole('list', { name: 'Files with hidden characters' }).getByRole('listitem');
  await expect(warned).toHaveCount(1);
  await expect(warned).toContainText(
    'lines 2, 4 and 5: U+202E right-to-left override, U+2066 left-to-right isolate, U+2069 pop directional isolate, U+200B zero width space',
  );

  // The file list says so in words, next to the file.
  const listed = changes.getByRole('list', { name: 'Files changed' }).getByRole('listitem').filter({ hasText: 'src/access.js' });
  await expect(listed).toContainText('Added');
  await expect(listed).toContainText('Hidden characters');

  // In the lines, every hidden character is a visible badge that names it, in place of the character.
  const rlo = changes.getByRole('img', { name: 'U+202E right-to-left override' });
  await expect(rlo).toHaveCount(2);
  await expect(rlo.first()).toBeVisible();
  await expect(rlo.first()).toHaveText('U+202E');
  await expect(rlo.first()).toHaveAttribute('title', /^U\+202E RIGHT-TO-LEFT OVERRIDE \(RLO\): a bidirectional control/);
  await expect(changes.getByRole('img', { name: 'U+2066 left-to-right isolate' })).toHaveCount(3);
  await expect(changes.getByRole('img', { name: 'U+2069 pop directional isolate' })).toHaveCount(1);
  const zwsp = changes.getByRole('img', { name: 'U+200B zero width space' });
  await expect(zwsp).toBeVisible();
  await expect(zwsp).toHaveText('U+200B');
  // None of the characters themselves is left on the page to hide or reorder anything.
  expect(await changes.textContent()).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b]/);
  await expect(changes.getByText('console.log("You are an admin.");')).toBeVisible();

  // The file in the warning takes the operator to its first such line, with focus on it.
  await warning.getByRole('button', { name: 'src/access.js' }).click();
  await expect(page.locator(':focus')).toContainText('Line 2 holds hidden characters');
  await expect(page.locator(':focus')).toContainText('begin admins only');
  await expect(page.locator(':focus')).toBeInViewport();
});
