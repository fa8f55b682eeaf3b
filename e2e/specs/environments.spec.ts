import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test, expect } from '../console-test';
import { addAiConnection, addProject, addTask, fixtureAgent, makeRepository, runTask, terminal } from './helpers';

/**
 * Environments and blocked requests as an operator meets them (issue 12): they make an environment
 * with Provider only, put a sandboxed agent in it, and its run is refused a host (a local HTTP
 * server stands in for a package registry, on 127.0.0.1). The refusal is on the run's Network
 * panel and is a notice whose link opens the environment's allowed hosts with the host filled in;
 * saving resolves the notice, and Run again gets through. Real bubblewrap, the real egress proxy.
 */

interface Recorder {
  origin: string;
  port: number;
  paths: string[];
  close(): Promise<void>;
}

/** A registry stand-in (any GET answers with what was asked), or, for the AI connection, a models endpoint. */
async function startServer(answer: (url: string) => { status: number; body: string }): Promise<Recorder> {
  const paths: string[] = [];
  const server: Server = createServer((request, response) => {
    paths.push(request.url ?? '');
    const { status, body } = answer(request.url ?? '');
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    paths,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('an operator makes an environment, a run is refused a host, the notice’s link opens its allowed hosts with the host filled in, saving allows it, and Run again gets through', async ({
  console: app,
  scratchDir,
}) => {
  const { page } = app;
  const nav = page.getByRole('navigation', { name: 'Main' });
  const registry = await startServer((url) => ({ status: 200, body: JSON.stringify({ name: url.slice(1), version: '1.3.0' }) }));
  const models = await startServer((url) => (url === '/v1/models' ? { status: 200, body: JSON.stringify({ object: 'list', data: [] }) } : { status: 404, body: '{}' }));
  const host = `127.0.0.1:${registry.port}`;

  try {
    await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));

    // Settings → Environments: the built-ins, and a new one.
    await nav.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Environments' }).click();
    const list = page.getByRole('list', { name: 'Environments' });
    await expect(list.getByRole('listitem')).toHaveCount(2);
    await expect(list.getByRole('listitem').filter({ hasText: 'Sandboxed' })).toContainText('Built in');
    await expect(page.getByRole('button', { name: 'Delete Sandboxed' })).toHaveCount(0);

    await page.getByRole('button', { name: 'New environment' }).click();
    const create = page.getByRole('dialog', { name: 'New environment' });
    await expect(create.getByLabel('Name')).toBeFocused();
    await create.getByLabel('Name').fill('Node builds');
    await expect(create.getByRole('radio', { name: 'OS sandbox' })).toBeChecked();
    await expect(create.getByRole('radio', { name: 'Provider only' })).toBeChecked();
    // Open says plainly what it gives away; None says the model is out of reach too.
    await create.getByRole('radio', { name: 'Open' }).check();
    await expect(create.getByRole('note')).toContainText('the agent can reach any host');
    await expect(create.getByRole('radio', { name: 'None' }).last()).toHaveAccessibleDescription(/not even the model’s API/);
    await create.getByRole('radio', { name: 'Provider only' }).check();
    // A sandbox always needs a managed connection; a bad host is named where it is, and nothing is sent.
    await expect(create.getByRole('checkbox', { name: 'Requires a managed AI connection' })).toBeChecked();
    await expect(create.getByRole('checkbox', { name: 'Requires a managed AI connection' })).toBeDisabled();
    await create.getByRole('checkbox', { name: 'npm registry' }).check();
    await create.getByLabel('Other allowed hosts').fill('https://pypi.org/simple');
    await create.getByRole('button', { name: 'Create environment' }).click();
    await expect(create.getByText(/Write the host alone, without http:\/\//)).toBeVisible();
    await expect(create.getByLabel('Other allowed hosts')).toBeFocused();
    await create.getByLabel('Other allowed hosts').fill('');
    await create.getByRole('button', { name: 'Create environment' }).click();
    await expect(create).toBeHidden();
    const builds = list.getByRole('listitem').filter({ hasText: 'Node builds' });
    await expect(builds).toContainText('Provider only');
    await expect(builds).toContainText('registry.npmjs.org');
    await expect(builds).not.toContainText(host);

    // A managed connection (a local model server), for every agent.
    await addAiConnection(page, 'Local model', { baseUrl: `${models.origin}/v1`, apiKey: 'sk-test-e2e-environments-0000' });

    // A sandboxed agent in the new environment, whose CLI fetches a package from the registry.
    await nav.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'New agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'New agent' });
    await dialog.getByLabel('Name').fill('Installer');
    await dialog.getByLabel('Provider').selectOption({ label: 'Command' });
    await dialog.getByLabel('Profile').selectOption('program-codex-json');
    const environment = dialog.getByLabel('Environment');
    await environment.selectOption(await environment.locator('option', { hasText: /^Node builds/ }).getAttribute('value'));
    await expect(dialog.getByLabel('Home mode')).toHaveValue('isolated');
    const picker = dialog.getByRole('combobox', { name: 'AI connection' });
    await picker.selectOption(await picker.locator('option', { hasText: /^Local model/ }).getAttribute('value'));
    await dialog.getByLabel('Executable path').fill(fixtureAgent);
    await dialog.getByLabel('Arguments').fill(['--http-get', `${registry.origin}/left-pad`, '--json-events'].join('\n'));
    await dialog.getByRole('button', { name: 'Create agent' }).click();
    await expect(page.getByRole('link', { name: 'Installer' })).toBeVisible();

    // The run: refused the registry, which its Network panel and a notice say.
    await addTask(page, 'Install the dependencies');
    await runTask(page, 'Install the dependencies', 'Installer');
    const refusedRunUrl = page.url();
    await expect(terminal(page)).toContainText(`http-get ${registry.origin}/left-pad: 403`, { timeout: 30_000 });
    await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
    expect(registry.paths).toEqual([]);
    const network = page.getByRole('region', { name: 'Network' });
    const blockedRow = network.getByRole('row').filter({ hasText: '127.0.0.1' });
    await expect(blockedRow).toContainText(String(registry.port));
    await expect(blockedRow).toContainText('Blocked');
    const notice = page.getByRole('article', { name: 'Network request blocked' });
    await expect(notice).toContainText(`asked to reach ${host}, which the Node builds environment does not allow`);
    await expect(notice).toContainText('“Install the dependencies” (agent Installer)');
    await expect(nav.getByRole('img', { name: '1 open notice' })).toBeVisible();

    // Its link opens the environment's allowed hosts, the host filled in and focused, ready to save.
    await notice.getByRole('link', { name: `Allow ${host}` }).click();
    await expect(page).toHaveURL(/#\/settings\/environments\/env_[^/?]+\?allow=/);
    const edit = page.getByRole('dialog', { name: 'Edit Node builds' });
    await expect(edit).toContainText(`A run was refused ${host}: it is added to the other allowed hosts below.`);
    const hosts = edit.getByLabel('Other allowed hosts');
    await expect(hosts).toBeFocused();
    await expect(hosts).toHaveValue(`${host}\n`);
    await expect(edit.getByRole('checkbox', { name: 'npm registry' })).toBeChecked();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect(edit).toBeHidden();
    await expect(page).toHaveURL(/#\/settings\/environments\/env_[^/?]+$/);
    await expect(page.getByText('Saved Node builds. Runs that start from now on get the change.')).toBeVisible();
    await expect(builds).toContainText(host);

    // The notice resolved, here beside the environment, in words; Run again runs the task once.
    await expect(nav.getByRole('img', { name: /open notices?$/ })).toHaveCount(0);
    const here = page.getByRole('region', { name: 'Notices for Node builds' }).getByRole('article', { name: 'Network request blocked' });
    await expect(here).toContainText('Resolved');
    await expect(here).toContainText(`${host} is allowed in the Node builds environment now.`);
    await expect(here.getByRole('link', { name: `Allow ${host}` })).toHaveCount(0);
    await here.getByRole('button', { name: 'Run again' }).dblclick();
    await expect(here.getByRole('button', { name: 'Run again' })).toHaveCount(0);
    await here.getByRole('link', { name: 'Open the new run' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Install the dependencies' })).toBeVisible();
    expect(page.url()).not.toBe(refusedRunUrl);
    await expect(terminal(page)).toContainText(`http-get ${registry.origin}/left-pad: 200 {"name":"left-pad","version":"1.3.0"}`, { timeout: 30_000 });
    await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
    await expect(page.getByRole('region', { name: 'Network' }).getByRole('row').filter({ hasText: String(registry.port) })).toContainText('Allowed');
    expect(registry.paths).toEqual(['/left-pad']);
    await expect(page.getByRole('article', { name: 'Network request blocked' })).toHaveCount(0);

    // The environment cannot go while the agent is in it; the refusal says which agent.
    await nav.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Environments' }).click();
    await page.getByRole('button', { name: 'Delete Node builds' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete environment' });
    await expect(confirm).toContainText('Installer is in it');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(confirm.getByRole('alert')).toContainText('Node builds is used by the agent Installer. Move it to another environment first');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(list.getByRole('listitem')).toHaveCount(3);
  } finally {
    await registry.close();
    await models.close();
  }
});
