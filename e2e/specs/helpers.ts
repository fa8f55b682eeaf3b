import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect } from '../console-test';

/** Steps an operator takes to get to a run, shared by the specs that need one. */

export const fixtureAgent = path.resolve(import.meta.dirname, '..', 'fixtures', 'fixture-agent.mjs');

/**
 * A git repository for the project, as an operator's would be: with the operator's git identity in
 * its config, which Commit and Land take as the author.
 */
export function makeRepository(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'E2E Operator');
  git('config', 'user.email', 'e2e@example.invalid');
  writeFileSync(path.join(dir, 'README.md'), '# checkout service\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

export async function addProject(page: Page, dir: string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('link', { name: 'Projects' }).click();
  await page.getByLabel('Project folder').fill(dir);
  await page.getByRole('button', { name: 'Add project' }).click();
  await expect(page.getByRole('list', { name: 'Projects' }).getByText(path.basename(dir), { exact: true })).toBeVisible();
}

/** An agent whose CLI is the fixture agent (or `executablePath`, a missing one, say), through the command provider. */
export async function addFixtureAgent(page: Page, name: string, args: string[], { executablePath = fixtureAgent }: { executablePath?: string } = {}) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('button', { name: 'New agent' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Provider').selectOption({ label: 'Command' });
  await page.getByLabel('Profile').selectOption('program-codex-json');
  await page.getByLabel('Executable path').fill(executablePath);
  await page.getByLabel('Arguments').fill(args.join('\n'));
  await page.getByRole('button', { name: 'Create agent' }).click();
  await expect(page.getByRole('link', { name })).toBeVisible();
}

/**
 * An agent whose CLI is the fixture agent, in the Sandboxed environment (or the sandboxed one named
 * `environment`) with an isolated home (or `homeMode`), and the AI connection named `connection`
 * (none when it is not given).
 */
export async function addSandboxedFixtureAgent(
  page: Page,
  name: string,
  args: string[],
  { connection, homeMode, environment: environmentName = 'Sandboxed' }: { connection?: string; homeMode?: 'preconfigured'; environment?: string } = {},
) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('button', { name: 'New agent' }).click();
  const dialog = page.getByRole('dialog', { name: 'New agent' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Provider').selectOption({ label: 'Command' });
  await dialog.getByLabel('Profile').selectOption('program-codex-json');
  const environment = dialog.getByLabel('Environment');
  const sandboxed = await environment.locator('option', { hasText: new RegExp(`^${environmentName}`) }).getAttribute('value');
  await environment.selectOption(sandboxed);
  // A sandboxed environment brings an isolated home with it.
  await expect(dialog.getByLabel('Home mode')).toHaveValue('isolated');
  if (homeMode) await dialog.getByLabel('Home mode').selectOption(homeMode);
  if (connection) {
    const picker = dialog.getByRole('combobox', { name: 'AI connection' });
    await picker.selectOption(await picker.locator('option', { hasText: new RegExp(`^${connection}`) }).getAttribute('value'));
  }
  await dialog.getByLabel('Executable path').fill(fixtureAgent);
  await dialog.getByLabel('Arguments').fill(args.join('\n'));
  await dialog.getByRole('button', { name: 'Create agent' }).click();
  await expect(page.getByRole('link', { name })).toBeVisible();
}

/** An AI connection every agent may use: a custom OpenAI-compatible provider at `baseUrl`. */
export async function addAiConnection(page: Page, name: string, { baseUrl, apiKey }: { baseUrl: string; apiKey: string }) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('link', { name: 'AI connections' }).click();
  await page.getByRole('button', { name: 'New connection' }).click();
  const connection = page.getByRole('dialog', { name: 'New AI connection' });
  await connection.getByLabel('Name').fill(name);
  await connection.getByLabel('Provider').selectOption({ label: 'Custom (OpenAI-compatible)' });
  await connection.getByLabel('API key').fill(apiKey);
  await connection.getByLabel('Base URL').fill(baseUrl);
  await connection.getByRole('radio', { name: 'All agents' }).check();
  await connection.getByRole('button', { name: 'Create connection' }).click();
  await expect(connection).toBeHidden();
}

/** In the open New budget dialog (which starts on the agent it was opened from): a daily token limit, created. */
export async function createDailyTokenBudget(page: Page, limit: string) {
  const create = page.getByRole('dialog', { name: 'New budget' });
  await create.getByRole('radio', { name: 'Tokens' }).check();
  await create.getByRole('radio', { name: 'Per day' }).check();
  await create.getByRole('textbox', { name: 'Limit (tokens)' }).fill(limit);
  await create.getByRole('button', { name: 'Create budget' }).click();
  await expect(create).toBeHidden();
}

export async function addTask(page: Page, title: string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
  await page.getByRole('button', { name: 'New task' }).click();
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Prompt').fill('Write notes/plan.md with the plan for the refund flow.');
  await page.getByRole('button', { name: 'Create task' }).click();
  await expect(page.getByText(title, { exact: true })).toBeVisible();
}

/** Opens the task's Run dialog and ticks exactly `agents` (the dialog ticks the last agent used). */
async function tickAgents(page: Page, title: string, agents: [string, ...string[]]) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
  await page.getByRole('button', { name: `Run ${title}` }).click();
  const list = page.getByRole('dialog', { name: `Run ${title}` }).getByRole('list', { name: 'Agents to run the task on' });
  await list.getByRole('checkbox', { name: agents[0], exact: true }).waitFor();
  for (const box of await list.getByRole('checkbox').all()) await box.setChecked(false);
  for (const agent of agents) await list.getByRole('checkbox', { name: agent, exact: true }).check();
}

export async function runTask(page: Page, title: string, agent: string) {
  await tickAgents(page, title, [agent]);
  await page.getByRole('button', { name: 'Start run' }).click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
}

/** Runs the task on several agents at once: the console opens the task's Compare page. */
export async function runTaskOnAgents(page: Page, title: string, agents: [string, string, ...string[]]) {
  await tickAgents(page, title, agents);
  await page.getByRole('button', { name: `Start ${agents.length} runs` }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Compare runs' })).toBeVisible();
}

export const terminal = (page: Page) => page.getByRole('group', { name: 'Run output' }).or(page.getByRole('region', { name: 'Run output' }));

/** From the Notices page, as an operator does: the open notice titled `title`, and its link `link` clicked. */
export async function followNoticeLink(page: Page, title: string | RegExp, link: string | RegExp) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Notices/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notices' })).toBeVisible();
  await page.getByRole('article', { name: title }).getByRole('link', { name: link }).click();
}
