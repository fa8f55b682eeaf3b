import path from 'node:path';
import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { test, expect } from '../console-test';
import { addFixtureAgent, addProject, addTask, createDailyTokenBudget, makeRepository, runTask, terminal } from './helpers';

/**
 * Budgets as an admission rule (issue 14), as an operator meets them: a token budget on an agent is
 * used up by a real run of the fixture agent (its Codex-style events report 1,234 input and 567
 * output tokens), so the next run is refused before anything starts with a "Budget reached" notice;
 * its link opens the budget with the limit focused, raising the limit resolves the notice, and Run
 * again runs the task once.
 */

/** The fixture agent's `turn.completed` usage (e2e/fixtures/fixture-agent.mjs). */
const reported = { input: 1234, output: 567 };

/** What the console recorded for a run's attempts, read from its ledger file (WAL: a reader beside the host is fine). */
function recordedUsage(dataDir: string, runId: string): { input: number; output: number } {
  const db = new Database(path.join(dataDir, 'ledger.sqlite'), { readonly: true });
  try {
    db.pragma('busy_timeout = 5000');
    const row = db.prepare('SELECT sum(input_tokens) AS input, sum(output_tokens) AS output FROM usage_records WHERE run_id = ?').get(runId) as {
      input: number | null;
      output: number | null;
    };
    return { input: row.input ?? 0, output: row.output ?? 0 };
  } finally {
    db.close();
  }
}

/** A project, a fixture agent whose runs report `reported`, and the task “Plan the refund flow”. */
async function projectWithFixtureAgent(page: Page, scratchDir: string, agent: string) {
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  await addFixtureAgent(page, agent, ['--json-events', '--lines', '2']);
  await addTask(page, 'Plan the refund flow');
}

test('a spent token budget refuses the next run with a notice whose link opens the budget; raising it resolves the notice, and Run again runs the task once', async ({
  console: app,
  scratchDir,
}) => {
  const { page, dataDir } = app;
  const nav = page.getByRole('navigation', { name: 'Main' });
  await projectWithFixtureAgent(page, scratchDir, 'Budgeted fixture');

  // From the agent's page to its budgets; New budget starts on that agent.
  await nav.getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('link', { name: 'Budgeted fixture' }).click();
  await page.getByRole('link', { name: 'Budgets', exact: true }).click();
  await expect(page.getByRole('heading', { level: 2, name: 'Budgets' })).toBeVisible();
  await expect(page.getByText('No budget for this one yet')).toBeVisible();
  await page.getByRole('button', { name: 'New budget' }).click();
  const create = page.getByRole('dialog', { name: 'New budget' });
  await expect(create.getByRole('combobox', { name: 'Agent' })).toHaveValue(/^agt_/);
  await expect(create.getByRole('combobox', { name: 'Agent' }).locator('option:checked')).toHaveText('Budgeted fixture');
  await createDailyTokenBudget(page, '1000');
  const budget = page.getByRole('listitem', { name: 'Daily token budget for the agent “Budgeted fixture”' });
  await expect(budget).toContainText('0 of 1,000 tokens used today');
  await expect(budget).toContainText('Within budget');

  // A real run, admitted while the budget is whole; what it reports uses the budget up.
  await runTask(page, 'Plan the refund flow', 'Budgeted fixture');
  await expect(terminal(page)).toContainText('line 2 of 2', { timeout: 30_000 });
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  const firstRunId = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/runs\//, ''));
  expect(recordedUsage(dataDir, firstRunId)).toEqual(reported);

  await nav.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('link', { name: 'Budgets' }).click();
  await expect(budget).toContainText('1,801 of 1,000 tokens used today');
  await expect(budget).toContainText('Reached');

  // The next run is refused before anything starts, with the notice leading.
  await runTask(page, 'Plan the refund flow', 'Budgeted fixture');
  await expect(page.getByText('Refused', { exact: true }).first()).toBeVisible();
  const notice = page.getByRole('article', { name: 'Budget reached' });
  await expect(notice).toContainText('The daily budget of 1,000 tokens for the agent “Budgeted fixture” is spent: 1,801 tokens used today.');
  await expect(notice).toContainText(/It resets at midnight \(\w{3} \d{1,2} \w{3}, 00:00\)\. Raise the budget, or wait until then\./);
  await expect(page.getByText('Nothing was started:')).toBeVisible();
  await expect(terminal(page)).toHaveCount(0);
  await expect(nav.getByRole('img', { name: '1 open notice' })).toBeVisible();
  const refusedRunUrl = page.url();

  // Its link opens that budget, in view, with the limit focused.
  await notice.getByRole('link', { name: 'Change the budget' }).click();
  await expect(page).toHaveURL(/#\/settings\/budgets\/bgt_[0-9a-f]+$/);
  const limit = budget.getByRole('textbox', { name: 'Limit (tokens)' });
  await expect(limit).toBeFocused();
  await expect(budget).toHaveAttribute('aria-current', 'true');
  await expect(budget).toBeInViewport();

  // Raised past what was used: the notice resolves itself, saying how.
  await limit.fill('5000');
  await budget.getByRole('button', { name: 'Save limit' }).click();
  await expect(budget.getByText('Saved: the limit is 5,000 tokens.')).toBeVisible();
  await expect(budget).toContainText('Within budget');
  await expect(nav.getByRole('img', { name: /open notices?$/ })).toHaveCount(0);

  await page.goto(refusedRunUrl);
  const settled = page.getByRole('article', { name: 'Budget reached' });
  await expect(settled).toContainText('Resolved');
  await expect(settled).toContainText('The daily budget for the agent “Budgeted fixture” was raised to 5,000 tokens.');
  await expect(settled.getByRole('link', { name: 'Change the budget' })).toHaveCount(0);

  // Run again, once, even when double-clicked; the new run is admitted and runs.
  await settled.getByRole('button', { name: 'Run again' }).dblclick();
  await expect(settled.getByRole('button', { name: 'Run again' })).toHaveCount(0);
  await expect(settled).not.toContainText('nothing new was started');
  await settled.getByRole('link', { name: 'Open the new run' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Plan the refund flow' })).toBeVisible();
  expect(page.url()).not.toBe(refusedRunUrl);
  await expect(terminal(page)).toContainText('line 2 of 2', { timeout: 30_000 });
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  // Three runs in all: the first, the refused one, and the one Run again started.
  const ledger = new Database(path.join(dataDir, 'ledger.sqlite'), { readonly: true });
  try {
    expect(ledger.prepare('SELECT status FROM runs ORDER BY created_at').all()).toEqual([{ status: 'succeeded' }, { status: 'refused' }, { status: 'succeeded' }]);
  } finally {
    ledger.close();
  }
});

test('a money budget on a model with no price says it cannot count the tokens a real run used, refuses the next run, and counts them once the price is set', async ({
  console: app,
  scratchDir,
}) => {
  const { page, dataDir } = app;
  const nav = page.getByRole('navigation', { name: 'Main' });
  // The Command provider's agent: its model unnamed ("default"), priced as openai's, which has no price for it.
  await projectWithFixtureAgent(page, scratchDir, 'Unpriced fixture');

  // A real run reports its tokens before any budget holds the agent.
  await runTask(page, 'Plan the refund flow', 'Unpriced fixture');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  const firstRunId = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/runs\//, ''));
  expect(recordedUsage(dataDir, firstRunId)).toEqual(reported);

  // A money budget on the agent: not "≈ $0.00 used · Within budget", but the tokens it cannot count.
  await nav.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('link', { name: 'Budgets' }).click();
  await page.getByRole('button', { name: 'New budget' }).click();
  const create = page.getByRole('dialog', { name: 'New budget' });
  await create.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Unpriced fixture' });
  await create.getByRole('radio', { name: 'Estimated money (USD)' }).check();
  await expect(create.getByText(/A model with no price cannot be counted/)).toBeVisible();
  await create.getByRole('radio', { name: 'Per day' }).check();
  await create.getByRole('textbox', { name: 'Limit (USD, estimated)' }).fill('5');
  await create.getByRole('button', { name: 'Create budget' }).click();
  await expect(create).toBeHidden();
  const budget = page.getByRole('listitem', { name: 'Daily money budget for the agent “Unpriced fixture”' });
  await expect(budget).toContainText('≈ $0.00 of ≈ $5.00 (estimated) used today + 1,801 tokens with no price');
  await expect(budget).toContainText('Cannot count');
  await expect(budget).not.toContainText('Within budget');
  await expect(budget.getByRole('note')).toContainText('The price table has no price for default (openai): 1,801 tokens used today are not counted');

  // The next run is refused before anything starts, with a notice whose link sets that model's price.
  await runTask(page, 'Plan the refund flow', 'Unpriced fixture');
  await expect(page.getByText('Refused', { exact: true }).first()).toBeVisible();
  const notice = page.getByRole('article', { name: 'Budget cannot count this run' });
  await expect(notice).toContainText('The daily money budget of ≈ $5.00 (estimated) for the agent “Unpriced fixture” cannot count this run');
  await expect(notice).toContainText('1,801 tokens have none.');
  await expect(terminal(page)).toHaveCount(0);
  const refusedRunUrl = page.url();

  await notice.getByRole('link', { name: 'Set the price' }).click();
  await expect(page).toHaveURL(/#\/settings\/prices\?provider=openai&model=default$/);
  const rows = await page.getByRole('table', { name: 'Price table' }).getByRole('row').count();
  const added = rows - 1;
  await expect(page.getByLabel(`Model (row ${added})`, { exact: true })).toHaveValue('default');
  const input = page.getByLabel(`Input price, $ per million tokens (row ${added})`, { exact: true });
  await expect(input).toBeFocused();
  await expect(input).toBeInViewport();
  await input.fill('2');
  await page.getByLabel(`Cached input price, $ per million tokens (row ${added})`, { exact: true }).fill('0.2');
  await page.getByLabel(`Output price, $ per million tokens (row ${added})`, { exact: true }).fill('20');
  await page.getByRole('button', { name: 'Save prices' }).click();
  await expect(page.getByText(/^Saved \d+ prices\. Every estimate now uses them\.$/)).toBeVisible();
  await expect(nav.getByRole('img', { name: /open notices?$/ })).toHaveCount(0);

  // Counted now: 1,234 input at $2 and 567 output at $20 per million.
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Budgets' }).click();
  await expect(budget).toContainText('≈ $0.01 of ≈ $5.00 (estimated) used today');
  await expect(budget).toContainText('Within budget');
  await expect(budget.getByRole('note')).toHaveCount(0);
  await page.goto(refusedRunUrl);
  const settled = page.getByRole('article', { name: 'Budget cannot count this run' });
  await expect(settled).toContainText('default (openai) has a price now: the money budget counts its runs.');
  await expect(settled.getByRole('button', { name: 'Run again' })).toBeVisible();
});
