import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test, expect } from '../console-test';
import { addProject, addSandboxedFixtureAgent, addTask, makeRepository, runTask, terminal } from './helpers';

/**
 * DESIGN.md section 3, as an operator meets it: a sandboxed agent without a managed AI connection is
 * refused before anything starts, with a notice whose link opens the agent's picker; once a
 * connection is chosen the notice resolves, Run again starts the task, and the key the run gets is
 * never shown, in the terminal or anywhere else on the page.
 */

interface ModelServer {
  /** The OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1. */
  baseUrl: string;
  /** The Authorization header of each request to /v1/models. */
  modelRequests: string[];
  close(): Promise<void>;
}

/** Just enough of an OpenAI-compatible server for a connection's Test: GET /v1/models. */
async function startModelServer(): Promise<ModelServer> {
  const modelRequests: string[] = [];
  const server: Server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/v1/models') {
      modelRequests.push(request.headers.authorization ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data: [] }));
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: 'not found' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    modelRequests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

test('a refused run leads to its fix; the connection is made and bound on the agent’s page, the notice resolves there, and Run again runs it once with the key redacted', async ({
  console: app,
  scratchDir,
}) => {
  const { page } = app;
  const nav = page.getByRole('navigation', { name: 'Main' });
  const badge = nav.getByRole('img', { name: /open notices?$/ });
  const modelServer = await startModelServer();
  const key = `sk-test-e2e-${randomBytes(12).toString('hex')}`;
  // What the console shows instead of the key: the provider and its last four characters.
  const hint = `Custom (OpenAI-compatible) …${key.slice(-4)}`;

  try {
    await addProject(page, makeRepository(path.join(scratchDir, 'checkout-service')));
    await addSandboxedFixtureAgent(page, 'Sandboxed fixture', ['--json-events', '--lines', '5', '--print-env', 'OPENAI_API_KEY']);
    await addTask(page, 'Plan the refund flow');
    await expect(badge).toHaveCount(0);

    // Refused before anything started. The page leads with the fix, says the message once, and shows
    // nothing a run that never started does not have: no terminal, no confinement, no Run again.
    await runTask(page, 'Plan the refund flow', 'Sandboxed fixture');
    await expect(page.getByText('Refused', { exact: true }).first()).toBeVisible();
    const inline = page.getByRole('article', { name: 'AI connection required' });
    await expect(inline).toContainText('Choose an AI connection for Sandboxed fixture');
    await expect(page.getByText(/Choose an AI connection for Sandboxed fixture/)).toHaveCount(1);
    const fix = inline.getByRole('link', { name: 'Choose an AI connection' });
    await expect(fix).toHaveClass(/button--primary/);
    await expect(page.getByText('Nothing was started:')).toBeVisible();
    await expect(terminal(page)).toHaveCount(0);
    await expect(page.getByRole('region', { name: 'Confinement' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Run again' })).toHaveCount(0);
    const refusedRunUrl = page.url();
    await expect(nav.getByRole('img', { name: '1 open notice' })).toBeVisible();

    // The link opens the agent's page; with no connection to pick, focus is on creating one.
    await fix.click();
    await expect(page.getByRole('heading', { level: 1, name: 'Sandboxed fixture' })).toBeInViewport();
    await expect(page).toHaveURL(/#\/agents\/[^/]+\/ai-connection$/);
    const create = page.getByRole('button', { name: 'Create an AI connection' });
    await expect(create).toBeFocused();
    await expect(page.getByRole('region', { name: 'AI connection' })).toContainText('No AI connection bound');
    await expect(page.getByRole('combobox', { name: 'AI connection' })).toHaveCount(0);
    const agentUrl = page.url();

    // Made right here, for this agent, with the model server's address.
    await create.click();
    const dialog = page.getByRole('dialog', { name: 'New AI connection' });
    await expect(dialog).toContainText('For Sandboxed fixture');
    await expect(dialog.getByRole('checkbox', { name: 'Sandboxed fixture' })).toBeChecked();
    await dialog.getByLabel('Name').fill('E2E model server');
    await dialog.getByLabel('Provider').selectOption({ label: 'Custom (OpenAI-compatible)' });
    await dialog.getByLabel('API key').fill(key);
    await dialog.getByLabel('Base URL').fill(modelServer.baseUrl);
    await dialog.getByRole('button', { name: 'Create connection' }).click();
    await expect(dialog).toBeHidden();

    // Bound at once; focus back on the picker, which now has it; the notice resolved on this page.
    await expect(page.getByText('Created E2E model server: runs of Sandboxed fixture use it.')).toBeVisible();
    const picker = page.getByRole('combobox', { name: 'AI connection' });
    await expect(picker).toBeFocused();
    await expect(picker.locator('option:checked')).toHaveText(`E2E model server · ${hint}`);
    const section = page.getByRole('region', { name: 'AI connection' });
    await expect(section).toContainText(/Uses\s*E2E model server\s*Connected/);
    await expect(badge).toHaveCount(0);
    const here = page.getByRole('region', { name: 'Notices for this agent' }).getByRole('article', { name: 'AI connection required' });
    await expect(here).toContainText('Resolved');
    await expect(here).toContainText('Sandboxed fixture was given the AI connection “E2E model server”.');
    expect(page.url()).toBe(agentUrl);

    // Run again, once, from here, even when double-clicked; the new run starts and its output streams in.
    await here.getByRole('button', { name: 'Run again' }).dblclick();
    await expect(here.getByRole('button', { name: 'Run again' })).toHaveCount(0);
    await expect(here).not.toContainText('nothing new was started');
    await here.getByRole('link', { name: 'Open the new run' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Plan the refund flow' })).toBeVisible();
    expect(page.url()).not.toBe(refusedRunUrl);
    await expect(terminal(page)).toContainText('line 5 of 5', { timeout: 30_000 });
    await expect(page.getByText('Succeeded', { exact: true }).first()).toBeVisible({ timeout: 30_000 });

    // How it was confined: bubblewrap, as nobody when the console is root (CI), with its system calls filtered.
    const confinement = page.getByRole('region', { name: 'Confinement' });
    await expect(confinement.getByText('bubblewrap', { exact: true })).toBeVisible();
    await expect(confinement).toContainText(process.getuid?.() === 0 ? 'nobody (uid 65534): the console runs as root' : 'You, inside the sandbox');
    await expect(confinement).toContainText('Filtered (no new namespaces, mounts, ptrace, keyrings, bpf, kernel modules)');

    // The run got the key, and printed it: the terminal shows it redacted, and the page never has it.
    await expect(terminal(page)).toContainText('OPENAI_API_KEY=[redacted]');
    await expect(terminal(page)).not.toContainText(key);
    expect(await page.content()).not.toContain(key);

    // The refused run's notice reads in the past tense now, with the run it started.
    await page.goto(refusedRunUrl);
    const settled = page.getByRole('article', { name: 'AI connection required' });
    await expect(settled).toContainText('Resolved');
    await expect(settled).toContainText('was given the AI connection “E2E model server”');
    await expect(settled.getByRole('link', { name: 'Open the new run' })).toBeVisible();
    await expect(settled.getByRole('link', { name: 'Choose an AI connection' })).toHaveCount(0);

    // Settings lists it, made for this agent only, and its Test reaches the model server with the key.
    await nav.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'AI connections' }).click();
    await expect(page.getByText(/AES-256-GCM/)).toBeVisible();
    const connection = page.getByRole('list', { name: 'AI connections' }).getByRole('listitem').filter({ hasText: 'E2E model server' });
    await expect(connection).toContainText(hint);
    await expect(connection).toContainText('Sandboxed fixture');
    await connection.getByRole('button', { name: 'Test E2E model server' }).click();
    await expect(connection.getByText(/the key was accepted and 0 models are available/)).toBeVisible();
    expect(modelServer.modelRequests).toEqual([`Bearer ${key}`]);
  } finally {
    await modelServer.close();
  }
});

test('an operator dismisses a notice they will not act on: the badge goes, the run stays refused, and the notice is kept under the closed ones', async ({
  console: app,
  scratchDir,
}) => {
  const { page } = app;
  const nav = page.getByRole('navigation', { name: 'Main' });
  await addProject(page, makeRepository(path.join(scratchDir, 'ledger-service')));
  await addSandboxedFixtureAgent(page, 'Unbound fixture', ['--lines', '1']);
  await addTask(page, 'Rotate the ledger keys');
  await runTask(page, 'Rotate the ledger keys', 'Unbound fixture');
  await expect(page.getByText('Refused', { exact: true }).first()).toBeVisible();
  await expect(nav.getByRole('img', { name: '1 open notice' })).toBeVisible();

  await nav.getByRole('link', { name: /^Notices/ }).click();
  const notice = page.getByRole('article', { name: 'AI connection required' });
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notice).toHaveCount(0);
  await expect(page.getByText('No notices — nothing needs your attention.')).toBeVisible();
  await expect(nav.getByRole('img', { name: /open notices?$/ })).toHaveCount(0);

  await page.getByLabel('Show resolved and dismissed').check();
  await expect(notice).toContainText('Dismissed');
  await expect(notice).toContainText('Rotate the ledger keys');
  await expect(notice.getByRole('button', { name: 'Dismiss' })).toHaveCount(0);
  await expect(notice.getByRole('button', { name: 'Run again' })).toHaveCount(0);

  // It stays dismissed across a reload: the ledger has it, not the page.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Notices' })).toBeVisible();
  await expect(nav.getByRole('img', { name: /open notices?$/ })).toHaveCount(0);
});

test('an operator edits a connection without retyping its key, replaces the key, and deletes the connection', async ({ console: app }) => {
  const { page } = app;
  const key = `sk-test-e2e-${randomBytes(12).toString('hex')}`;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('link', { name: 'AI connections' }).click();
  await expect(page.getByText('No AI connections yet')).toBeVisible();

  await page.getByRole('button', { name: 'New connection' }).click();
  const create = page.getByRole('dialog', { name: 'New AI connection' });
  // Nothing filled in: each problem is named at its field, and nothing is sent.
  await create.getByRole('button', { name: 'Create connection' }).click();
  await expect(create.getByLabel('Name')).toBeFocused();
  await expect(create.getByText('Give the connection a name.')).toBeVisible();
  await expect(create.getByText('Enter the API key.')).toBeVisible();
  await create.getByLabel('Name').fill('Work OpenAI');
  await create.getByLabel('API key').fill(key);
  await create.getByRole('radio', { name: 'Shared' }).check();
  await create.getByRole('button', { name: 'Create connection' }).click();
  await expect(create).toBeHidden();

  const list = page.getByRole('list', { name: 'AI connections' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  const row = list.getByRole('listitem').first();
  await expect(row).toContainText(`OpenAI …${key.slice(-4)}`);
  await expect(row).toContainText('Shared');
  await row.getByRole('button', { name: 'Test Work OpenAI' }).click();
  await expect(row.getByText(/The key looks like an? OpenAI key/)).toBeVisible();

  // Edit: the key field starts empty, and empty keeps the stored key.
  await row.getByRole('button', { name: 'Edit Work OpenAI' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Work OpenAI' });
  await expect(edit.getByLabel('API key')).toHaveValue('');
  await expect(edit.getByText(/Leave empty to keep the stored API key/)).toBeVisible();
  await edit.getByLabel('Name').fill('Team OpenAI');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toBeHidden();
  await expect(row).toContainText('Team OpenAI');
  await expect(row).toContainText(`OpenAI …${key.slice(-4)}`);

  // A new key that is not an OpenAI key: its Test says so, and the connection needs attention.
  await row.getByRole('button', { name: 'Edit Team OpenAI' }).click();
  await page.getByRole('dialog', { name: 'Edit Team OpenAI' }).getByLabel('API key').fill('not-a-key-9z9z');
  await page.getByRole('dialog', { name: 'Edit Team OpenAI' }).getByRole('button', { name: 'Save changes' }).click();
  await expect(row).toContainText('OpenAI …9z9z');
  await row.getByRole('button', { name: 'Test Team OpenAI' }).click();
  await expect(row.getByText('Failed', { exact: true })).toBeVisible();
  await expect(row.getByText('Needs attention', { exact: true })).toBeVisible();

  await row.getByRole('button', { name: 'Delete Team OpenAI' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Delete AI connection' });
  await expect(confirm).toContainText('Delete Team OpenAI?');
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('No AI connections yet')).toBeVisible();
  expect(await page.content()).not.toContain(key);
});
