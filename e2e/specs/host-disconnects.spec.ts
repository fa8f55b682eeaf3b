import path from 'node:path';
import { attachReaders } from '../../electron/testing/ssh-readers';
import { expect } from '../console-test';
import { addAiConnection, addProject, addSandboxedFixtureAgent, addTask, makeRepository, runTask, terminal } from './helpers';
import { addReadyHostEnvironment, hostTest } from './host-helpers';

/**
 * A run on an SSH host whose host goes away, as the operator meets it (issue 28): the run's terminal
 * stops taking typing while the host cannot be reached, says why, and takes it again once the host
 * answers; when the run's work cannot be brought back at its end, the run shows a notice saying so,
 * and its Fetch the work again brings the work into the run's Changes once the host answers. A real
 * sshd on 127.0.0.1 (hosts.spec.ts), made unreachable by no longer listening and by killing the
 * console's connection to it.
 */
const test = hostTest;

test('a host run’s terminal is read-only while its host is unreachable, and its work left there comes back from the notice', async ({ console: app, sshServer, scratchDir }) => {
  test.setTimeout(240_000);
  const { page } = app;
  await addReadyHostEnvironment(page, sshServer, 'Build box');
  await addAiConnection(page, 'Team key', { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-e2e-host-disconnects-0000' });
  // It leaves a file on the host, then echoes what is typed until "quit".
  await addSandboxedFixtureAgent(page, 'Remote echo', ['--write-file', 'from-the-host.txt', '--file-content', 'written on the build box', '--echo-input'], {
    environment: 'Build box',
    connection: 'Team key',
  });

  await addProject(page, makeRepository(path.join(scratchDir, 'remote-echo')));
  await addTask(page, 'Echo on the build box');
  await runTask(page, 'Echo on the build box', 'Remote echo');
  const runId = /\/runs\/(run_[A-Za-z0-9_-]+)/.exec(page.url())![1]!;
  await expect(terminal(page)).toContainText('ready', { timeout: 60_000 });
  const input = terminal(page).getByRole('textbox', { name: 'Terminal input' });
  const paused = terminal(page).getByRole('status').filter({ hasText: 'Input paused' });

  // The host goes away: the terminal says so and takes no typing.
  await sshServer.stopListening();
  try {
    for (const pid of attachReaders(runId)) process.kill(pid, 'SIGKILL');
    await expect(paused).toHaveText(
      `Input paused: ${sshServer.alias} cannot be reached, so the terminal takes no typing (nothing would reach the run). It takes input again as soon as ${sshServer.alias} answers; the output goes on from where it stopped.`,
      { timeout: 60_000 },
    );
    await expect(page.getByText('Unverifiable').first()).toBeVisible();
    await terminal(page).locator('.xterm-screen').click();
    await page.keyboard.type('lost while away\n');
  } finally {
    await sshServer.startListening();
  }

  // It answers again: the line goes, and typing reaches the run.
  await expect(paused).toBeHidden({ timeout: 60_000 });
  await terminal(page).locator('.xterm-screen').click();
  await expect(input).toBeFocused();
  await page.keyboard.type('back again\n');
  await expect(terminal(page)).toContainText('got: back again', { timeout: 30_000 });
  await expect(terminal(page)).not.toContainText('lost while away');

  // The host stops taking new connections while the run's own goes on: the agent ends, and its work
  // cannot be brought back.
  await sshServer.stopListening();
  try {
    await page.keyboard.type('quit\n');
    const notice = page.getByRole('article', { name: 'Run’s work left on its host' });
    await expect(notice).toContainText(`is still on ${sshServer.alias}: it was not brought back`, { timeout: 60_000 });
    await expect(page.getByText('Succeeded').first()).toBeVisible();
  } finally {
    await sshServer.startListening();
  }

  // From the notice, once the host answers: the work comes back into the run's Changes.
  const notice = page.getByRole('article', { name: 'Run’s work left on its host' });
  await notice.getByRole('button', { name: 'Fetch the work again' }).click();
  await expect(page.getByRole('region', { name: 'Changes' })).toContainText('from-the-host.txt', { timeout: 60_000 });
  await expect(notice).toBeHidden();
  // Resolved: no longer among the open notices.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Notices/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Notices' })).toBeVisible();
  await expect(page.getByRole('article', { name: 'Run’s work left on its host' })).toHaveCount(0);
});
