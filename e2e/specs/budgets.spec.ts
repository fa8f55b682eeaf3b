import path from 'node:path';
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

test('a spent token budget refuses the next run with a notice whose link opens the budget; raising it resolves the notice, and Run again runs the task once', async ({
  console: app,
  scratchDir,
}) => {
  const { page, dataDir } = app;
  const nav = page.getByRole('navigation', { name: 'Main' });
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  await addFixtureAgent(page, 'Budgeted fixture', ['--json-events', '--lines', '2']);
  await addTask(page, 'Plan the refund flow');

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
