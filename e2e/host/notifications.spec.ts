import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import type { ChannelInput, ChannelName, ChannelOutput } from '../../shared/contract';
// The browser host's page shows desktop notifications; the desktop app shows them from its main
// process (electron/shell/desktop-notifier.test.ts), so this spec lives with the host-only ones.
import { test, expect, type ConsoleUnderTest } from '../console-test';
import { addFixtureAgent, addProject, addSandboxedFixtureAgent, addTask, fixtureAgent, makeRepository, runTask } from '../specs/helpers';

/**
 * Desktop notifications in the browser host (issue 14), as the operator meets them: the browser's
 * notifications permission is granted, and `window.Notification` is wrapped by an init script that
 * records each notification the page constructs (and still constructs the real one), so the test
 * asserts what the page showed. Each event notifies once, a flood becomes one summary, a click opens
 * the run (or the notice's fix), and the window title counts the open notices.
 *
 * The desktop app shows its notifications with Electron's Notification in the main process instead
 * (electron/shell/desktop-notifier.test.ts), which no page can record: under that launcher this spec
 * has nothing to look at.
 */

interface Shown {
  title: string;
  body: string | undefined;
  tag: string | undefined;
  silent: boolean | undefined;
}

declare global {
  interface Window {
    __notificationsShown?: Array<Shown & { instance: Notification }>;
  }
}

/** Longer than the core's gathering window (at most 1.5 s): anything still to come has come. */
const settleMs = 2500;

/** Grants the page the notifications permission and records every notification it shows. */
async function recordNotifications(app: ConsoleUnderTest): Promise<Page> {
  const { page } = app;
  await page.context().grantPermissions(['notifications'], { origin: app.host!.origin });
  await page.context().addInitScript(() => {
    const Real = window.Notification;
    const shown: NonNullable<Window['__notificationsShown']> = [];
    window.__notificationsShown = shown;
    class Recording extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        shown.push({ title, body: options?.body, tag: options?.tag, silent: options?.silent ?? undefined, instance: this });
      }
    }
    window.Notification = Recording;
  });
  await page.reload();
  return page;
}

async function shown(page: Page): Promise<Shown[]> {
  return page.evaluate(() => (window.__notificationsShown ?? []).map(({ title, body, tag, silent }) => ({ title, body, tag, silent })));
}

/** Exactly `count` notifications, once they have come and nothing more did. */
async function expectShown(page: Page, count: number): Promise<Shown[]> {
  await expect.poll(async () => (await shown(page)).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(count);
  await page.waitForTimeout(settleMs);
  const all = await shown(page);
  expect(all, JSON.stringify(all)).toHaveLength(count);
  return all;
}

/** The operator clicks the notification the page showed `index`-th. */
async function click(page: Page, index: number): Promise<void> {
  await page.evaluate((at) => {
    const notification = window.__notificationsShown![at]!.instance;
    notification.onclick!.call(notification, new Event('click', { cancelable: true }));
  }, index);
}

/** Settings → Notifications: the events turned off, and quiet while focused as given; saved. */
async function chooseNotifications(page: Page, choice: { quietWhenFocused: boolean; off?: string[] }) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Notifications' }).click();
  await expect(page.getByRole('heading', { level: 2, name: 'Notifications' })).toBeVisible();
  // The permission the test granted, as the page reads it: nothing to allow.
  await expect(page.getByRole('definition').filter({ hasText: 'Allowed' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Allow notifications' })).toHaveCount(0);
  const form = page.getByRole('form', { name: 'Notification settings' });
  await form.getByRole('checkbox', { name: 'Quiet while the console window has focus' }).setChecked(choice.quietWhenFocused);
  for (const event of choice.off ?? []) await form.getByRole('checkbox', { name: event }).uncheck();
  await form.getByRole('button', { name: 'Save notification settings' }).click();
  await expect(form.getByText('Saved.')).toBeVisible();
}

/** One request through the API the page uses (its own WebSocket), to set up many runs at once. */
async function callCore<C extends ChannelName>(page: Page, channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>> {
  return page.evaluate(
    async ({ channel, input }) => {
      const socket = new WebSocket(`ws://${location.host}/ws`);
      await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
      try {
        return await new Promise<ChannelOutput<C>>((resolve, reject) => {
          socket.addEventListener('message', (event: MessageEvent<unknown>) => {
            if (typeof event.data !== 'string') return;
            const message = JSON.parse(event.data) as { type: string; id?: number; ok?: boolean; value?: unknown; error?: { message: string } };
            if (message.type !== 'response' || message.id !== 1) return;
            if (message.ok) resolve(message.value as ChannelOutput<C>);
            else reject(new Error(message.error?.message));
          });
          socket.send(JSON.stringify({ type: 'request', id: 1, channel, input }));
        });
      } finally {
        socket.close();
      }
    },
    { channel, input },
  );
}

test('a run that succeeds notifies once, naming its task and agent, and clicking it opens the run', async ({ console: app, scratchDir }) => {
  const page = await recordNotifications(app);
  await chooseNotifications(page, { quietWhenFocused: false });
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  await addFixtureAgent(page, 'Fixture agent', ['--json-events', '--lines', '2']);
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Fixture agent');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  const runUrl = page.url();

  const [notification] = await expectShown(page, 1);
  expect(notification).toMatchObject({ title: 'Run succeeded: Plan the refund flow', silent: false });
  expect(notification!.body).toContain('Fixture agent finished “Plan the refund flow”');
  expect(notification!.tag).toMatch(/^ntf_/);

  // Elsewhere in the console, the operator clicks it: the run opens.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Tasks' })).toBeVisible();
  await click(page, 0);
  await expect(page.getByRole('heading', { level: 1, name: 'Plan the refund flow' })).toBeVisible();
  expect(page.url()).toBe(runUrl);
  // Reloading the page (a second delivery to a new page) shows nothing again.
  await page.reload();
  await page.waitForTimeout(settleMs);
  expect(await shown(page)).toEqual([]);
});

test('a refused run and its notice notify once, opening the notice’s fix; the window title counts the open notice', async ({ console: app, scratchDir }) => {
  const page = await recordNotifications(app);
  await chooseNotifications(page, { quietWhenFocused: false });
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  await addSandboxedFixtureAgent(page, 'Sandboxed fixture', ['--lines', '1']);
  await addTask(page, 'Plan the refund flow');
  await expect(page).toHaveTitle('Tasks · Operator Console');
  await runTask(page, 'Plan the refund flow', 'Sandboxed fixture');
  await expect(page.getByText('Refused', { exact: true }).first()).toBeVisible();
  await expect(page).toHaveTitle('(1) Run: Plan the refund flow · Operator Console');

  const [notification] = await expectShown(page, 1);
  expect(notification!.title).toBe('AI connection required: Plan the refund flow');
  expect(notification!.body).toMatch(/^Sandboxed fixture was not started on “Plan the refund flow”\. /);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  await expect(page).toHaveTitle('(1) Runs · Operator Console');
  await click(page, 0);
  await expect(page).toHaveURL(/#\/agents\/[^/]+\/ai-connection$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Sandboxed fixture' })).toBeVisible();
});

test('a flood of runs ending at once is one summary notification, which opens the runs list', async ({ console: app, scratchDir }) => {
  const page = await recordNotifications(app);
  await chooseNotifications(page, { quietWhenFocused: false });
  const project = await callCore(page, 'addProject', { path: makeRepository(path.join(scratchDir, 'checkout-service')) });
  const gate = path.join(scratchDir, 'go');
  // Each run holds at the gate until the test opens it, so all six end within a moment.
  const agent = await callCore(page, 'createAgent', {
    name: 'Gated fixture',
    providerId: 'command',
    model: 'fixture',
    profileId: 'program-codex-json',
    executablePath: fixtureAgent,
    commandArgs: ['--shell', `while [ ! -e ${gate} ]; do sleep 0.05; done`],
    capacity: 6,
  });
  const task = await callCore(page, 'createTask', { projectId: project.id, title: 'Bump the dependency', prompt: 'Bump it.' });
  const runIds: string[] = [];
  for (let i = 0; i < 6; i++) runIds.push((await callCore(page, 'startRun', { taskId: task.id, agentId: agent.id })).id);
  for (const runId of runIds) {
    await expect.poll(async () => (await callCore(page, 'getRun', { runId })).locators.some((locator) => locator.kind === 'process'), { timeout: 30_000 }).toBe(true);
  }
  writeFileSync(gate, '');

  const [summary] = await expectShown(page, 1);
  expect(summary).toMatchObject({ title: '6 runs ended: 6 succeeded', body: 'Open the runs list to see them.' });
  await click(page, 0);
  await expect(page.getByRole('heading', { level: 1, name: 'Runs' })).toBeVisible();
});

test('an event the operator turned off does not notify; the others still do', async ({ console: app, scratchDir }) => {
  const page = await recordNotifications(app);
  await chooseNotifications(page, { quietWhenFocused: false, off: ['A run succeeds'] });
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  await addFixtureAgent(page, 'Fixture agent', ['--json-events', '--lines', '2']);
  await addSandboxedFixtureAgent(page, 'Sandboxed fixture', ['--lines', '1']);
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Fixture agent');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  await page.waitForTimeout(settleMs);
  expect(await shown(page), 'a success, with successes turned off').toEqual([]);

  await runTask(page, 'Plan the refund flow', 'Sandboxed fixture');
  const [refused] = await expectShown(page, 1);
  expect(refused!.title).toBe('AI connection required: Plan the refund flow');
});

test('quiet while the console has focus (the default): a run that ends while the operator looks at the console does not notify', async ({ console: app, scratchDir }) => {
  const page = await recordNotifications(app);
  await page.bringToFront();
  expect(await page.evaluate(() => document.hasFocus()), 'the page has focus, as the operator looking at it').toBe(true);
  await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
  await addFixtureAgent(page, 'Fixture agent', ['--json-events', '--lines', '2']);
  await addTask(page, 'Plan the refund flow');
  await runTask(page, 'Plan the refund flow', 'Fixture agent');
  await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  await page.waitForTimeout(settleMs);
  expect(await shown(page)).toEqual([]);
});
