import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { ChannelInput } from '../../shared/contract';
import { KeyFileVault, type SecretVault } from '../connections/secret-vault';
import type { TestModelServer } from './model-server';
import { openRunTestBed, type RunTestBed, type RunTestBedOptions } from './run-test-kit';

/**
 * The AI-connection tests' bed (electron/connections/ai-connection*.test.ts): a run test bed whose
 * vault counts decrypts, a connection with a fixture key, and the checks that a refused run started
 * nothing.
 */

export const key = 'sk-test-FIXTUREKEY-4f1c9a2b7d3e8a6c0b5e';

export interface Bed extends RunTestBed {
  decrypts(): number;
}

/** What a test opened, closed after it by closeConnectionBeds (a test that closes one itself takes it out). */
export const beds: RunTestBed[] = [];
export const servers: TestModelServer[] = [];
export const temps: Array<{ remove(): void }> = [];

/** A run test bed whose vault counts its decrypts. */
export async function bed(options: Pick<RunTestBedOptions, 'dataDir' | 'now'> = {}): Promise<Bed> {
  let decrypts = 0;
  // The real key-file vault, counting every decrypt: a refused run must cause none.
  const counting = (dataDir: string): SecretVault => {
    const inner = new KeyFileVault(dataDir);
    return {
      kind: inner.kind,
      protects: inner.protects,
      get warning() {
        return inner.warning;
      },
      get description() {
        return inner.description;
      },
      encrypt: (plain) => inner.encrypt(plain),
      decrypt: (sealed) => {
        decrypts += 1;
        return inner.decrypt(sealed);
      },
    };
  };
  const opened = await openRunTestBed({ ...options, vault: counting });
  beds.push(opened);
  return Object.assign(opened, { decrypts: () => decrypts });
}

/** For afterEach: closes every bed and server a test opened and removes its temporary folders. */
export async function closeConnectionBeds(): Promise<void> {
  for (const opened of beds.splice(0)) await opened.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  temps.splice(0).forEach((temp) => temp.remove());
}

export const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);
export const sandboxed = { environmentId: 'env_sandboxed', homeMode: 'isolated' } as const;

export function outputText(b: RunTestBed, runId: string): string {
  const total = b.core.ledger.output.totalBytes(runId);
  return new TextDecoder().decode(b.core.ledger.output.read(runId, 0, total).bytes);
}

export function codexAgent(b: RunTestBed, name: string, profileId: string, extra: Partial<ChannelInput<'createAgent'>> = {}) {
  return b.call('createAgent', { name, providerId: 'fixture-codex', model: 'model-a', profileId, ...extra });
}

export function createConnection(b: RunTestBed, extra: Partial<ChannelInput<'createConnection'>> = {}) {
  return b.call('createConnection', {
    name: 'Fixture OpenAI',
    provider: 'openai',
    method: 'api_key',
    secret: key,
    ownership: 'shared',
    agentScope: 'all',
    ...extra,
  });
}

/** Nothing of the run was started: no task root, no worktree, no decrypted secret, no process. */
export async function expectNothingStarted(b: Bed, runId: string, decryptsBefore: number) {
  expect(existsSync(path.join(b.dataDir, 'tasks', runId)), 'task root').toBe(false);
  const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: b.projectDir, encoding: 'utf8' });
  expect(worktrees, 'worktree').not.toContain(runId);
  expect(b.decrypts(), 'decrypted secrets').toBe(decryptsBefore);
  const detail = await b.call('getRun', { runId });
  expect(detail.attempts, 'attempts').toEqual([]);
  expect(detail.locators, 'process locator').toEqual([]);
  expect(detail.taskRoot).toBeNull();
}

/** The delivered files of a fixture-codex run's isolated home. */
export function codexHome(b: RunTestBed, runId: string) {
  const root = path.join(b.dataDir, 'tasks', runId);
  const home = path.join(root, 'cache', 'codex-home');
  const delivered = path.join(root, 'delivered');
  return {
    home,
    auth: path.join(home, 'auth.json'),
    config: path.join(home, 'config.toml'),
    delivered: { auth: path.join(delivered, 'auth.json'), config: path.join(delivered, 'config.toml') },
  };
}

