import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from '../console-test';
import { addFixtureAgent, addProject, addTask, makeRepository, runTask, runTaskOnAgents } from './helpers';

/**
 * Landing the work (issue 13) as an operator does it, with real git on both sides: a task run on two
 * agents, compared and one of them landed by squash while the other is discarded; and a run's work
 * committed and pushed to a local bare repository standing in for the project's remote.
 */

/** Git in the project folder (or any folder), as the operator would run it there; its output trimmed. */
function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

/** The fixture agent that writes `notes/plan.md` with `words` (one line) and leaves it uncommitted. */
function planWriter(words: string): string[] {
  return ['--json-events', '--write-file', 'notes/plan.md', '--file-content', `${words}\\n`];
}

/** An agent that writes `file` with `words` (one line) and commits it on the run's branch itself, as a git-savvy agent does. */
function committingWriter(file: string, words: string, subject: string): string[] {
  return [
    '--json-events',
    '--write-file',
    file,
    '--file-content',
    `${words}\\n`,
    '--shell',
    `git add -A && git -c user.name=Agent -c user.email=agent@example.invalid commit -qm "${subject}"`,
  ];
}

/** A row of the Compare table, found by the run's name (its agent). */
function compareRow(page: Page, table: ReturnType<Page['getByRole']>, name: string) {
  return table.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
}

// The cells after the row header, in the table's order: Compare, then Status … Landing, Actions.
const cell = { status: 1, files: 5, lines: 6, landing: 7 } as const;

test('an operator runs a task on two agents, compares them, lands one by squash and discards the other', async ({ console: app, scratchDir }) => {
  const { page } = app;
  const project = makeRepository(path.join(scratchDir, 'refunds'));
  const initial = gitIn(project, 'rev-parse', 'main');
  const adaWords = 'Ada: refund in one step, from the ledger.';
  const boWords = 'Bo: refund in two steps, by hand.';
  await addProject(page, project);
  await addFixtureAgent(page, 'Fixture Ada', planWriter(adaWords));
  await addFixtureAgent(page, 'Fixture Bo', planWriter(boWords));
  await addTask(page, 'Plan the refund flow');
  await runTaskOnAgents(page, 'Plan the refund flow', ['Fixture Ada', 'Fixture Bo']);

  // Compare: both runs, each with one file changed and one line added.
  const table = page.getByRole('table', { name: 'Runs of Plan the refund flow, side by side' });
  const ada = compareRow(page, table, 'Fixture Ada');
  const bo = compareRow(page, table, 'Fixture Bo');
  for (const row of [ada, bo]) {
    await expect(row.getByRole('cell').nth(cell.status)).toHaveText('Succeeded', { timeout: 20_000 });
    await expect(row.getByRole('cell').nth(cell.files)).toHaveText('1');
    await expect(row.getByRole('cell').nth(cell.lines)).toContainText('1 line added, 0 removed');
    await expect(row.getByRole('cell').nth(cell.landing)).toHaveText('Not landed');
  }

  // Both picked: their diffs side by side, each with its own words only.
  await table.getByRole('checkbox', { name: 'Compare Fixture Ada' }).check();
  await table.getByRole('checkbox', { name: 'Compare Fixture Bo' }).check();
  const adaChanges = page.getByRole('region', { name: 'Changes of Fixture Ada' });
  const boChanges = page.getByRole('region', { name: 'Changes of Fixture Bo' });
  await expect(adaChanges).toContainText('notes/plan.md');
  await expect(adaChanges).toContainText(adaWords);
  await expect(adaChanges).not.toContainText(boWords);
  await expect(boChanges).toContainText(boWords);
  await expect(boChanges).not.toContainText(adaWords);

  // Land this one: Ada's, by squash, with the operator's message; Bo's run discarded in the same step.
  await ada.getByRole('button', { name: 'Land Fixture Ada' }).click();
  const dialog = page.getByRole('dialog', { name: 'Land Fixture Ada’s run' });
  // The agent did not commit: Land commits its file first, with the proposed message.
  await expect(dialog).toContainText('1 uncommitted file will be committed first');
  await expect(dialog.getByRole('textbox', { name: 'Commit message' })).toHaveValue(/^Plan the refund flow/);
  await dialog.getByRole('radio', { name: 'Squash' }).check();
  const message = dialog.getByRole('textbox', { name: 'Squash commit message' });
  await expect(message).toHaveValue(/^Plan the refund flow/);
  await message.fill('Refund plan: one step, from the ledger');
  await expect(dialog.getByRole('checkbox', { name: 'Discard Fixture Bo' })).toBeChecked();
  await dialog.getByRole('button', { name: 'Land and discard 1 other' }).click();
  await expect(dialog).toBeHidden({ timeout: 20_000 });

  await expect(page.getByText('Landed Fixture Ada’s run in main (squash). Your working copy was updated. Discarded 1 other run.')).toBeVisible();
  await expect(ada.getByRole('cell').nth(cell.landing)).toHaveText('Landed → main');
  // Discarding removes the run's files, and the badge says so too.
  await expect(bo.getByRole('cell').nth(cell.landing)).toHaveText(/^Discarded/);
  await expect(bo.getByRole('cell').nth(cell.landing)).toContainText('Files removed');
  await expect(table.getByRole('button', { name: /^Land / })).toHaveCount(0);

  // On disk: main moved by one commit, the squash with the operator's message and author, holding
  // Ada's words; main is checked out and was clean, so the operator's checkout has them too.
  expect(gitIn(project, 'rev-list', '--count', `${initial}..main`)).toBe('1');
  expect(gitIn(project, 'rev-parse', 'main^')).toBe(initial);
  expect(gitIn(project, 'log', '-1', '--format=%B', 'main')).toBe('Refund plan: one step, from the ledger');
  expect(gitIn(project, 'log', '-1', '--format=%an <%ae>', 'main')).toBe('E2E Operator <e2e@example.invalid>');
  expect(gitIn(project, 'show', 'main:notes/plan.md')).toBe(adaWords);
  expect(readFileSync(path.join(project, 'notes', 'plan.md'), 'utf8')).toBe(`${adaWords}\n`);
  expect(gitIn(project, 'status', '--porcelain')).toBe('');
});

test('an operator commits a run’s work and pushes its branch to the project’s remote, and is shown where to compare it', async ({ console: app, scratchDir }) => {
  const { page } = app;
  const project = makeRepository(path.join(scratchDir, 'refunds'));
  // A local bare repository stands in for GitHub: fetched from github.com, pushed to the bare one,
  // so the compare address is GitHub's and the push really happens.
  const remote = path.join(scratchDir, 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', remote]);
  gitIn(project, 'remote', 'add', 'origin', 'https://github.com/acme/refunds.git');
  gitIn(project, 'remote', 'set-url', '--push', 'origin', remote);
  gitIn(project, 'push', '-q', 'origin', 'main');

  const words = 'Refunds go back to the card they came from.';
  await addProject(page, project);
  await addFixtureAgent(page, 'Fixture writer', planWriter(words));
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Fixture writer');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 20_000 });

  const landing = page.getByRole('region', { name: 'Changes' }).getByRole('group', { name: 'Landing' });
  const holdings = landing.getByRole('list', { name: 'What the run holds' });
  await expect(holdings).toContainText('1 uncommitted file');
  await expect(holdings).toContainText('0 commits not landed');

  // Commit…: the message proposed from the task, edited, with the operator's identity as author.
  await landing.getByRole('button', { name: 'Commit…' }).click();
  const commitDialog = page.getByRole('dialog', { name: 'Commit the run’s changes' });
  await expect(commitDialog).toContainText('notes/plan.md');
  const commitMessage = commitDialog.getByRole('textbox', { name: 'Commit message' });
  await expect(commitMessage).toHaveValue(/^Plan the refund flow/);
  await commitMessage.fill('Plan the refund flow: back to the card');
  await commitDialog.getByRole('button', { name: 'Commit' }).click();
  await expect(commitDialog).toBeHidden();
  await expect(landing).toContainText(/Committed 1 file as [0-9a-f]{7}\./);
  await expect(holdings).toContainText('0 uncommitted files');
  await expect(holdings).toContainText('1 commit not landed');

  // Push branch: the run's branch reaches the remote, and GitHub's compare address is shown.
  await landing.getByRole('button', { name: 'Push branch' }).click();
  await expect(landing).toContainText(/Pushed \S+ to origin on /, { timeout: 20_000 });
  const pushed = gitIn(remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/')
    .split('\n')
    .filter((branch) => branch !== 'main');
  expect(pushed).toHaveLength(1);
  const branch = pushed[0]!;
  await expect(landing).toContainText(`Pushed ${branch} to origin`);
  const compare = landing.getByRole('link', { name: 'Compare on the forge' });
  await expect(compare).toHaveAttribute('href', `https://github.com/acme/refunds/compare/main...${encodeURI(branch)}?expand=1`);

  // In the remote: the operator's commit on top of main, with the agent's words.
  expect(gitIn(remote, 'log', '-1', '--format=%B', branch)).toBe('Plan the refund flow: back to the card');
  expect(gitIn(remote, 'log', '-1', '--format=%an <%ae>', branch)).toBe('E2E Operator <e2e@example.invalid>');
  expect(gitIn(remote, 'rev-parse', `${branch}^`)).toBe(gitIn(project, 'rev-parse', 'main'));
  expect(gitIn(remote, 'show', `${branch}:notes/plan.md`)).toBe(words);
  // Pushing moved nothing of the operator's own.
  expect(gitIn(project, 'rev-list', '--count', 'main')).toBe('1');
});

test('a double click on Land in Compare lands the run once: one squash commit on the branch', async ({ console: app, scratchDir }) => {
  const { page } = app;
  const project = makeRepository(path.join(scratchDir, 'refunds'));
  const initial = gitIn(project, 'rev-parse', 'main');
  await addProject(page, project);
  await addFixtureAgent(page, 'Fixture Ada', committingWriter('notes/plan.md', 'Ada: refund in one step.', 'Plan by Ada'));
  await addFixtureAgent(page, 'Fixture Bo', committingWriter('notes/plan.md', 'Bo: refund in two steps.', 'Plan by Bo'));
  await addTask(page, 'Plan the refund flow');
  await runTaskOnAgents(page, 'Plan the refund flow', ['Fixture Ada', 'Fixture Bo']);

  const table = page.getByRole('table', { name: 'Runs of Plan the refund flow, side by side' });
  const ada = compareRow(page, table, 'Fixture Ada');
  for (const row of [ada, compareRow(page, table, 'Fixture Bo')]) {
    await expect(row.getByRole('cell').nth(cell.status)).toHaveText('Succeeded', { timeout: 20_000 });
  }
  await ada.getByRole('button', { name: 'Land Fixture Ada' }).click();
  const dialog = page.getByRole('dialog', { name: 'Land Fixture Ada’s run' });
  // The agent committed its work itself: nothing to commit first, one commit lands.
  await expect(dialog).toContainText('1 commit land cleanly in main');
  await dialog.getByRole('radio', { name: 'Squash' }).check();
  await dialog.getByRole('textbox', { name: 'Squash commit message' }).fill('Refund plan, squashed once');
  await dialog.getByRole('button', { name: 'Land and discard 1 other' }).dblclick();
  await expect(dialog).toBeHidden({ timeout: 20_000 });
  await expect(page.getByText('Landed Fixture Ada’s run in main (squash). Your working copy was updated. Discarded 1 other run.')).toBeVisible();

  // On disk: one squash commit on main, not a second (empty) one with the same message.
  expect(gitIn(project, 'rev-list', '--count', `${initial}..main`)).toBe('1');
  expect(gitIn(project, 'log', '-1', '--format=%B', 'main')).toBe('Refund plan, squashed once');
  expect(gitIn(project, 'show', 'main:notes/plan.md')).toBe('Ada: refund in one step.');
});

test('a conflict the run’s Changes find is a notice at once, and it resolves when main no longer conflicts', async ({ console: app, scratchDir }) => {
  const { page } = app;
  const nav = page.getByRole('navigation', { name: 'Main' });
  const project = makeRepository(path.join(scratchDir, 'checkout'));
  await addProject(page, project);
  await addFixtureAgent(page, 'Fixture writer', committingWriter('README.md', '# checkout service, as the agent wrote it', 'Agent README'));
  await addTask(page, 'Rewrite the README');
  await runTask(page, 'Rewrite the README', 'Fixture writer');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 20_000 });
  await expect(nav.getByRole('img', { name: /open notices?$/ })).toHaveCount(0);

  // Meanwhile the operator changed the same line on main; the run's Changes are looked at again.
  writeFileSync(path.join(project, 'README.md'), '# checkout service, as the operator wrote it\n');
  gitIn(project, 'commit', '-qam', 'Operator README');
  const changes = page.getByRole('region', { name: 'Changes' });
  await changes.getByRole('button', { name: 'Refresh changes' }).click();
  await expect(changes.getByRole('region', { name: 'Run conflicts with main' })).toBeVisible();
  // No Land was tried: the dry run alone told the Notices.
  await expect(nav.getByRole('img', { name: '1 open notice' })).toBeVisible();
  await nav.getByRole('link', { name: /^Notices/ }).click();
  const notice = page.getByRole('article', { name: 'Run conflicts with main' });
  await expect(notice).toContainText('“Rewrite the README” cannot land in main: both changed README.md.');
  await expect(notice.getByRole('link', { name: 'Ask the agent to resolve' })).toBeVisible();

  // The operator takes their change back: the next look at the run's Changes resolves the notice.
  gitIn(project, 'revert', '--no-edit', 'HEAD');
  await notice.getByRole('link', { name: 'Ask the agent to resolve' }).click();
  await expect(page.getByRole('region', { name: 'Changes' }).getByRole('region', { name: 'Run conflicts with main' })).toHaveCount(0);
  await expect(nav.getByRole('img', { name: /open notices?$/ })).toHaveCount(0);
  expect(gitIn(project, 'log', '-1', '--format=%s', 'main')).toMatch(/^Revert "Operator README"/);
});
