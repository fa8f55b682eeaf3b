import path from 'node:path';
import { test, expect } from '../console-test';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask, terminal } from './helpers';

const searchLabel = 'Search runs, tasks, agents, notices and actions';
// The specs run on Linux; on a Mac the palette's key is ⌘K.
const paletteKeys = process.platform === 'darwin' ? 'Meta+K' : 'Control+K';

test("the palette opens with the keyboard, even from the terminal, finds a run by its task's name, opens it and stops it", async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  // Prints its lines, then waits a minute: still running whenever the spec stops it, however busy the machine.
  await addFixtureAgent(page, 'Fixture slow', ['--lines', '2', '--sleep-ms', '60000']);
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Fixture slow');
  await expect(terminal(page)).toContainText('line 2 of 2');

  // From inside the terminal, which takes every key it is given.
  await terminal(page).click();
  await page.keyboard.press(paletteKeys);
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  const search = palette.getByRole('combobox', { name: searchLabel });
  await expect(search).toBeFocused();
  await search.fill('runs');
  await expect(palette.getByRole('option', { name: 'Runs' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
  await expect(palette).toBeHidden();

  await page.keyboard.press(paletteKeys);
  await search.pressSequentially('refund fl');
  const run = palette.getByRole('listbox', { name: 'Results' }).getByRole('option', { name: 'Plan the refund flow — Fixture slow · Running' });
  await expect(run).toBeVisible();
  await expect(run).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Plan the refund flow' })).toBeVisible();
  expect(new URL(page.url()).hash).toMatch(/^#\/runs\/run_/);

  // Run a task: its Run dialog, from wherever the palette was opened.
  await page.keyboard.press(paletteKeys);
  await search.fill('run plan');
  await page.getByRole('option', { name: 'Run Plan the refund flow…' }).click();
  await expect(page.getByRole('dialog', { name: 'Run Plan the refund flow' })).toBeVisible();
  await page.keyboard.press('Escape');

  // Stop a run, and hear how it went.
  await page.keyboard.press(paletteKeys);
  await search.fill('stop refund');
  await page.keyboard.press('Enter');
  await expect(page.getByText('Stopped Plan the refund flow — Fixture slow.')).toBeVisible();
  await expect(page.getByText('Cancelled', { exact: true }).first()).toBeVisible();

  // N: a new task, on the Tasks page.
  await page.getByRole('heading', { level: 1 }).click();
  await page.keyboard.press('n');
  await expect(page.getByRole('dialog', { name: 'New task' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: 'Tasks' })).toBeAttached();
});

test('shortcuts move around, never fire while typing, and are listed in the palette and in Settings → About', async ({ console: app }) => {
  const { page } = app;
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();

  // G then T: Tasks.
  await page.keyboard.press('g');
  await page.keyboard.press('t');
  await expect(page.getByRole('heading', { level: 1, name: 'Tasks' })).toBeVisible();

  // Escape closes the palette and focus goes back to where it was.
  const agents = nav.getByRole('link', { name: 'Agents' });
  await agents.focus();
  await page.keyboard.press(paletteKeys);
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await expect(palette.getByRole('combobox', { name: searchLabel })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();
  await expect(agents).toBeFocused();

  // The mouse finds it too; ? shows the shortcuts, each with its keys.
  await nav.getByRole('button', { name: 'Command palette' }).click();
  await expect(palette).toBeVisible();
  await page.keyboard.press('Escape');
  await page.keyboard.press('?');
  const shortcuts = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(shortcuts.getByRole('option', { name: 'Go to Settings G then S' })).toBeVisible();
  await shortcuts.getByRole('combobox').fill('settings');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();

  // Letters typed into a field stay in the field.
  const folder = page.getByLabel('Project folder');
  await folder.click();
  await page.keyboard.type('gt');
  await expect(folder).toHaveValue('gt');
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();

  await page.getByRole('link', { name: 'About' }).click();
  const list = page.getByRole('table', { name: 'Keyboard shortcuts' });
  await expect(list.getByRole('row', { name: 'Ctrl+K Open the command palette' })).toBeVisible();
  await expect(list.getByRole('row', { name: 'G then T Go to Tasks' })).toBeVisible();
});
