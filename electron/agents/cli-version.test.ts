import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelInput, ChannelName } from '../../shared/contract';
import { createCore, type Core } from '../core';
import { createMemoryLogger } from '../platform/log';
import { callCore } from '../testing/core-call';
import { makeTempDir } from '../testing/temp-dir';
import { parseProviderCatalog } from '../providers/catalog';
import { CliVersionService } from './cli-version';

/**
 * getAgentCliVersion: the agent's CLI run with --version through the core's channel, with stand-in
 * CLIs (shell scripts) that print a version, print nothing, hang, or record the environment they got.
 */

const plantedKey = 'sk-operator-planted-4f1c9a2b7d3e8a6c0b5e';

const catalog = {
  version: 2,
  providers: [
    {
      id: 'codex',
      definition: 'codex',
      connectionProviders: ['openai'],
      models: [{ id: 'gpt-5.5', label: 'GPT-5.5' }],
      profiles: [{ id: 'default', label: 'Default', env: { PROFILE_SWITCH: 'on' } }],
    },
    {
      id: 'command',
      definition: 'command',
      connectionProviders: ['openai'],
      profiles: [{ id: 'shell', label: 'Shell', executable: '/bin/sh', argsTemplate: ['-c', '{taskPrompt}'] }],
    },
  ],
};

const temps: Array<{ remove(): void }> = [];
const cores: Core[] = [];

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  for (const temp of temps.splice(0)) temp.remove();
});

function bed() {
  const data = makeTempDir('oc-version-data-');
  const home = makeTempDir('oc-version-home-');
  const bin = makeTempDir('oc-version-bin-');
  temps.push(data, home, bin);
  const catalogPath = path.join(data.path, 'catalog.json');
  writeFileSync(catalogPath, JSON.stringify(catalog));
  const core = createCore({
    dataDir: data.path,
    transport: 'browser',
    appVersion: 'test',
    log: createMemoryLogger(),
    catalogPath,
    operatorHome: home.path,
    operatorEnv: { PATH: `${bin.path}:/usr/bin:/bin`, HOME: home.path, OPENAI_API_KEY: plantedKey, CODEX_API_KEY: plantedKey },
  });
  cores.push(core);
  const call = <C extends ChannelName>(channel: C, input?: ChannelInput<C>) => callCore(core, channel, input);
  const script = (name: string, body: string) => {
    const file = path.join(bin.path, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };
  let agents = 0;
  const agent = (extra: Partial<ChannelInput<'createAgent'>>) =>
    call('createAgent', { name: `agent ${++agents}`, providerId: 'codex', model: 'gpt-5.5', profileId: 'default', ...extra });
  return { call, script, agent, home: home.path, bin: bin.path };
}

describe('getAgentCliVersion', () => {
  it('reads the version the CLI prints and compares it with the catalog’s testedVersion', async () => {
    const b = bed();
    b.script('codex', 'echo "codex-cli 0.171.0"');
    const same = await b.agent({});
    expect(await b.call('getAgentCliVersion', { agentId: same.id })).toEqual({
      version: '0.171.0',
      testedVersion: '0.171.0',
      message: 'Codex CLI 0.171.0: the version the console was tested with.',
    });

    const newer = await b.agent({ executablePath: b.script('codex-next', 'echo "codex-cli 0.172.3" >&2') });
    const answer = await b.call('getAgentCliVersion', { agentId: newer.id });
    expect(answer).toMatchObject({ version: '0.172.3', testedVersion: '0.171.0' });
    expect(answer.message).toContain('newer than the version the console was tested with (0.171.0)');
  });

  it('runs it confined: no operator secrets, a throwaway HOME and provider home, the profile’s env', async () => {
    const b = bed();
    const record = path.join(b.bin, 'env.txt');
    const agent = await b.agent({ executablePath: b.script('codex-env', `env > "${record}"; echo "$HOME" > "${record}.home"; touch "$HOME/written-by-cli"; echo 0.171.0`) });
    expect((await b.call('getAgentCliVersion', { agentId: agent.id })).version).toBe('0.171.0');
    const env = readFileSync(record, 'utf8');
    expect(env).not.toContain(plantedKey);
    expect(env).toContain('PROFILE_SWITCH=on');
    expect(env).toMatch(/^CODEX_HOME=.*operator-console-version-.*\/cache\/codex-home$/m);
    const childHome = readFileSync(`${record}.home`, 'utf8').trim();
    expect(childHome).not.toBe(b.home);
    // The scratch home is gone, and nothing was written into the operator's home.
    expect(existsSync(childHome)).toBe(false);
    expect(existsSync(path.join(b.home, 'written-by-cli'))).toBe(false);
  });

  it('says what went wrong: not found, no version printed, no answer in time; a command is not asked', async () => {
    const b = bed();
    const missing = await b.agent({ executablePath: path.join(b.bin, 'no-such-codex') });
    expect(await b.call('getAgentCliVersion', { agentId: missing.id })).toMatchObject({
      version: null,
      testedVersion: '0.171.0',
      message: expect.stringContaining('Codex CLI was not found.'),
    });

    const silent = await b.agent({ executablePath: b.script('codex-silent', 'echo "unknown option --version"; exit 2') });
    expect((await b.call('getAgentCliVersion', { agentId: silent.id })).message).toContain('printed no version for `--version`');

    const command = await b.call('createAgent', { name: 'shell', providerId: 'command', model: 'x', profileId: 'shell' });
    expect(await b.call('getAgentCliVersion', { agentId: command.id })).toMatchObject({ version: null, testedVersion: null });
  });

  it('stops a CLI that does not answer within the bound, and its whole process group', async () => {
    const bin = makeTempDir('oc-version-hang-');
    temps.push(bin);
    const marker = path.join(bin.path, 'still-running');
    const hang = path.join(bin.path, 'codex-hang');
    // The child it leaves behind would write the marker if it outlived the bound.
    writeFileSync(hang, `#!/bin/sh\n(sleep 1; touch "${marker}") &\nsleep 30\n`);
    chmodSync(hang, 0o755);
    const service = new CliVersionService({ catalog: parseProviderCatalog(catalog), operatorEnv: { PATH: '/usr/bin:/bin' }, log: createMemoryLogger(), timeoutMs: 300 });
    const agent = {
      id: 'agt_hang',
      name: 'hang',
      providerId: 'codex',
      model: 'gpt-5.5',
      profileId: 'default',
      capacity: 1,
      homeMode: 'isolated' as const,
      environmentId: 'env_local',
      connectionId: null,
      executablePath: hang,
      commandArgs: null,
      createdAt: new Date().toISOString(),
    };
    const started = Date.now();
    const answer = await service.forAgent(agent);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(answer).toMatchObject({ version: null, message: expect.stringContaining('did not answer `--version`') });
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(existsSync(marker)).toBe(false);
  });
});
