import path from 'node:path';
import type { Locator } from '@playwright/test';
import { test, expect } from '../console-test';
import { addFixtureAgent, addProject, addTask, fixtureAgent, makeRepository, runTask, terminal } from './helpers';

/** How many times `text` is on the terminal's screen (xterm renders its rows into the DOM). */
async function timesShown(rows: Locator, text: string): Promise<number> {
  return (await rows.innerText()).split(text).length - 1;
}

test('a run that fails every attempt shows a separator line before each retry, live and on replay', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'ledger-export')));
  await addFixtureAgent(page, 'Fixture always failing', ['--lines', '2', '--exit-code', '2']);
  await addTask(page, 'Export the ledger');
  await runTask(page, 'Export the ledger', 'Fixture always failing');
  const rows = terminal(page).locator('.xterm-rows');

  // Live: the command profile retries a process exit three times in all, 2 s then 4 s apart. The
  // second attempt's line shows while the third has not begun.
  // (The gap is the backoff plus the time the retry takes to start: a second or so either way.)
  await expect(rows).toContainText(/retry after process_exit \(exit code 2\) · attempt 2 of 3 · \d s later/, { timeout: 20_000 });
  await expect(rows).not.toContainText('attempt 3 of 3');
  await expect(rows).toContainText(/retry after process_exit \(exit code 2\) · attempt 3 of 3 · \d s later/, { timeout: 20_000 });
  await expect(page.getByText('Failed', { exact: true }).first()).toBeVisible({ timeout: 20_000 });
  // Each attempt's own output is there, one after another, and no line for the first attempt.
  await expect.poll(() => timesShown(rows, 'line 2 of 2')).toBe(3);
  expect(await timesShown(rows, 'attempt 2 of 3')).toBe(1);
  expect(await timesShown(rows, 'attempt 3 of 3')).toBe(1);
  expect(await timesShown(rows, 'attempt 1')).toBe(0);

  // Replay: reopened later, the finished run's output comes from the ledger, separators in place.
  await page.reload();
  await expect(rows).toContainText(/retry after process_exit \(exit code 2\) · attempt 3 of 3 · \d s later/);
  await expect.poll(() => timesShown(rows, 'line 2 of 2')).toBe(3);
  const replayed = await rows.innerText();
  expect(replayed.indexOf('attempt 2 of 3')).toBeGreaterThan(replayed.indexOf('line 2 of 2'));
  expect(replayed.indexOf('attempt 3 of 3')).toBeGreaterThan(replayed.indexOf('attempt 2 of 3'));
  expect(await timesShown(rows, 'attempt 2 of 3')).toBe(1);

  // Load full output clears the screen and replays everything: each separator once again.
  await terminal(page).getByRole('button', { name: 'Load full output' }).click();
  await expect(terminal(page)).toContainText('Showing the full output.');
  await expect.poll(() => timesShown(rows, 'line 2 of 2')).toBe(3);
  expect(await timesShown(rows, 'attempt 2 of 3')).toBe(1);
  expect(await timesShown(rows, 'attempt 3 of 3')).toBe(1);
});

test('a run the operator resumes after it succeeded shows a separator that says so, not a retry “after success”', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'refunds')));
  // The fixture agent standing in for Codex CLI (`exec … [resume <thread>]`): a run with a native session to resume.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('button', { name: 'New agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'New agent' });
  await dialog.getByLabel('Name').fill('Fixture Codex');
  await dialog.getByLabel('Provider').selectOption('codex');
  await dialog.getByLabel('Executable path').fill(fixtureAgent);
  await dialog.getByRole('button', { name: 'Create agent' }).click();
  await expect(page.getByRole('link', { name: 'Fixture Codex' })).toBeVisible();
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Fixture Codex');
  const rows = terminal(page).locator('.xterm-rows');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });

  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(rows).toContainText(/resumed: thread-/, { timeout: 30_000 });
  await expect(rows).toContainText(/── resumed by you · attempt 2 · (< 1|\d+) s later ──/);
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  expect(await timesShown(rows, 'after success')).toBe(0);
  expect(await timesShown(rows, 'of 3')).toBe(0);
  // The attempts list says the same, as the ledger recorded it.
  const attempts = page.getByRole('table', { name: 'Attempts' });
  await expect(attempts.getByRole('row').nth(1)).toContainText('First start');
  await expect(attempts.getByRole('row').nth(2)).toContainText('Resumed by you');

  // Replayed from the ledger after a reload: the same line, once.
  await page.reload();
  await expect(rows).toContainText(/── resumed by you · attempt 2 · (< 1|\d+) s later ──/);
  expect(await timesShown(rows, 'resumed by you')).toBe(1);
});
