import { appendFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { startSshTestServer, type SshTestServer } from '../../electron/testing/ssh-test-server';
import { test as consoleTest, expect } from '../console-test';

/** Steps an operator takes to run agents on the test sshd (hosts.spec.ts shows the first visit to each page). */

/**
 * The console with a real sshd on 127.0.0.1 (its own host key, another user account as the remote):
 * the console's system ssh gets the operator's config naming it and a test agent.
 */
export const hostTest = consoleTest.extend<{ sshServer: SshTestServer }>({
  sshServer: async ({}, use) => {
    const server = await startSshTestServer();
    await use(server);
    await server.stop();
  },
  consoleEnv: async ({ sshServer }, use) => {
    await use({ OPERATOR_CONSOLE_SSH_CONFIG: sshServer.configFile, SSH_AUTH_SOCK: sshServer.env.SSH_AUTH_SOCK });
  },
});

/** Settings → Hosts → Add host for the test server, whose key the operator's own known_hosts already holds; Test host passes. */
export async function addTrustedHost(page: Page, server: SshTestServer) {
  appendFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('link', { name: 'Hosts' }).click();
  await page.getByRole('button', { name: 'Add host' }).click();
  const add = page.getByRole('dialog', { name: 'Add host' });
  await add.getByLabel('Host').fill(server.alias);
  await add.getByRole('button', { name: 'Add host' }).click();
  await expect(page.getByRole('list', { name: 'Hosts' }).getByRole('listitem').filter({ hasText: server.alias })).toContainText('Ready', { timeout: 60_000 });
}

/** The test server added and trusted (addTrustedHost); then a sandboxed environment `environment` on it with no network. */
export async function addReadyHostEnvironment(page: Page, server: SshTestServer, environment: string) {
  await addTrustedHost(page, server);
  await page.getByRole('link', { name: 'Environments' }).click();
  await page.getByRole('button', { name: 'New environment' }).click();
  const create = page.getByRole('dialog', { name: 'New environment' });
  await create.getByLabel('Name').fill(environment);
  await create.getByLabel('SSH host').selectOption({ label: server.alias });
  await expect(create.getByRole('radio', { name: 'OS sandbox' })).toBeChecked();
  await create.getByRole('radio', { name: 'None' }).last().check();
  await create.getByRole('button', { name: 'Create environment' }).click();
  await expect(create).toBeHidden();
}
