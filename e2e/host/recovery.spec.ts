import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import type { ChannelInput, ChannelName, ChannelOutput } from '../../shared/contract';
import type { ServerMessage } from '../../shared/wire';
import { startBrowserHost } from '../launchers/browser-host';

const fixtureAgent = path.resolve(import.meta.dirname, '..', 'fixtures', 'fixture-agent.mjs');

/**
 * The console is killed (SIGKILL) while a run is running. Started again on the same data directory,
 * it finds the run, stops what was left of it, marks it stranded and says so in a notice.
 *
 * The agent survives its terminal going away (most CLIs die of the SIGHUP; one that does not is what
 * recovery is for), so it is still running when the next console starts and only recovery can stop it.
 */

/** The agent processes of this test still running (zombies, which nothing can stop, are not counted). */
function agentsAlive(): number[] {
  return execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null && !match[2]!.startsWith('Z') && match[3]!.includes(fixtureAgent) && match[3]!.includes('--survive-hangup'))
    .map((match) => Number(match![1]));
}
test('a run the console was killed during comes back stranded, with a notice', async ({ browser }) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'oc-e2e-recovery-'));
  const project = path.join(dataDir, '..', `${path.basename(dataDir)}-project`);
  mkdirSync(project);
  execFileSync('git', ['init', '-q', project]);
  writeFileSync(path.join(project, 'README.md'), 'x\n');
  execFileSync('git', ['-c', 'user.email=e@example.invalid', '-c', 'user.name=E', 'commit', '-q', '--allow-empty', '-m', 'init'], { cwd: project });

  const first = await startBrowserHost({ dataDir });
  const context = await browser.newContext();
  let page = await context.newPage();
  await page.goto(first.url);
  // Set up through the API the page uses, to keep this test about recovery.
  const runId = await page.evaluate(
    async ({ project, fixtureAgent }) => {
      const socket = new WebSocket(`ws://${location.host}/ws`);
      await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
      let id = 0;
      // Only types cross into the page: Playwright sends this function as its source text.
      const call = <C extends ChannelName>(channel: C, input: ChannelInput<C>) =>
        new Promise<ChannelOutput<C>>((resolve, reject) => {
          const requestId = ++id;
          const onMessage = (event: MessageEvent<unknown>) => {
            if (typeof event.data !== 'string') return;
            const message = JSON.parse(event.data) as ServerMessage;
            if (message.type !== 'response' || message.id !== requestId) return;
            socket.removeEventListener('message', onMessage);
            // The host checked the answer against the channel's output schema.
            if (message.ok) resolve(message.value as ChannelOutput<C>);
            else reject(new Error(message.error.message));
          };
          socket.addEventListener('message', onMessage);
          socket.send(JSON.stringify({ type: 'request', id: requestId, channel, input }));
        });
      const projectRow = await call('addProject', { path: project });
      const agent = await call('createAgent', {
        name: 'Long runner',
        providerId: 'command',
        model: 'fixture',
        profileId: 'program-codex-json',
        executablePath: fixtureAgent,
        commandArgs: ['--survive-hangup', '--lines', '1000', '--delay-ms', '50'],
      });
      const task = await call('createTask', { projectId: projectRow.id, title: 'Long job', prompt: 'Run for a while' });
      const run = await call('startRun', { taskId: task.id, agentId: agent.id });
      socket.close();
      return run.id;
    },
    { project, fixtureAgent },
  );
  await page.goto(`${first.url.replace(/\?.*$/, '')}#/runs/${runId}`);
  await expect(page.getByText('Running', { exact: true }).first()).toBeVisible();
  await expect(page.getByRole('group', { name: 'Run output' }).or(page.getByRole('region', { name: 'Run output' }))).toContainText(/line \d+ of 1000/);

  await first.crash();
  // The page still open says what it can: the run is not called running while nothing answers for it.
  await expect(page.getByText('Unverifiable', { exact: true }).first()).toBeVisible();
  await expect(page.getByText('Running', { exact: true })).toHaveCount(0);
  // The console is gone and the agent is not: this is what the next console must find and stop.
  const [agentPid, ...others] = agentsAlive();
  expect(agentPid).toBeDefined();
  expect(others).toEqual([]);

  const second = await startBrowserHost({ dataDir });
  try {
    page = await context.newPage();
    await page.goto(second.url);
    await page.evaluate((id) => (window.location.hash = `#/runs/${id}`), runId);
    await expect(page.getByText('Stranded', { exact: true }).first()).toBeVisible();
    await expect(page.getByText(/console stopped while this run was running/i)).toBeVisible();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Notices/ }).click();
    await expect(page.getByRole('heading', { name: 'Run stranded' })).toBeVisible();
    // Recovery found the agent still running, by the process the ledger recorded, and stopped it: the
    // log file has the record, and the terminal a sentence (no JSON) saying so.
    const stopping = readFileSync(path.join(dataDir, 'logs', 'console.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('stopping a process left by a previous console'))
      .map((line) => JSON.parse(line) as { pid: number; pgid: number });
    expect(stopping).toEqual([expect.objectContaining({ pid: agentPid, pgid: agentPid })]);
    expect(second.stderr()).toContain(`Operator Console warning: stopping a process left by a previous console (pid: ${agentPid}; pgid: ${agentPid}).`);
    expect(second.stderr()).not.toMatch(/^\{/m);
    // Nothing of the run is still alive.
    expect(agentsAlive()).toEqual([]);

    // The notice's link opens the run, its heading focused and in view (e2e/specs/notice-links.spec.ts has the other kinds).
    await page.getByRole('article', { name: 'Run stranded' }).getByRole('link', { name: /^(Resume|Open) the run$/ }).click();
    await expect(page).toHaveURL(new RegExp(`#/runs/${runId}$`));
    const heading = page.getByRole('heading', { level: 1, name: 'Long job' });
    await expect(heading).toBeFocused();
    await expect(heading).toBeInViewport();
  } finally {
    // Should recovery have failed to, an agent left running must not outlive the test.
    for (const pid of agentsAlive()) process.kill(pid, 'SIGKILL');
    await context.close();
    expect(await second.stop()).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
});
