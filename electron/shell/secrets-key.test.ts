import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it, vi } from 'vitest';
import { appKeyFileName, keyFileName } from '../connections/secret-vault';
import { createMemoryLogger } from '../platform/log';
import { startConsoleService, type RunningService } from '../service/console-service';
import { connectToService, type ServiceConnection } from '../service/service-client';
import { fixtureAgentPath } from '../testing/output-test-kit';
import { gitInit } from '../testing/run-test-kit';
import { handSecretsKeyToService, type SecretsSealer } from './secrets-key';

/**
 * Desktop secrets in the console service, against a real service, ledger and run: the desktop app
 * hands the service its key (safeStorage stands in as an AES sealer with a key of the test's own,
 * the OS keychain's part), secrets sealed by safeStorage before the service existed are sealed again
 * with it, and a service no app has unlocked refuses a run that needs such a secret, up front.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The OS keychain's part: what it seals only it opens (its key lives in this test, not on disk). */
function standInSealer(): SecretsSealer {
  const keychain = randomBytes(32);
  return {
    isEncryptionAvailable: () => true,
    encryptString: (plain) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keychain, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptString: (sealed) => {
      const decipher = createDecipheriv('aes-256-gcm', keychain, sealed.subarray(0, 12));
      decipher.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

const apiKey = 'sk-test-DESKTOPKEY-9a8b7c6d5e4f3a2b1c0d';
const variableSecret = 'deploy-token-5f4e3d2c1b0a';

it('lets the desktop app unlock its secrets in the service, seals its old keychain secrets again, and refuses a run up front while no app has unlocked them', async () => {
  const dataDir = tempDir('oc-secrets-data-');
  const renderer = tempDir('oc-secrets-renderer-');
  writeFileSync(path.join(renderer, 'index.html'), '<!doctype html>');
  const project = tempDir('oc-secrets-project-');
  gitInit(project);
  const logs: Array<ReturnType<typeof createMemoryLogger>> = [];
  const start = async (): Promise<RunningService> => {
    const log = createMemoryLogger();
    logs.push(log);
    const service = await startConsoleService(['--data-dir', dataDir], { log, env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer }, idleExitMs: 0 });
    cleanups.push(() => service.stop());
    return service;
  };
  const attach = async (service: RunningService, client: 'desktop-app' | 'node-client'): Promise<ServiceConnection> => {
    const connection = await connectToService(service.socket.socketPath, { client });
    cleanups.push(() => connection.close());
    return connection;
  };

  // A desktop operator's data directory from before the service: an agent whose isolated home needs
  // its AI connection, and the connection's key sealed by safeStorage in the OS keychain.
  let service = await start();
  let client = await attach(service, 'node-client');
  const projectId = (await client.call('addProject', { path: project })).id;
  const agent = await client.call('createAgent', { name: 'Desktop Codex', providerId: 'codex', model: 'gpt-5.5', profileId: 'default', executablePath: fixtureAgentPath, homeMode: 'isolated' });
  const connection = await client.call('createConnection', { name: 'Desktop OpenAI', provider: 'openai', method: 'api_key', secret: apiKey, ownership: 'personal', agentScope: 'all' });
  await client.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
  // A secret variable on the agent, sealed the same way: every secret the app sealed comes back.
  await client.call('setLayerVariables', { layer: 'agent', ownerId: agent.id, variables: [{ name: 'DEPLOY_TOKEN', secret: true, value: variableSecret }] });
  const task = await client.call('createTask', { projectId, title: 'Needs the key', prompt: 'Go' });
  await client.close();
  await service.stop();
  const sealer = standInSealer();
  const ledger = new Database(path.join(dataDir, 'ledger.sqlite'));
  ledger.prepare('UPDATE ai_connections SET secret_ref = ? WHERE id = ?').run(`electron-safe-storage:${sealer.encryptString(apiKey).toString('base64')}`, connection.id);
  ledger.prepare("UPDATE layer_variables SET sealed_value = ? WHERE name = 'DEPLOY_TOKEN'").run(`electron-safe-storage:${sealer.encryptString(variableSecret).toString('base64')}`);
  ledger.close();
  unlinkSync(path.join(dataDir, keyFileName));
  const sealedSecrets = () => {
    const db = new Database(path.join(dataDir, 'ledger.sqlite'), { readonly: true });
    try {
      return [
        (db.prepare('SELECT secret_ref FROM ai_connections WHERE id = ?').get(connection.id) as { secret_ref: string }).secret_ref,
        (db.prepare("SELECT sealed_value FROM layer_variables WHERE name = 'DEPLOY_TOKEN'").get() as { sealed_value: string }).sealed_value,
      ];
    } finally {
      db.close();
    }
  };
  const runToEnd = async (on: ServiceConnection) => {
    const run = await on.call('startRun', { taskId: task.id, agentId: agent.id });
    if (run.status === 'refused') return on.call('getRun', { runId: run.id });
    await vi.waitFor(async () => expect(['succeeded', 'failed', 'stranded', 'cancelled']).toContain((await on.call('getRun', { runId: run.id })).status), { timeout: 20_000, interval: 100 });
    return on.call('getRun', { runId: run.id });
  };

  // The service started by `npm run serve`: no app has unlocked the key. Refused up front, saying what to do.
  service = await start();
  client = await attach(service, 'node-client');
  const locked = await runToEnd(client);
  expect(locked.status).toBe('refused');
  expect(locked.failure).toMatchObject({ code: 'configuration_incomplete', reason: 'ai_connection_required' });
  expect(locked.failure?.message).toContain(
    'The key of its AI connection “Desktop OpenAI” cannot be read now. It was saved by the desktop app, which keeps it locked in the OS keychain: open the Operator Console desktop app on this data directory (it unlocks the key for the console service), or enter the key again in Settings → AI connections.',
  );
  expect(locked.attempts).toEqual([]);
  expect(locked.notice).toMatchObject({ title: 'AI connection required' });
  // Only the desktop app hands over secrets.
  await expect(client.unlockSecrets(randomBytes(32))).rejects.toMatchObject({ code: 'forbidden_sender' });

  // The desktop app attaches: it hands over its key, and its old keychain secret is sealed again with it.
  const app = await attach(service, 'desktop-app');
  expect(await handSecretsKeyToService({ connection: app, dataDir, sealer, log: createMemoryLogger() })).toEqual({ handed: true, resealed: 2, unreadable: 0 });
  for (const sealed of sealedSecrets()) expect(sealed).toMatch(/^app-key-aes-256-gcm:/);
  // The notice of the refused run: its cause is gone, so it offers Run again.
  await vi.waitFor(async () => expect((await client.call('listNotices', { runId: locked.id }))[0]).toMatchObject({ status: 'resolved', canRunAgain: true }), { timeout: 5_000 });
  expect(JSON.stringify(sealedSecrets())).not.toContain(apiKey);
  const keyFile = path.join(dataDir, appKeyFileName);
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  const handedKey = sealer.decryptString(readFileSync(keyFile));
  // Sealed by the keychain: the file alone does not give the key away.
  expect(readFileSync(keyFile).toString('latin1')).not.toContain(handedKey);
  const unlocked = await runToEnd(client);
  expect(unlocked.failure?.reason).toBeUndefined();
  expect(unlocked.status).toBe('succeeded');
  await app.close();
  await client.close();
  await service.stop();

  // Restarted with no app: the key was in the service's memory only.
  service = await start();
  client = await attach(service, 'node-client');
  const lockedAgain = await runToEnd(client);
  expect(lockedAgain.failure?.message).toContain('open the Operator Console desktop app');
  const again = await attach(service, 'desktop-app');
  expect(await handSecretsKeyToService({ connection: again, dataDir, sealer, log: createMemoryLogger() })).toEqual({ handed: true, resealed: 0, unreadable: 0 });
  await vi.waitFor(async () => expect((await client.call('listNotices', { runId: lockedAgain.id }))[0]).toMatchObject({ status: 'resolved', canRunAgain: true }), { timeout: 5_000 });
  expect((await runToEnd(client)).status).toBe('succeeded');

  // Neither the key nor the secret reached a log.
  for (const log of logs) {
    const text = JSON.stringify(log.lines);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(variableSecret);
    expect(text).not.toContain(handedKey);
  }
}, 90_000);


it('says so in the secrets settings when the desktop app’s safeStorage has no keyring (Linux basic_text), instead of claiming the OS keychain', async () => {
  const dataDir = tempDir('oc-secrets-data-');
  const renderer = tempDir('oc-secrets-renderer-');
  writeFileSync(path.join(renderer, 'index.html'), '<!doctype html>');
  const service = await startConsoleService(['--data-dir', dataDir], { log: createMemoryLogger(), env: { OPERATOR_CONSOLE_RENDERER_DIR: renderer }, idleExitMs: 0 });
  cleanups.push(() => service.stop());
  const attach = async (client: 'desktop-app' | 'node-client') => {
    const connection = await connectToService(service.socket.socketPath, { client });
    cleanups.push(() => connection.close());
    return connection;
  };
  const settings = await attach('node-client');
  const app = await attach('desktop-app');
  const withKeyring = standInSealer();
  await handSecretsKeyToService({ connection: app, dataDir, sealer: { ...withKeyring, getSelectedStorageBackend: () => 'gnome_libsecret' }, log: createMemoryLogger() });
  expect(await settings.call('getVaultInfo', {})).toMatchObject({ kind: 'app-key-aes-256-gcm', protects: true, description: expect.stringContaining('OS keychain') });
  expect((await settings.call('getVaultInfo', {})).warning).toBeUndefined();

  // Another start of the app, on a desktop without a keyring: the same key, sealed by a public password.
  const again = await attach('desktop-app');
  await handSecretsKeyToService({ connection: again, dataDir, sealer: { ...withKeyring, getSelectedStorageBackend: () => 'basic_text' }, log: createMemoryLogger() });
  const info = await settings.call('getVaultInfo', {});
  expect(info).toMatchObject({ kind: 'app-key-aes-256-gcm', protects: false, warning: expect.stringMatching(/basic_text.*publicly known password/) });
  expect(info.description).not.toContain('OS keychain');
}, 30_000);
