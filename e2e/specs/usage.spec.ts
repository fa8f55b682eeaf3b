import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from '../console-test';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask } from './helpers';

/**
 * Usage and its cost estimates as an operator meets them, from real runs: the fixture agent prints
 * Codex-style JSON whose `turn.completed` reports 1,234 input and 567 output tokens, which the
 * console records for the attempt. The Command provider's agent runs on the operator's own login
 * (no connection), its model unnamed ("default"), priced as the CLI's first provider (openai),
 * for which the shipped table has no price, until the operator adds one.
 */

/** Today in this machine's time zone, which the console (started here) shares. */
function today(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 1;
    } else field += char;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records;
}

async function runToSuccess(page: Page, title: string, agent: string) {
  await addTask(page, title);
  await runTask(page, title, agent);
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 20_000 });
}

async function openUsage(page: Page) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Usage' })).toBeVisible();
}

test('runs’ usage shows as today’s bar and in the table, exports as CSV, and a price edited in Settings changes the estimate', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'refunds')));
  await addFixtureAgent(page, 'Fixture coder', ['--json-events']);
  await runToSuccess(page, 'Plan the refund flow', 'Fixture coder');

  // The run's own Usage panel: what its one attempt used, and why there is no money yet.
  const panel = page.getByRole('region', { name: 'Usage' });
  const attempts = panel.getByRole('table', { name: 'Usage per attempt' });
  await expect(attempts.getByRole('row').nth(1).locator('th, td')).toHaveText(['1', '1,234', '0', '567', '0', '1', 'No price for default (openai): 1,801 tokens']);
  await expect(panel.getByRole('list', { name: 'How this usage was counted' })).toContainText('a resumed attempt counts only what it added');

  await runToSuccess(page, 'Fix the invoice rounding', 'Fixture coder');
  await openUsage(page);
  const day = today();

  // The chart: a bar for today (and for no other day), stacked by agent, its numbers for screen readers too.
  const chart = page.getByRole('figure', { name: 'Tokens by day, stacked by agent' });
  await expect(chart.getByRole('img', { name: 'Tokens by day, stacked by agent' })).toBeVisible();
  const todaysBar = chart.locator(`g[data-day="${day}"][data-series="Fixture coder"] path`);
  await expect(todaysBar).toHaveCount(1);
  const box = await todaysBar.boundingBox();
  expect(box?.height ?? 0).toBeGreaterThan(10);
  await expect(chart.locator('g[data-day] path')).toHaveCount(1);
  const numbers = chart.getByRole('table', { name: 'Tokens by day, stacked by agent' });
  await expect(numbers.getByRole('row').last()).toContainText('3,602 tokens');

  // The totals and the table: both runs, each with its tokens; no price for the fixture's model yet.
  await expect(page.getByRole('region', { name: 'Totals' })).toContainText('3,602');
  const table = page.getByRole('table', { name: 'Attempts' });
  const rows = table.getByRole('row');
  await expect(rows).toHaveCount(3);
  await expect(table.getByRole('link', { name: 'Plan the refund flow' })).toBeVisible();
  await expect(table.getByRole('link', { name: 'Fix the invoice rounding' })).toBeVisible();
  for (const row of await rows.all().then((all) => all.slice(1))) {
    await expect(row.getByRole('cell')).toHaveText([
      /.+/,
      '1',
      'refunds',
      'Fixture coder',
      'Own login (no connection)',
      'default',
      'Own login',
      '1,234',
      '0',
      '567',
      '0',
      'No price for default (openai): 1,801 tokens',
    ]);
  }
  await expect(page.getByText('The table has no price for default (openai): their 3,602 tokens are not in the estimates.')).toBeVisible();

  // Export CSV: a file named for the range whose rows are the table's.
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const download = await downloading;
  const from = await page.getByLabel('From', { exact: true }).inputValue();
  expect(download.suggestedFilename()).toBe(`usage-${from}-to-${day}.csv`);
  const csv = parseCsv((await readFile(await download.path(), 'utf8')).replace(/^\uFEFF/, ''));
  expect(csv[0]).toEqual([
    'Day',
    'Run',
    'Attempt',
    'Task',
    'Project',
    'Agent',
    'Connection',
    'Provider',
    'Model',
    'Billing',
    'Input tokens',
    'Cached input tokens',
    'Output tokens',
    'Reasoning tokens',
    'Estimated cost (USD, estimate)',
    'Cost note',
  ]);
  expect(csv.slice(1).map((record) => [record[0], record[3], record.slice(4).join('|')]).sort()).toEqual(
    [
      [day, 'Fix the invoice rounding', 'refunds|Fixture coder|Own login (no connection)|command|default|Own login|1234|0|567|0||No price for default (openai)'],
      [day, 'Plan the refund flow', 'refunds|Fixture coder|Own login (no connection)|command|default|Own login|1234|0|567|0||No price for default (openai)'],
    ].sort(),
  );
  // Each record names its run: the table's links lead to the same runs.
  const runIds = csv.slice(1).map((record) => record[1]);
  for (const link of await table.getByRole('link', { name: /Plan the refund flow|Fix the invoice rounding/ }).all()) {
    expect(runIds).toContain((await link.getAttribute('href'))!.replace('#/runs/', ''));
  }

  // Settings → Prices: the operator adds a price for the model, and the estimate appears.
  await page.getByRole('link', { name: 'Add their prices in Settings → Prices' }).click();
  await expect(page.getByRole('heading', { name: 'Prices', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Add price' }).click();
  const rowCount = await page.getByRole('table', { name: 'Price table' }).getByRole('row').count();
  const added = rowCount - 1;
  await expect(page.getByLabel(`Provider (row ${added})`, { exact: true })).toBeFocused();
  await page.getByLabel(`Provider (row ${added})`, { exact: true }).fill('openai');
  await page.getByLabel(`Model (row ${added})`, { exact: true }).fill('default');
  await page.getByLabel(`Input price, $ per million tokens (row ${added})`, { exact: true }).fill('2');
  // A price is a number: the field says so, and nothing is saved.
  await page.getByLabel(`Cached input price, $ per million tokens (row ${added})`, { exact: true }).fill('free');
  await page.getByLabel(`Output price, $ per million tokens (row ${added})`, { exact: true }).fill('20');
  await page.getByRole('button', { name: 'Save prices' }).click();
  const cached = page.getByLabel(`Cached input price, $ per million tokens (row ${added})`, { exact: true });
  await expect(cached).toHaveAttribute('aria-invalid', 'true');
  await expect(cached).toHaveAccessibleDescription('Enter a number of dollars, such as 1.25.');
  await cached.fill('0.2');
  await page.getByRole('button', { name: 'Save prices' }).click();
  await expect(page.getByText(/^Saved \d+ prices\. Every estimate now uses them\.$/)).toBeVisible();

  // 1,234 input at $2 and 567 output at $20 per million: $0.0138 a run, $0.0276 for both.
  await openUsage(page);
  await expect(table.getByRole('row').nth(1).getByRole('cell').last()).toHaveText('≈ $0.01 est.');
  await expect(page.getByRole('region', { name: 'Totals' })).toContainText('≈ $0.03 est.');
  await expect(page.getByText(/The table has no price for/)).toHaveCount(0);
  const pricedTasks = page.getByRole('list', { name: 'Top tasks by estimated cost' }).getByRole('listitem');
  await expect(pricedTasks).toHaveCount(2);
  await expect(pricedTasks.first()).toContainText('≈ $0.01 est. · 1,801 tokens');

  // The operator edits the output price tenfold: every estimate follows.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Prices' }).click();
  const output = page.getByLabel(`Output price, $ per million tokens (row ${added})`, { exact: true });
  await expect(output).toHaveValue('20');
  await output.fill('200');
  await page.getByRole('button', { name: 'Save prices' }).click();
  await expect(page.getByText(/^Saved \d+ prices\./)).toBeVisible();
  await openUsage(page);
  // $0.002468 + 567 × $200 per million = $0.1159 a run.
  await expect(table.getByRole('row').nth(1).getByRole('cell').last()).toHaveText('≈ $0.12 est.');
  await expect(page.getByRole('region', { name: 'Totals' })).toContainText('≈ $0.23 est.');
  // The chart in estimated cost has today's bar too.
  await page.getByLabel('Chart', { exact: true }).selectOption('Estimated cost');
  const costChart = page.getByRole('figure', { name: /^Estimated cost by day, stacked by agent/ });
  await expect(costChart.locator(`g[data-day="${day}"] path`)).toHaveCount(1);
  await expect(costChart.getByRole('table').getByRole('row').last()).toContainText('≈ $0.23 est.');

  // And the run's panel, priced now.
  await table.getByRole('link', { name: 'Plan the refund flow' }).click();
  await expect(page.getByRole('region', { name: 'Usage' }).getByRole('table', { name: 'Usage per attempt' }).getByRole('row').last()).toContainText('≈ $0.12 est.');
});

test('the Usage page stacks by connection and says when a range had no usage', async ({ console: app, scratchDir }) => {
  const { page } = app;
  await addProject(page, makeRepository(path.join(scratchDir, 'refunds')));
  await addFixtureAgent(page, 'Fixture coder', ['--json-events']);
  await runToSuccess(page, 'Plan the refund flow', 'Fixture coder');
  await openUsage(page);

  await page.getByLabel('Group by', { exact: true }).selectOption('Connection');
  const chart = page.getByRole('figure', { name: 'Tokens by day, stacked by AI connection' });
  await expect(chart.locator(`g[data-day="${today()}"][data-series="Own login (no connection)"] path`)).toHaveCount(1);
  await expect(page).toHaveURL(/group=connection/);

  // A range before any run: nothing to show, nothing to export.
  await page.getByLabel('From', { exact: true }).fill('2020-01-01');
  await page.getByLabel('To', { exact: true }).fill('2020-01-31');
  await expect(page.getByText('No usage in these days')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Export CSV' })).toHaveCount(0);
  // A range that ends before it starts is refused where it is typed.
  await page.getByLabel('From', { exact: true }).fill('2020-02-15');
  await expect(page.getByRole('alert')).toHaveText('The first day must not be after the last.');

  // A preset brings today back, and the address keeps the view across a reload.
  await page.getByRole('button', { name: 'This month' }).click();
  await expect(page.getByRole('button', { name: 'This month' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('table', { name: 'Attempts' }).getByRole('row')).toHaveCount(2);
  await page.reload();
  await expect(page.getByRole('figure', { name: 'Tokens by day, stacked by AI connection' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'This month' })).toHaveAttribute('aria-pressed', 'true');
});
