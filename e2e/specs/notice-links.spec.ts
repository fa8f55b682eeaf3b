import { execFileSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { test, expect } from '../console-test';
import {
  addAiConnection,
  addFixtureAgent,
  addProject,
  addSandboxedFixtureAgent,
  addTask,
  createDailyTokenBudget,
  followNoticeLink,
  makeRepository,
  runTask,
  terminal,
} from './helpers';

/**
 * Every notice kind with a link, followed in the console the way an operator does: the notice is
 * raised for real (a real run, a real refusal, a real landing), then its link is clicked on the
 * Notices page, and what the link names is focused and in view. Moving to another page puts focus on
 * its heading; a page opened on a named field must keep focus there, whether the field showed at once
 * (its data was already read) or later. A run stranded by a console that was killed is in
 * e2e/host/recovery.spec.ts, which needs two consoles.
 */

interface NoticeLink {
  kind: string;
  /** The console's environment, when the notice needs one (the disk rule's threshold). */
  consoleEnv?: Record<string, string>;
  /** Raises the notice through the console, as an operator would meet it. */
  raise(page: Page, scratchDir: string): Promise<void>;
  notice: string;
  link: string;
  url: RegExp;
  /** What the link names: focused and in view once it is followed. */
  target(page: Page): Locator;
  /** What else holds where it landed. */
  andThen?(target: Locator, scratchDir: string): Promise<void>;
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const ended = (page: Page, status: 'Failed' | 'Refused' | 'Succeeded') => expect(page.getByText(status, { exact: true }).first()).toBeVisible({ timeout: 30_000 });

/** A project, a fixture agent (`args`, and `executablePath` if given) and a task, and the task run on it. */
async function runFixture(page: Page, scratchDir: string, args: string[], agent: { executablePath?: string } = {}) {
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  await addFixtureAgent(page, 'Fixture', args, agent);
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Fixture');
}

/** A sandboxed fixture agent that no run of is admitted: no AI connection, or (`homeMode`) the operator's own login. */
async function runRefusedSandboxed(page: Page, scratchDir: string, homeMode?: 'preconfigured') {
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  await addSandboxedFixtureAgent(page, 'Sandboxed fixture', ['--lines', '1'], homeMode ? { homeMode } : {});
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Sandboxed fixture');
  await ended(page, 'Refused');
}

/** Git in the project folder, as the operator would run it there. */
function gitIn(dir: string, ...args: string[]) {
  execFileSync('git', args, { cwd: dir });
}

/**
 * A run that changed README.md, its work committed; then the project changes under it (`change`, in
 * the operator's checkout) and the operator opens Land: its dry run finds the run cannot land as it
 * stands and raises the notice at once, before any Land is pressed (the Notices badge says so).
 */
async function dryRunAfterTheCheckoutChanged(page: Page, scratchDir: string, change: (project: string) => void) {
  const project = makeRepository(path.join(scratchDir, 'refunds'));
  await addProject(page, project);
  await addFixtureAgent(page, 'Fixture Ada', ['--json-events', '--write-file', 'README.md', '--file-content', '# checkout service\\nRefunds in one step.\\n']);
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Fixture Ada');
  await ended(page, 'Succeeded');
  await page.getByRole('button', { name: 'Commit…' }).click();
  const commit = page.getByRole('dialog', { name: 'Commit the run’s changes' });
  await commit.getByRole('button', { name: 'Commit' }).click();
  await expect(commit).toBeHidden();
  change(project);
  await page.getByRole('button', { name: 'Land…' }).click();
  const land = page.getByRole('dialog', { name: 'Land the run’s work' });
  await expect(land.getByRole('button', { name: 'Land', exact: true })).toBeDisabled();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Notices 1 open notice/ })).toBeVisible();
  await land.getByRole('button', { name: 'Cancel' }).click();
  await expect(land).toBeHidden();
}

const noticeLinks: NoticeLink[] = [
  {
    kind: 'setup_failed',
    async raise(page, scratchDir) {
      await addProject(page, makeRepository(path.join(scratchDir, 'storefront')));
      await page.getByRole('link', { name: 'Setup of storefront' }).click();
      await page.getByLabel('Setup command').fill('echo installing dependencies; exit 3');
      await page.getByRole('button', { name: 'Save setup' }).click();
      await expect(page.getByText('Saved the setup of storefront. New runs get it.')).toBeVisible();
      await addFixtureAgent(page, 'Fixture', ['--lines', '1']);
      await addTask(page, 'Check the storefront');
      await runTask(page, 'Check the storefront', 'Fixture');
      await ended(page, 'Failed');
    },
    notice: 'Project setup failed',
    link: 'Open the project’s setup',
    url: /#\/settings\/projects\/prj_[^/?]+\?field=setup-command$/,
    target: (page) => page.getByLabel('Setup command'),
  },
  {
    kind: 'ai_connection_required',
    raise: (page, scratchDir) => runRefusedSandboxed(page, scratchDir),
    notice: 'AI connection required',
    link: 'Choose an AI connection',
    url: /#\/agents\/agt_[^/]+\/ai-connection$/,
    // No connection to pick yet: making one is the fix.
    target: (page) => page.getByRole('button', { name: 'Create an AI connection' }),
  },
  {
    kind: 'ai_connection_required (a preconfigured home)',
    raise: (page, scratchDir) => runRefusedSandboxed(page, scratchDir, 'preconfigured'),
    notice: 'AI connection required',
    link: 'Choose an isolated home',
    url: /#\/agents\/agt_[^/]+\/home-mode$/,
    target: (page) => page.getByRole('button', { name: 'Use an isolated home' }),
  },
  {
    kind: 'budget_exhausted',
    async raise(page, scratchDir) {
      // The fixture agent's Codex-style events report 1,801 tokens: one run spends a 1,000-token budget.
      await runFixture(page, scratchDir, ['--json-events', '--lines', '2']);
      await ended(page, 'Succeeded');
      await nav(page).getByRole('link', { name: 'Agents' }).click();
      await page.getByRole('link', { name: 'Fixture' }).click();
      await page.getByRole('link', { name: 'Budgets', exact: true }).click();
      await page.getByRole('button', { name: 'New budget' }).click();
      await createDailyTokenBudget(page, '1000');
      await runTask(page, 'Plan the refund flow', 'Fixture');
      await ended(page, 'Refused');
    },
    notice: 'Budget reached',
    link: 'Change the budget',
    url: /#\/settings\/budgets\/bgt_[0-9a-f]+$/,
    target: (page) => page.getByRole('listitem', { name: 'Daily token budget for the agent “Fixture”' }).getByRole('textbox', { name: 'Limit (tokens)' }),
  },
  {
    kind: 'network_blocked',
    async raise(page, scratchDir) {
      await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
      await addAiConnection(page, 'Local model', { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-e2e-notice-links-0000' });
      // Not the model's address (port 9): the egress proxy refuses it before connecting anywhere.
      await addSandboxedFixtureAgent(page, 'Installer', ['--http-get', 'http://127.0.0.1:7/left-pad', '--json-events'], { connection: 'Local model' });
      await addTask(page, 'Install the dependencies');
      await runTask(page, 'Install the dependencies', 'Installer');
      await expect(terminal(page)).toContainText('http-get http://127.0.0.1:7/left-pad: 403', { timeout: 30_000 });
    },
    notice: 'Network request blocked',
    link: 'Allow 127.0.0.1:7',
    url: /#\/settings\/environments\/env_[^/?]+\?allow=127\.0\.0\.1%3A7$/,
    target: (page) => page.getByRole('dialog').getByLabel('Other allowed hosts'),
    andThen: (hosts) => expect(hosts).toHaveValue(/^127\.0\.0\.1:7$/m),
  },
  {
    kind: 'disk_full',
    // The real disk rule, at a threshold no disk here reaches: every run is refused for want of space.
    consoleEnv: { OPERATOR_CONSOLE_MIN_FREE_MIB: '1000000000' },
    async raise(page, scratchDir) {
      await runFixture(page, scratchDir, ['--lines', '1']);
      await ended(page, 'Refused');
    },
    notice: 'Disk full',
    link: 'Open Clean up',
    url: /#\/cleanup$/,
    // The route names the page, not a field in it: its heading, with what could go right below.
    target: (page) => page.getByRole('heading', { level: 1, name: 'Clean up' }),
  },
  {
    kind: 'spawn_failed',
    async raise(page, scratchDir) {
      await runFixture(page, scratchDir, ['--lines', '1'], { executablePath: path.join(scratchDir, 'no-such-cli') });
      await ended(page, 'Failed');
    },
    notice: 'Command not found',
    link: 'Fix it',
    url: /#\/agents\/agt_[^/]+\/executable-path$/,
    target: (page) => page.getByLabel('Executable path'),
    andThen: (executable, scratchDir) => expect(executable).toHaveValue(path.join(scratchDir, 'no-such-cli')),
  },
  {
    kind: 'auth_required',
    async raise(page, scratchDir) {
      // What a CLI whose key was refused prints, as its last words.
      await runFixture(page, scratchDir, ['--shell', 'echo "Error: 401 Unauthorized"', '--exit-code', '1']);
      await ended(page, 'Failed');
    },
    notice: 'Sign-in required',
    link: 'Fix it',
    url: /#\/agents\/agt_[^/]+$/,
    // The route names the agent, not one of its settings (as sandbox_unavailable's does): its heading.
    target: (page) => page.getByRole('heading', { level: 1, name: 'Fixture' }),
  },
  {
    kind: 'run_conflict',
    raise: (page, scratchDir) =>
      dryRunAfterTheCheckoutChanged(page, scratchDir, (project) => {
        writeFileSync(path.join(project, 'README.md'), '# checkout service\nRefunds in two steps.\n');
        gitIn(project, 'commit', '-q', '-am', 'Refunds in two steps');
      }),
    notice: 'Run conflicts with main',
    link: 'Ask the agent to resolve',
    url: /#\/runs\/run_[^/]+\/changes\?target=main$/,
    target: (page) => page.getByRole('region', { name: 'Changes', exact: true }),
  },
  {
    kind: 'landing_blocked',
    raise: (page, scratchDir) => dryRunAfterTheCheckoutChanged(page, scratchDir, (project) => appendFileSync(path.join(project, 'README.md'), 'An edit not committed yet.\n')),
    notice: 'Landing in main would overwrite your uncommitted changes',
    link: 'Land…',
    url: /#\/runs\/run_[^/]+\/changes\?land=1&target=main$/,
    target: (page) => page.getByRole('dialog', { name: 'Land the run’s work' }).getByLabel('Target branch'),
    andThen: (branch) => expect(branch).toHaveValue('main'),
  },
];

for (const entry of noticeLinks) {
  test.describe(entry.kind, () => {
    if (entry.consoleEnv) test.use({ consoleEnv: entry.consoleEnv });

    test(`“${entry.link}” on the Notices page lands on what it names, focused and in view`, async ({ console: app, scratchDir }) => {
      const { page } = app;
      await entry.raise(page, scratchDir);
      await followNoticeLink(page, entry.notice, entry.link);
      await expect(page).toHaveURL(entry.url);
      const target = entry.target(page);
      await expect(target).toBeFocused();
      await expect(target).toBeInViewport();
      await entry.andThen?.(target, scratchDir);
    });
  });
}
