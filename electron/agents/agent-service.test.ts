import { afterEach, describe, expect, it } from 'vitest';
import { callCore } from '../testing/core-call';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const bed of beds.splice(0)) await bed.close();
});

async function bed(): Promise<RunTestBed> {
  const opened = await openRunTestBed();
  beds.push(opened);
  return opened;
}

describe('agent models', () => {
  it('are open: an agent may name a model the catalog does not list (a new one, a gateway’s own id)', async () => {
    const b = await bed();
    const agent = await callCore(b.core, 'createAgent', { name: 'next week', providerId: 'fixture-codex', model: 'gpt-7-preview-2031', profileId: 'default' });
    expect(agent.model).toBe('gpt-7-preview-2031');
    const updated = await callCore(b.core, 'updateAgent', { agentId: agent.id, model: 'Qwen/Qwen3-Coder-480B:fp8' });
    expect(updated.model).toBe('Qwen/Qwen3-Coder-480B:fp8');
    // The catalog's list is what the picker suggests.
    const { providers } = await callCore(b.core, 'getCatalog');
    expect(providers.find((provider) => provider.id === 'fixture-codex')?.models.map((model) => model.id)).toEqual(['model-a', 'model-b']);
  });

  it('refuses a model a CLI would read as a flag or split in two, saying why', async () => {
    const b = await bed();
    await expect(b.call('createAgent', { name: 'flag', providerId: 'fixture-codex', model: '--help', profileId: 'default' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('cannot start with a dash'),
    });
    await expect(b.call('createAgent', { name: 'spaced', providerId: 'fixture-codex', model: 'gpt 5', profileId: 'default' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('no spaces'),
    });
  });
});
