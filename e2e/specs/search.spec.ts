import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { test, expect } from '../console-test';
import { startBrowserHost } from '../launchers/browser-host';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask, terminal } from './helpers';

const paletteKeys = process.platform === 'darwin' ? 'Meta+K' : 'Control+K';

// A long build log with one line that matters, far from both ends: 20,000 lines before it, and more
// after it than the tail a reopened run loads first (256 KiB). On screen the word reads
// "quokkaphrase"; in the bytes a colour change splits it in two.
const longLog = [
  'for i in $(seq 1 20000); do echo "filler line $i of the build log"; done',
  "printf 'deploy step: quok\\033[1mkaphrase\\033[0m rejected by the vault\\n'",
  'for i in $(seq 1 24000); do echo "tail line $i of the build log"; done',
].join('; ');

test('search from the palette finds what a run printed, and opens its terminal at that moment with the match highlighted', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'vault')));
  await addFixtureAgent(page, 'Fixture long log', ['--shell', longLog]);
  await addTask(page, 'Deploy the vault');
  await runTask(page, 'Deploy the vault', 'Fixture long log');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 60_000 });
  await expect(terminal(page)).toContainText('tail line 24000 of the build log');

  // The palette offers to search the output for what is typed.
  await page.keyboard.press(paletteKeys);
  const palette = page.getByRole('dialog', { name: 'Command palette' });
  await palette.getByRole('combobox').fill('quokkaphrase');
  const searchOutput = palette.getByRole('option', { name: 'Search output…', exact: true });
  await expect(searchOutput).toHaveAccessibleDescription('for “quokkaphrase”');
  await searchOutput.click();

  // The Search page, its field focused with the text in it; the result names the run and marks the word.
  await expect(page.getByRole('heading', { level: 1, name: 'Search' })).toBeVisible();
  const field = page.getByRole('searchbox', { name: 'Search output' });
  await expect(field).toHaveValue('quokkaphrase');
  await expect(field).toBeFocused();
  const results = page.getByRole('list', { name: 'Search results' });
  const result = results.getByRole('link', { name: /Deploy the vault — Fixture long log/ });
  await expect(result).toHaveCount(1);
  await expect(result.locator('mark')).toHaveText('quokkaphrase');
  await expect(result).toContainText('rejected by the vault');

  // Keyboard first: down to the result, Enter opens it.
  await field.press('ArrowDown');
  await expect(result).toBeFocused();
  await page.keyboard.press('Enter');

  // The run's terminal shows the page of output holding the line, not the live tail, and finds the word there.
  await expect(page.getByRole('heading', { level: 1, name: 'Deploy the vault' })).toBeVisible();
  const output = terminal(page);
  const rows = output.locator('.xterm-rows');
  await expect(output).toContainText(/Showing [\d.]+ [KMG]?B to [\d.]+ [KMG]?B of [\d.]+ [KMG]?B of output, not following live\./);
  await expect(rows).toContainText('deploy step: quokkaphrase rejected by the vault');
  await expect(rows).not.toContainText('filler line 20000 of the build log');
  await expect(output.getByLabel('Find in output')).toHaveValue('quokkaphrase');
  await expect(output.getByRole('search')).toContainText('1 of 1');

  // Highlighted where it is: the active match's decoration sits on the row that holds the word.
  const line = rows.locator('div', { hasText: 'quokkaphrase' }).first();
  const decoration = output.locator('.xterm-decoration-container .xterm-decoration').first();
  await expect(decoration).toBeVisible();
  // Asked again until both are laid out: the terminal's renderer replaces its row elements as it
  // redraws, so one read can find the row between two of them (no box).
  await expect
    .poll(async () => {
      const [lineBox, markBox] = [await line.boundingBox(), await decoration.boundingBox()];
      return lineBox && markBox ? Math.abs(lineBox.y - markBox.y) < lineBox.height : 'not laid out';
    })
    .toBe(true);

  // And back to live output from there.
  await output.getByRole('button', { name: 'Back to live output' }).click();
  await expect(rows).toContainText('tail line 24000 of the build log');
  await expect(output).not.toContainText('not following live');
});

test('a query with only punctuation says what to type instead, and an unbalanced quote still searches', async ({ console: app }) => {
  const { page } = app;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click();
  const field = page.getByRole('searchbox', { name: 'Search output' });
  await expect(field).toBeFocused();
  await field.fill('-- !!');
  await expect(page.getByRole('alert')).toContainText('type a word or a number');
  await field.fill('"unbalanced quote');
  await expect(page.getByRole('status').filter({ hasText: 'Nothing found' })).toContainText('Nothing found for “"unbalanced quote”.');
});

test('a console started on a ledger whose search index is damaged rebuilds it, showing how far it has got, then finds the output again', async ({ browser, scratchDir }) => {
  // The first console stores a run's 24 MB of output (and its index).
  const dataDir = path.join(scratchDir, 'data');
  mkdirSync(dataDir);
  const first = await startBrowserHost({ dataDir });
  const firstContext = await browser.newContext();
  const firstPage = await firstContext.newPage();
  await firstPage.goto(first.url);
  await addProject(firstPage, makeRepository(path.join(scratchDir, 'repo')));
  await addFixtureAgent(firstPage, 'Fixture flood', ['--flood-bytes', '24000000']);
  await addTask(firstPage, 'Print a lot');
  await runTask(firstPage, 'Print a lot', 'Fixture flood');
  await expect(firstPage.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 60_000 });
  await firstContext.close();
  expect(await first.stop()).toBe(0);

  // The index is damaged (its FTS pages gone, as a bad sector would leave them); the output is not.
  const ledger = new Database(path.join(dataDir, 'ledger.sqlite'));
  ledger.unsafeMode(true);
  ledger.exec('DELETE FROM search_text_data WHERE id > 1');
  ledger.close();

  const second = await startBrowserHost({ dataDir });
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(second.url);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click();
    await page.getByRole('searchbox', { name: 'Search output' }).fill('sha256');
    // The search finds the damage and has the index rebuilt: a bar, how much is indexed and how much is
    // left, and that results may miss some meanwhile.
    const progress = page.getByRole('progressbar', { name: /Rebuilding the search index/ });
    await expect(progress).toBeVisible();
    const status = page.getByRole('status').filter({ has: progress });
    await expect(status).toContainText(/[\d.]+ [KMG]?B indexed, [\d.]+ [KMG]?B to go\. Results may miss some output until it is done/);
    // Then complete: the bar is gone, and the run's output is found again, by itself.
    await expect(progress).toHaveCount(0, { timeout: 90_000 });
    const result = page.getByRole('list', { name: 'Search results' }).getByRole('link', { name: /Print a lot — Fixture flood/ });
    await expect(result).toHaveCount(1);
    await expect(result).toContainText(/flood-end bytes=\d+ lines=\d+ sha256/);
    await expect(page.getByText('Results may miss some output')).toHaveCount(0);
  } finally {
    await context.close();
    await second.stop();
  }
});
