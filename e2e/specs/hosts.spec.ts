import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from '../console-test';
import { addAiConnection, addProject, addSandboxedFixtureAgent, addTask, makeRepository, runTask, terminal } from './helpers';
import { addReadyHostEnvironment, addTrustedHost, hostTest } from './host-helpers';

/**
 * Settings → Hosts as an operator meets it (issue 28): they add a host by its alias in their ssh
 * config, the console shows the host key's fingerprint and connects to nothing until they trust it,
 * and Test host then says what the host has. A real sshd on 127.0.0.1 (its own host key, another
 * user account as the remote), the console's system ssh with the operator's config and a test agent.
 */
const test = hostTest;

test('an operator adds a host by its ssh alias, sees its key’s fingerprint, trusts it, and Test host reports what the host has', async ({ console: app, sshServer }) => {
  const { page } = app;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('link', { name: 'Hosts' }).click();
  await expect(page.getByRole('heading', { name: 'Hosts' })).toBeVisible();

  // A name ssh would read as an option is refused where it is typed.
  await page.getByRole('button', { name: 'Add host' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add host' });
  await expect(dialog.getByLabel('Host')).toBeFocused();
  await dialog.getByLabel('Host').fill('-oProxyCommand=id');
  await dialog.getByRole('button', { name: 'Add host' }).click();
  await expect(dialog.getByText(/cannot start with “-”: ssh would read it as an option/)).toBeVisible();
  await expect(dialog.getByLabel('Host')).toBeFocused();

  await dialog.getByLabel('Host').fill(sshServer.alias);
  await dialog.getByRole('button', { name: 'Add host' }).click();
  await expect(dialog).toBeHidden();

  // Tested at once: ssh does not know the key, so it shows the fingerprint and logs in to nothing.
  const row = page.getByRole('list', { name: 'Hosts' }).getByRole('listitem').filter({ hasText: sshServer.alias });
  const hostKey = row.getByRole('region', { name: `Host key of ${sshServer.alias}` });
  await expect(hostKey).toContainText(sshServer.hostKeyFingerprint(), { timeout: 30_000 });
  await expect(hostKey).toContainText('ED25519');
  await expect(row).toContainText('Host key not trusted');
  await expect(row).toContainText(`${sshServer.user}@127.0.0.1:${sshServer.port}`);

  await hostKey.getByRole('button', { name: 'Trust this key' }).click();
  const report = row.getByRole('definition').filter({ hasText: 'user namespaces' });
  await expect(report).toContainText('user namespaces work', { timeout: 60_000 });
  await expect(row).toContainText('Ready');
  await expect(row.getByRole('region', { name: `Host key of ${sshServer.alias}` })).toHaveCount(0);
  const facts = row.getByLabel(`What ${sshServer.alias} has`);
  await expect(facts).toContainText(/git version \d/);
  await expect(facts).toContainText(/Python 3\.\d+\.\d+ \(the console's run supervisor there uses it\)/);
  await expect(facts).toContainText('Cores');
  await expect(facts).toContainText(`in /home/${sshServer.user}`);
  await expect(facts).toContainText(/Account\s*uid \d+: sandboxed runs run as this account, in a user namespace\./);
  const clis = row.getByRole('list', { name: `Agent CLIs on ${sshServer.alias}` }).getByRole('listitem');
  await expect(clis).toHaveCount(4);
  await expect(clis.filter({ hasText: 'Codex CLI' })).toHaveText('Codex CLI: 0.171.0');
  await expect(clis.filter({ hasText: 'Claude Code' })).toContainText('not found on the PATH ssh gives');

  // Test host again, by keyboard: the same report, and it is kept across a reload.
  await row.getByRole('button', { name: `Test host ${sshServer.alias}` }).focus();
  await page.keyboard.press('Enter');
  await expect(facts).toContainText('user namespaces work', { timeout: 60_000 });
  await page.reload();
  await expect(page.getByRole('list', { name: 'Hosts' }).getByRole('listitem').filter({ hasText: sshServer.alias })).toContainText('Ready');

  // An environment can name the host; its runs execute there, and the page says so.
  await page.getByRole('link', { name: 'Environments' }).click();
  await page.getByRole('button', { name: 'New environment' }).click();
  const create = page.getByRole('dialog', { name: 'New environment' });
  await create.getByLabel('Name').fill('On the build box');
  await create.getByLabel('SSH host').selectOption({ label: sshServer.alias });
  await expect(create.getByLabel('SSH host')).toHaveAccessibleDescription(/Its runs execute on that host, confined as here/);
  await create.getByRole('button', { name: 'Create environment' }).click();
  await expect(create).toBeHidden();
  const environment = page.getByRole('list', { name: 'Environments' }).getByRole('listitem').filter({ hasText: 'On the build box' });
  await expect(environment.getByLabel('On the build box details')).toContainText(`Host${sshServer.alias} (its runs execute there)`);

  // The host is not removed while the environment names it.
  await environment.getByRole('link', { name: sshServer.alias }).click();
  const hostRow = page.getByRole('list', { name: 'Hosts' }).getByRole('listitem').filter({ hasText: sshServer.alias });
  await expect(hostRow.getByLabel(`${sshServer.alias} details`)).toContainText('On the build box');
  await hostRow.getByRole('button', { name: `Remove ${sshServer.alias}` }).click();
  const remove = page.getByRole('alertdialog', { name: 'Remove host' });
  await remove.getByRole('button', { name: 'Remove' }).click();
  await expect(remove.getByRole('alert')).toContainText('is the host of the environment On the build box');
});

test('a task runs on the host, sandboxed there; its output is in the run’s terminal, and its work comes back to be reviewed, committed and landed', async ({ console: app, sshServer, scratchDir }) => {
  const { page } = app;
  // The operator's own known_hosts already holds the host's key; a sandboxed environment on the host, with no network.
  await addReadyHostEnvironment(page, sshServer, 'Build box');
  await addAiConnection(page, 'Team key', { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-e2e-hosts-0000' });
  await addSandboxedFixtureAgent(page, 'Remote writer', ['--print-env', 'HOME', '--lines', '3', '--write-file', 'notes/remote.md', '--file-content', 'Planned on the build box.\\n'], { connection: 'Team key', environment: 'Build box' });

  const project = makeRepository(path.join(scratchDir, 'remote-service'));
  await addProject(page, project);
  await addTask(page, 'Plan on the build box');
  await runTask(page, 'Plan on the build box', 'Remote writer');
  // Its home is the run's own, in the console's folder on the host.
  await expect(terminal(page)).toContainText(/HOME=\/home\/[^/]+\/\.operator-console\/runs\/run_[^/]+\/home/, { timeout: 60_000 });
  await expect(terminal(page)).toContainText('line 3 of 3');
  await expect(page.getByText('Succeeded').first()).toBeVisible({ timeout: 60_000 });

  // What the agent wrote on the host came back: reviewed, committed and landed here as a local run's work.
  const changes = page.getByRole('region', { name: 'Changes' });
  const files = changes.getByRole('list', { name: 'Files changed' });
  await expect(files.getByRole('listitem').filter({ hasText: 'notes/remote.md' })).toContainText('Added', { timeout: 30_000 });
  await expect(changes).toContainText('Planned on the build box.');
  await changes.getByRole('button', { name: 'Commit…' }).click();
  const commit = page.getByRole('dialog', { name: 'Commit the run’s changes' });
  await commit.getByRole('textbox', { name: 'Commit message' }).fill('Plan from the build box');
  await commit.getByRole('button', { name: 'Commit' }).click();
  await expect(commit).toBeHidden();
  await changes.getByRole('button', { name: 'Land…' }).click();
  const land = page.getByRole('dialog', { name: 'Land the run’s work' });
  await land.getByRole('button', { name: 'Land', exact: true }).click();
  await expect(land).toBeHidden({ timeout: 20_000 });
  expect(execFileSync('git', ['log', '-1', '--format=%s', 'main'], { cwd: project, encoding: 'utf8' }).trim()).toBe('Plan from the build box');
  expect(readFileSync(path.join(project, 'notes', 'remote.md'), 'utf8')).toBe('Planned on the build box.\n');
});

test('a provider-only run on the host reaches the allowed host from this machine, and the refused one is on its Network panel and a notice, as for a run here', async ({ console: app, sshServer, scratchDir }) => {
  const { page } = app;
  // Two servers on this machine's 127.0.0.1: one the environment allows, one it does not.
  const paths: string[] = [];
  const servers = ['registry', 'elsewhere'].map((name) => createServer((request, response) => {
    paths.push(`${name}${request.url ?? ''}`);
    response.end(`${name} has ${request.url ?? ''}`);
  }));
  for (const server of servers) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const [registryPort, elsewherePort] = servers.map((server) => (server.address() as AddressInfo).port);
  try {
    await addTrustedHost(page, sshServer);
    await page.getByRole('link', { name: 'Environments' }).click();
    await page.getByRole('button', { name: 'New environment' }).click();
    const create = page.getByRole('dialog', { name: 'New environment' });
    await create.getByLabel('Name').fill('Box builds');
    await create.getByLabel('SSH host').selectOption({ label: sshServer.alias });
    // The dialog says where such a run's traffic leaves from, and what that cannot reach.
    await expect(create.getByRole('note', { name: 'Where the run’s traffic leaves from' })).toContainText('reaches its model and the allowed hosts from this machine');
    await expect(create.getByRole('radio', { name: 'Provider only' })).toBeChecked();
    await create.getByLabel('Other allowed hosts').fill(`127.0.0.1:${registryPort}`);
    await create.getByRole('button', { name: 'Create environment' }).click();
    await expect(create).toBeHidden();

    await addAiConnection(page, 'Team key', { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-e2e-hosts-0000' });
    await addSandboxedFixtureAgent(page, 'Remote installer', ['--http-get', `http://127.0.0.1:${registryPort}/left-pad`, '--http-get', `http://127.0.0.1:${elsewherePort}/exfiltrate`], {
      connection: 'Team key',
      environment: 'Box builds',
    });

    await addProject(page, makeRepository(path.join(scratchDir, 'remote-installs')));
    await addTask(page, 'Install on the build box');
    await runTask(page, 'Install on the build box', 'Remote installer');
    await expect(terminal(page)).toContainText(`http-get http://127.0.0.1:${registryPort}/left-pad: 200 registry has /left-pad`, { timeout: 60_000 });
    await expect(terminal(page)).toContainText(`http-get http://127.0.0.1:${elsewherePort}/exfiltrate: 403`);
    await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 60_000 });
    expect(paths).toEqual(['registry/left-pad']);
    const network = page.getByRole('region', { name: 'Network' });
    await expect(network.getByRole('row').filter({ hasText: String(registryPort) })).toContainText('Allowed');
    await expect(network.getByRole('row').filter({ hasText: String(elsewherePort) })).toContainText('Blocked');
    const notice = page.getByRole('article', { name: 'Network request blocked' });
    await expect(notice).toContainText(`asked to reach 127.0.0.1:${elsewherePort}, which the Box builds environment does not allow`);
  } finally {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
});
