import { describe, expect, it } from 'vitest';
import { channels } from '../../../shared/contract';
import type { AiConnection } from '../../../shared/entities';
import {
  connectionFormFromConnection,
  connectionFormProblems,
  createConnectionInput,
  emptyConnectionForm,
  firstProblem,
  isEmptyUpdate,
  updateConnectionInput,
  withConnectionProvider,
} from './connection-form';
import { connectionAgentsLabel, connectionOptionLabel, secretFieldLabel } from './connection-labels';

const stored: AiConnection = {
  id: 'con_1',
  name: 'Team gateway',
  provider: 'custom',
  method: 'api_key',
  baseUrl: 'http://127.0.0.1:4000/v1',
  ownership: 'shared',
  agentScope: 'chosen',
  agentIds: ['agt_1', 'agt_2'],
  status: 'connected',
  secretHint: 'Custom …9f2a',
  storage: 'aes-256-gcm-key-file',
  lastTest: null,
  updating: false,
  createdAt: '2026-11-29T10:00:00.000Z',
  updatedAt: '2026-11-29T10:00:00.000Z',
};

describe('the new connection form', () => {
  it('sends what the contract accepts, with the key trimmed and no agents for "All agents"', () => {
    const values = { ...emptyConnectionForm(), name: '  Work OpenAI ', agentIds: ['agt_1'] };
    const input = createConnectionInput(values, '  sk-test-1234567890abcdefghij  ');
    expect(input).toEqual({
      name: 'Work OpenAI',
      provider: 'openai',
      method: 'api_key',
      baseUrl: null,
      ownership: 'personal',
      agentScope: 'all',
      agentIds: [],
      secret: 'sk-test-1234567890abcdefghij',
    });
    expect(channels.createConnection.input.safeParse(input).success).toBe(true);
  });

  it('names each missing or wrong field, and the first one takes focus', () => {
    const problems = connectionFormProblems({ ...emptyConnectionForm(), provider: 'custom', agentScope: 'chosen' }, '', 'create');
    expect(problems.name).toMatch(/name/);
    expect(problems.secret).toBe('Enter the API key.');
    expect(problems.baseUrl).toMatch(/custom .*needs the base URL/);
    expect(problems.agentIds).toMatch(/at least one agent/);
    expect(firstProblem(problems)).toBe('name');
  });

  it('says a token, not a key, for a subscription token, and refuses one for a provider other than Anthropic', () => {
    expect(secretFieldLabel('subscription_token')).toBe('Token');
    const values = { ...emptyConnectionForm(), name: 'Claude', provider: 'openai' as const, method: 'subscription_token' as const };
    expect(connectionFormProblems(values, 'sk-ant-oat-xxxxxxxxxxxxxxxxxxxxxxxx', 'create').method).toMatch(/Anthropic/);
    expect(connectionFormProblems({ ...values, provider: 'anthropic' }, 'sk-ant-oat-xxxxxxxxxxxxxxxxxxxxxxxx', 'create')).toEqual({});
    expect(withConnectionProvider({ ...values, provider: 'anthropic' }, 'google').method).toBe('api_key');
    expect(withConnectionProvider({ ...values, provider: 'anthropic' }, 'anthropic').method).toBe('subscription_token');
  });

  it('refuses a base URL that is not http(s) or carries credentials, and a key with spaces', () => {
    const values = { ...emptyConnectionForm(), name: 'Local', baseUrl: 'ftp://example.test' };
    expect(connectionFormProblems(values, 'sk-a', 'create').baseUrl).toMatch(/http:\/\/ or https:\/\//);
    expect(connectionFormProblems({ ...values, baseUrl: 'http://user:pw@127.0.0.1:1/v1' }, 'sk-a', 'create').baseUrl).toBeDefined();
    expect(connectionFormProblems({ ...values, baseUrl: '' }, 'sk a', 'create').secret).toMatch(/no spaces/);
  });
});

describe('editing a connection', () => {
  it('starts from the stored connection and sends only what changed', () => {
    const values = connectionFormFromConnection(stored);
    expect(values).toMatchObject({ name: 'Team gateway', baseUrl: 'http://127.0.0.1:4000/v1', agentIds: ['agt_1', 'agt_2'], revoked: false });
    expect(isEmptyUpdate(updateConnectionInput(stored, values, ''))).toBe(true);
    // The same agents in another order are no change.
    expect(isEmptyUpdate(updateConnectionInput(stored, { ...values, agentIds: ['agt_2', 'agt_1'] }, ''))).toBe(true);
    expect(updateConnectionInput(stored, { ...values, name: 'Gateway', agentIds: ['agt_2'] }, '')).toEqual({
      connectionId: 'con_1',
      name: 'Gateway',
      agentIds: ['agt_2'],
    });
  });

  it('keeps the stored key when the key field is empty, and replaces it when one is typed', () => {
    const values = connectionFormFromConnection(stored);
    expect(updateConnectionInput(stored, values, '').secret).toBeUndefined();
    expect(connectionFormProblems(values, '', 'edit')).toEqual({});
    expect(updateConnectionInput(stored, values, 'new-key-1234').secret).toBe('new-key-1234');
  });

  it('clears the base URL, widens to all agents, and revokes', () => {
    const values = { ...connectionFormFromConnection(stored), provider: 'openai' as const, baseUrl: '', agentScope: 'all' as const, revoked: true };
    expect(updateConnectionInput(stored, values, '')).toEqual({
      connectionId: 'con_1',
      provider: 'openai',
      baseUrl: null,
      agentScope: 'all',
      revoked: true,
    });
  });
});

describe('connection labels', () => {
  const agents = [
    { id: 'agt_1', name: 'Codex sandboxed' },
    { id: 'agt_2', name: 'Claude reviewer' },
  ];

  it('names the agents that may use it', () => {
    expect(connectionAgentsLabel({ agentScope: 'all', agentIds: [] }, agents)).toBe('All agents');
    expect(connectionAgentsLabel({ agentScope: 'chosen', agentIds: ['agt_2', 'agt_1'] }, agents)).toBe('Claude reviewer, Codex sandboxed');
    expect(connectionAgentsLabel({ agentScope: 'chosen', agentIds: ['agt_1', 'agt_9'] }, agents)).toBe('Codex sandboxed, 1 other agent');
    expect(connectionAgentsLabel({ agentScope: 'chosen', agentIds: [] }, agents)).toBe('No agents chosen');
  });

  it('shows a connection in a picker by name and key hint, and says when it is not usable', () => {
    expect(connectionOptionLabel(stored)).toBe('Team gateway · Custom …9f2a');
    expect(connectionOptionLabel({ ...stored, status: 'revoked' })).toBe('Team gateway · Custom …9f2a — Revoked');
  });
});
