import path from 'node:path';
import { test, expect } from '../console-test';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask, terminal } from './helpers';

test('an operator runs a task, watches its output live, reads the timeline and stops it', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  await addFixtureAgent(page, 'Fixture slow', ['--json-events', '--lines', '400', '--delay-ms', '50']);
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Fixture slow');

  // Live: lines appear while the run is still going.
  await expect(page.getByText('Running', { exact: true }).first()).toBeVisible();
  await expect(terminal(page)).toContainText(/line \d+ of 400/);
  await expect(page.getByRole('list', { name: 'Timeline' }).or(page.getByRole('region', { name: 'Timeline' }))).toContainText('notes/plan.md');

  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByText('Cancelled', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('table', { name: 'Attempts' })).toContainText('cancelled');
});

test('a failed run shows each attempt with its failure code', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'billing')));
  await addFixtureAgent(page, 'Fixture failing', ['--lines', '1', '--exit-code', '2']);
  await addTask(page, 'Fix the invoice rounding');
  await runTask(page, 'Fix the invoice rounding', 'Fixture failing');

  // The command profile retries a process exit (backoff 2 s, 4 s): three attempts, then failed.
  await expect(page.getByText('Failed', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  const attempts = page.getByRole('table', { name: 'Attempts' });
  await expect(attempts.getByRole('row')).toHaveCount(4); // header + 3 attempts
  await expect(attempts).toContainText('process_exit');
});

test('a finished run reopened later shows its full output', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'search')));
  await addFixtureAgent(page, 'Fixture quick', ['--json-events', '--lines', '120']);
  await addTask(page, 'Index the catalog');
  await runTask(page, 'Index the catalog', 'Fixture quick');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 20_000 });
  const runUrl = page.url();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  await expect(page.getByRole('link', { name: /Index the catalog/ })).toBeVisible();
  await page.goto(runUrl);
  await expect(terminal(page)).toContainText('line 120 of 120');
  // The beginning is there too: find it in the output, as an operator would.
  await page.getByLabel('Find in output').fill('line 1 of 120');
  await page.getByLabel('Find in output').press('Enter');
  await expect(terminal(page)).toContainText('line 1 of 120');
});
