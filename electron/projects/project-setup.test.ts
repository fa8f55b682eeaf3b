import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyFileVault, SecretKeeper } from '../connections/secret-vault';
import { ProjectSetupService } from './project-setup-service';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const bed of beds.splice(0)) await bed.close();
});

async function open() {
  const bed = await openRunTestBed();
  beds.push(bed);
  return bed;
}

/** The request's refusal (code and message), through the same dispatcher both transports use. */
async function refusal(bed: RunTestBed, channel: string, input: unknown) {
  const answer = await bed.core.dispatch(channel, input, { transport: 'browser' });
  if (answer.ok) throw new Error(`${channel} was accepted`);
  return answer.error;
}

const secretValue = 'db-password-7f3a9c2e1b';

describe('a project’s setup settings', () => {
  it('keep the files to copy and the setup command, and refuse patterns that leave the project or name .git', async () => {
    const bed = await open();
    expect(await bed.call('getProjectSetup', { projectId: bed.projectId })).toEqual({ projectId: bed.projectId, copyPatterns: [], setupCommand: null });
    const saved = await bed.call('updateProjectSetup', { projectId: bed.projectId, copyPatterns: ['.env', ' config/*.local.json ', '.env'], setupCommand: '  npm ci  ' });
    expect(saved).toEqual({ projectId: bed.projectId, copyPatterns: ['.env', 'config/*.local.json'], setupCommand: 'npm ci' });
    expect(await bed.call('updateProjectSetup', { projectId: bed.projectId, setupCommand: '   ' })).toMatchObject({ setupCommand: null, copyPatterns: ['.env', 'config/*.local.json'] });

    for (const [pattern, words] of [
      ['../secrets/.env', 'inside the project folder'],
      ['/etc/passwd', 'relative to the project folder'],
      ['.git/hooks/*', '.git path'],
      ['**', 'whole project'],
    ] as const) {
      const error = await refusal(bed, 'updateProjectSetup', { projectId: bed.projectId, copyPatterns: [pattern] });
      expect(error.code, pattern).toBe('invalid_request');
      expect(error.message, pattern).toContain(words);
    }
    expect((await bed.call('getProjectSetup', { projectId: bed.projectId })).copyPatterns).toEqual(['.env', 'config/*.local.json']);
  });
});

describe('variable layers', () => {
  it('refuse a variable the console sets itself, saying which and why', async () => {
    const bed = await open();
    const agent = await bed.createAgent(['--lines', '1']);
    const task = await bed.createTask();
    for (const [layer, ownerId, words] of [
      ['project', bed.projectId, 'a project variable'],
      ['agent', agent.id, 'an agent variable'],
      ['task', task.id, 'a task override'],
    ] as const) {
      const error = await refusal(bed, 'setLayerVariables', { layer, ownerId, variables: [{ name: 'NODE_ENV', secret: false, value: 'test' }, { name: 'HOME', secret: false, value: '/root' }] });
      expect(error).toMatchObject({ code: 'reserved_variable', reason: 'HOME' });
      expect(error.message).toBe(`HOME is set by the console itself (the run’s home folder), so ${words} cannot set it. Remove it or use another name.`);
      // Nothing of the refused list was saved.
      expect(await bed.call('listLayerVariables', { layer, ownerId })).toEqual([]);
    }
    for (const name of ['TMPDIR', 'PWD', 'OPERATOR_CONSOLE_TASK_ROOT', 'CODEX_HOME', 'HTTPS_PROXY', 'OPENAI_API_KEY']) {
      const error = await refusal(bed, 'setLayerVariables', { layer: 'project', ownerId: bed.projectId, variables: [{ name, secret: true, value: 'x' }] });
      expect(error.code, name).toBe('reserved_variable');
      expect(error.message, name).toContain(name);
    }
    expect((await bed.call('listConsoleVariables')).map((variable: { name: string }) => variable.name)).toEqual(expect.arrayContaining(['HOME', 'TMPDIR', 'PWD', 'HTTPS_PROXY', 'CODEX_API_KEY']));
  });

  it('seal a secret value with the vault, never send it back, and keep it when it is saved again without one', async () => {
    const bed = await open();
    const owner = { layer: 'project' as const, ownerId: bed.projectId };
    const saved = await bed.call('setLayerVariables', { ...owner, variables: [{ name: 'NODE_ENV', secret: false, value: 'test' }, { name: 'DB_PASSWORD', secret: true, value: secretValue }] });
    expect(saved).toEqual([
      { name: 'NODE_ENV', secret: false, value: 'test' },
      { name: 'DB_PASSWORD', secret: true, value: null },
    ]);
    const row = bed.core.ledger.db.prepare("SELECT value, sealed_value FROM layer_variables WHERE name = 'DB_PASSWORD'").get() as { value: null; sealed_value: string };
    expect(row.value).toBeNull();
    expect(row.sealed_value).toMatch(/^aes-256-gcm-key-file:/);
    expect(row.sealed_value).not.toContain(secretValue);
    bed.core.ledger.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(bed.core.ledger.file).includes(secretValue)).toBe(false);

    // Saved again without its value (the form never has it): the stored one stays.
    await bed.call('setLayerVariables', { ...owner, variables: [{ name: 'DB_PASSWORD', secret: true }, { name: 'NODE_ENV', secret: false, value: 'production' }] });
    // A secret that was never stored cannot be kept.
    const error = await refusal(bed, 'setLayerVariables', { ...owner, variables: [{ name: 'API_SECRET', secret: true }] });
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect(error.message).toContain('API_SECRET');
    expect(await bed.call('listLayerVariables', owner)).toEqual([
      { name: 'DB_PASSWORD', secret: true, value: null },
      { name: 'NODE_ENV', secret: false, value: 'production' },
    ]);
  });

  it('merge for a run in order, project < agent < task, saying where each came from and opening secrets only then', async () => {
    const bed = await open();
    const agent = await bed.createAgent(['--lines', '1']);
    const task = await bed.createTask();
    await bed.call('setLayerVariables', {
      layer: 'project',
      ownerId: bed.projectId,
      variables: [
        { name: 'ONLY_PROJECT', secret: false, value: 'p' },
        { name: 'SHARED', secret: false, value: 'from-project' },
        { name: 'DB_PASSWORD', secret: true, value: secretValue },
      ],
    });
    await bed.call('setLayerVariables', { layer: 'agent', ownerId: agent.id, variables: [{ name: 'SHARED', secret: false, value: 'from-agent' }, { name: 'AGENT_ONLY', secret: false, value: 'a' }] });
    await bed.call('setLayerVariables', { layer: 'task', ownerId: task.id, variables: [{ name: 'SHARED', secret: false, value: 'from-task' }] });
    const keyFile = new KeyFileVault(bed.dataDir);
    const service = new ProjectSetupService(bed.core.ledger, bed.core.events, new SecretKeeper(keyFile, () => keyFile));

    const merged = service.variablesForRun({ projectId: bed.projectId, agentId: agent.id, taskId: task.id });

    expect(merged.env).toEqual({ ONLY_PROJECT: 'p', SHARED: 'from-task', DB_PASSWORD: secretValue, AGENT_ONLY: 'a' });
    expect(merged.secrets).toEqual([secretValue]);
    expect(merged.listing).toEqual([
      { name: 'ONLY_PROJECT', source: 'project', secret: false, value: 'p', overrides: [] },
      { name: 'SHARED', source: 'task', secret: false, value: 'from-task', overrides: ['project', 'agent'] },
      { name: 'DB_PASSWORD', source: 'project', secret: true, value: null, overrides: [] },
      { name: 'AGENT_ONLY', source: 'agent', secret: false, value: 'a', overrides: [] },
    ]);
  });
});
