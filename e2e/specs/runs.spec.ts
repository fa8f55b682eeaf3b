import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
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
  // More output than the tail a reopened run loads first (256 KiB, output-fanout.ts): 16,000 lines
  // are about 320 KB, and still fit in the terminal's 20,000 lines of scrollback once loaded in full.
  await addFixtureAgent(page, 'Fixture quick', ['--json-events', '--lines', '16000']);
  await addTask(page, 'Index the catalog');
  await runTask(page, 'Index the catalog', 'Fixture quick');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  const runUrl = page.url();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  // In the list itself (the largest runs on disk above it may name the run too).
  await expect(page.getByRole('table', { name: 'Runs, newest first' }).getByRole('link', { name: /Index the catalog/ })).toBeVisible();
  await page.goto(runUrl);
  const output = terminal(page);
  const find = output.getByLabel('Find in output');
  const findStatus = output.getByRole('search');
  // Reopened, it shows the end, and says that the beginning is not loaded: looking for it finds nothing.
  await expect(output).toContainText('line 16000 of 16000');
  await expect(output).toContainText(/Showing the end of the output; the first [\d.]+ KB are not loaded\./);
  await find.fill('line 1 of 16000');
  await find.press('Enter');
  await expect(findStatus).toContainText('No matches');

  // Loaded in full, it holds both ends: the replay runs to the last line, and the first is found.
  await output.getByRole('button', { name: 'Load full output' }).click();
  await expect(output).toContainText('Showing the full output.');
  await expect(output).toContainText('line 16000 of 16000');
  await find.press('Enter');
  await expect(findStatus).toContainText('1 of 1');
  await expect(output).toContainText('line 1 of 16000');
  await find.fill('line 16000 of 16000');
  await find.press('Enter');
  await expect(findStatus).toContainText('1 of 1');
  await expect(output).toContainText('line 16000 of 16000');
});

test('scrolled to the top of a reopened run’s tail, the operator shows the earlier output', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'ledger')));
  // About 320 KB: the 256 KiB tail leaves the first lines out; 256 KiB more reaches the first byte.
  await addFixtureAgent(page, 'Fixture quick', ['--json-events', '--lines', '16000']);
  await addTask(page, 'Export the ledger');
  await runTask(page, 'Export the ledger', 'Fixture quick');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  await page.reload();
  const output = terminal(page);
  await expect(output).toContainText('line 16000 of 16000');
  // Chromium without a GPU (the suite's --disable-gpu) draws with the DOM renderer, not SwiftShader's WebGL.
  await expect(output.locator('.run-terminal__screen')).toHaveAttribute('data-renderer', 'dom');
  const earlier = output.getByRole('button', { name: 'Show earlier output' });
  // Following the end, the offer is not there; at the top of what the terminal holds, it is.
  await expect(earlier).toBeHidden();
  // Some 13,000 lines up: the operator drags the scrollbar to the top.
  await dragScrollbarToTop(page, output);
  await expect(earlier).toBeVisible();
  await earlier.click();
  // The screen now starts at the first byte, shown from its top.
  await expect(output).toContainText('Showing the full output.');
  await expect(output).toContainText('line 1 of 16000');
  await expect(earlier).toBeHidden();
});

test('the operator pages back through a long run’s output to its first line, and back to live', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'long')));
  // About 1.2 MB of short lines: more than the terminal's 20,000 rows of scrollback hold.
  await addFixtureAgent(page, 'Fixture long', ['--lines', '60000']);
  await addTask(page, 'Print the whole ledger');
  await runTask(page, 'Print the whole ledger', 'Fixture long');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 60_000 });
  await page.reload();
  const output = terminal(page);
  await expect(output).toContainText('line 60000 of 60000');
  await dragScrollbarToTop(page, output);

  // Each step back is a page that fits the scrollback, shown from its top, until the first byte.
  const earlier = output.getByRole('button', { name: 'Show earlier output' });
  const pagesSeen: string[] = [];
  for (let step = 0; step < 10 && !pagesSeen.at(-1)?.startsWith('Showing 0 B'); step += 1) {
    await earlier.click();
    const note = output.getByText(/^Showing .* of output, not following live\.$/);
    await expect(note).toBeVisible();
    await expect(note).not.toHaveText(pagesSeen.at(-1) ?? '');
    pagesSeen.push((await note.textContent()) ?? '');
  }
  expect(pagesSeen.length).toBeGreaterThan(2);
  expect(pagesSeen.at(-1)).toMatch(/^Showing 0 B to /);
  await expect(output).toContainText('line 1 of 60000');
  await expect(earlier).toBeHidden();

  // Later goes a page forward; Back to live output is the end again.
  const firstPageEnd = /^Showing 0 B to (.+?) of /.exec(pagesSeen.at(-1)!)![1]!;
  await output.getByRole('button', { name: 'Show later output' }).click();
  // The next page begins where the first ended.
  await expect(output.getByText(new RegExp(`^Showing ${firstPageEnd.replace('.', '\\.')} to .* not following live\\.$`))).toBeVisible();
  await expect(output).not.toContainText('line 1 of 60000');
  await output.getByRole('button', { name: 'Back to live output' }).click();
  await expect(output).toContainText('line 60000 of 60000');
  await expect(output.getByText(/not following live/)).toBeHidden();
  await expect(output.getByRole('button', { name: 'Back to live output' })).toBeHidden();
});

/** As an operator does it: the terminal's scrollbar dragged all the way up. */
async function dragScrollbarToTop(page: Page, output: Locator) {
  const slider = await output.locator('.run-terminal__screen .scrollbar.vertical .slider').boundingBox();
  if (!slider) throw new Error('the terminal has no scrollbar slider');
  await page.mouse.move(slider.x + slider.width / 2, slider.y + slider.height / 2);
  await page.mouse.down();
  await page.mouse.move(slider.x + slider.width / 2, slider.y - 2000, { steps: 5 });
  await page.mouse.up();
}
