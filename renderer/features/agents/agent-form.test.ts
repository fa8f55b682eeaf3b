import { describe, expect, it } from 'vitest';
import { channels } from '../../../shared/contract';
import type { Agent, CatalogProvider, Environment } from '../../../shared/entities';
import {
  agentFormFromAgent,
  agentFormProblems,
  createAgentInput,
  defaultAgentForm,
  parseArgumentLines,
  updateAgentInput,
  withProvider,
} from './agent-form';

const codex: CatalogProvider = {
  id: 'codex',
  displayName: 'Codex CLI',
  executable: 'codex',
  testedVersion: '0.171.0',
  homeVariable: 'CODEX_HOME',
  supportsResume: true,
  connectionProviders: ['openai'],
  models: [
    { id: 'gpt-6.2-sol', label: 'GPT-6.2-Sol' },
    { id: 'gpt-5.5', label: 'GPT-5.5' },
  ],
  profiles: [{ id: 'default', label: 'Headless', revision: 'r1', maxAttempts: 3, argsTemplate: null }],
};

const command: CatalogProvider = {
  id: 'command',
  displayName: 'Command',
  executable: null,
  testedVersion: null,
  homeVariable: null,
  supportsResume: false,
  connectionProviders: [],
  models: [],
  profiles: [{ id: 'shell', label: 'Shell command', revision: 'r2', maxAttempts: 1, argsTemplate: ['-c', '{prompt}'] }],
};

const environments: Environment[] = [
  { id: 'env_sandboxed', name: 'Sandboxed', kind: 'sandboxed', networkMode: 'provider-only', requiresConnection: true, allowedHosts: [], builtIn: true, hostId: null },
  { id: 'env_local', name: 'Local', kind: 'local', networkMode: 'open', requiresConnection: false, allowedHosts: [], builtIn: true, hostId: null },
];

describe('parseArgumentLines', () => {
  it('takes one argument per line, keeping spaces inside an argument', () => {
    expect(parseArgumentLines('--lines\n20\r\n--delay-ms\n100\n--json-events\n')).toEqual([
      '--lines',
      '20',
      '--delay-ms',
      '100',
      '--json-events',
    ]);
    expect(parseArgumentLines('  --message  \n\nhello world\n')).toEqual(['--message', 'hello world']);
    expect(parseArgumentLines('')).toEqual([]);
  });
});

describe('agent form', () => {
  it('starts a new agent on a local environment with the operator’s own login and one run at a time', () => {
    const values = defaultAgentForm([codex, command], environments);
    expect(values).toMatchObject({ providerId: 'codex', model: 'gpt-6.2-sol', profileId: 'default', capacity: '1' });
    expect(values.environmentId).toBe('env_local');
    expect(values.homeMode).toBe('preconfigured');
  });

  it('builds a command agent with its program and argument list', () => {
    const values = {
      ...withProvider(defaultAgentForm([codex, command], environments), command),
      name: 'Fixture',
      executablePath: '/work/main/e2e/fixtures/fixture-agent.mjs',
      commandArgs: '--lines\n20\n--json-events',
    };
    expect(agentFormProblems(values, command)).toEqual({});
    const input = createAgentInput(values, command);
    expect(input).toMatchObject({
      name: 'Fixture',
      providerId: 'command',
      model: 'default',
      profileId: 'shell',
      capacity: 1,
      executablePath: '/work/main/e2e/fixtures/fixture-agent.mjs',
      commandArgs: ['--lines', '20', '--json-events'],
    });
    expect(channels.createAgent.input.safeParse(input).success).toBe(true);
  });

  it('requires a name and a sensible capacity', () => {
    const values = { ...withProvider(defaultAgentForm([command], environments), command), capacity: '0' };
    const problems = agentFormProblems(values, command);
    expect(Object.keys(problems).sort()).toEqual(['capacity', 'name']);
    expect(agentFormProblems({ ...values, name: 'x', executablePath: '/bin/x', capacity: '2.5' }, command).capacity).toBeDefined();
  });

  it('switching provider picks the new provider’s model and profile and drops command arguments', () => {
    const asCommand = { ...withProvider(defaultAgentForm([codex], environments), command), commandArgs: '--x' };
    const back = withProvider(asCommand, codex);
    expect(back).toMatchObject({ providerId: 'codex', model: 'gpt-6.2-sol', profileId: 'default', commandArgs: '' });
  });

  it('sends only what an edit changed', () => {
    const agent: Agent = {
      id: 'agt_1',
      name: 'Codex',
      providerId: 'codex',
      model: 'gpt-5.5',
      profileId: 'default',
      capacity: 1,
      homeMode: 'preconfigured',
      environmentId: 'env_local',
      connectionId: null,
      executablePath: null,
      commandArgs: null,
      profileRevision: 'r1',
      createdAt: '2025-01-01T00:00:00.000Z',
    };
    const unchanged = agentFormFromAgent(agent);
    expect(updateAgentInput(agent, unchanged, codex)).toEqual({ agentId: 'agt_1' });
    const edited = { ...unchanged, capacity: '3', executablePath: '/opt/codex/bin/codex' };
    const input = updateAgentInput(agent, edited, codex);
    expect(input).toEqual({ agentId: 'agt_1', capacity: 3, executablePath: '/opt/codex/bin/codex' });
    expect(channels.updateAgent.input.safeParse(input).success).toBe(true);
  });
});
