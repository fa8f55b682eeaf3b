import { afterEach, describe, expect, it } from 'vitest';
import { openRunTestBed, present, type RunTestBed } from '../testing/run-test-kit';

/**
 * Settings → Environments through the contract (issue 12): every request goes through the request
 * dispatcher both transports use, so its zod schemas refuse a bad entry before the core sees it.
 */

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const bed of beds.splice(0)) await bed.close();
});
async function bed() {
  const opened = await openRunTestBed();
  beds.push(opened);
  return opened;
}

describe('environments', () => {
  it('start with the built-in Local and Sandboxed, and take new ones: sandboxed, provider-only and needing a managed connection unless told otherwise', async () => {
    const b = await bed();
    expect(await b.call('listEnvironments')).toEqual([
      { id: 'env_local', name: 'Local', kind: 'local', networkMode: 'open', requiresConnection: false, allowedHosts: [], builtIn: true, hostId: null },
      { id: 'env_sandboxed', name: 'Sandboxed', kind: 'sandboxed', networkMode: 'provider-only', requiresConnection: true, allowedHosts: [], builtIn: true, hostId: null },
    ]);
    const created = await b.call('createEnvironment', { name: '  Node builds ', allowedHosts: ['Registry.NPMjs.org', 'registry.npmjs.org:443', '127.0.0.1:4873', '*.internal.example'] });
    expect(created).toMatchObject({
      name: 'Node builds',
      kind: 'sandboxed',
      networkMode: 'provider-only',
      requiresConnection: true,
      // Canonical, each once: the same host written twice is one entry.
      allowedHosts: ['registry.npmjs.org', '127.0.0.1:4873', '*.internal.example'],
      builtIn: false,
      hostId: null,
    });
    expect(created.id).toMatch(/^env_/);
    expect((await b.call('listEnvironments')).map((env: { name: string }) => env.name)).toEqual(['Local', 'Sandboxed', 'Node builds']);
  });

  it('refuse allowed hosts that are not a host or host:port, saying what is wrong, before the core sees them', async () => {
    const b = await bed();
    for (const [entry, problem] of [
      ['*', /every host/],
      ['https://registry.npmjs.org', /without http/],
      ['github.com/org', /without a path/],
      ['registry.npmjs.org:99999', /port/],
      ['*.com', /top-level domain/],
    ] as const) {
      await expect(b.call('createEnvironment', { name: `bad ${entry}`, allowedHosts: [entry] }), entry).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(problem) });
    }
    await expect(b.call('createEnvironment', { name: 'many', allowedHosts: Array.from({ length: 201 }, (_, i) => `h${i}.example.com`) })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await b.call('listEnvironments')).toHaveLength(2);
  });

  it('keep a sandboxed environment on a managed connection, and a local one honest: no network rule it cannot enforce', async () => {
    const b = await bed();
    const env = await b.call('createEnvironment', { name: 'Builds', requiresConnection: false, networkMode: 'none' });
    expect(env).toMatchObject({ kind: 'sandboxed', networkMode: 'none', requiresConnection: true });

    await expect(b.call('createEnvironment', { name: 'Local limited', kind: 'local', networkMode: 'provider-only' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('cannot limit its network'),
    });
    await expect(b.call('createEnvironment', { name: 'Local hosts', kind: 'local', allowedHosts: ['pypi.org'] })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await b.call('createEnvironment', { name: 'Mine', kind: 'local' })).toMatchObject({ kind: 'local', networkMode: 'open', requiresConnection: false, allowedHosts: [] });

    // Leaving the sandbox takes the network rules with it; coming back starts from provider-only.
    const withHosts = await b.call('updateEnvironment', { environmentId: env.id, networkMode: 'provider-only', allowedHosts: ['pypi.org'] });
    expect(withHosts.allowedHosts).toEqual(['pypi.org']);
    expect(await b.call('updateEnvironment', { environmentId: env.id, kind: 'local', requiresConnection: false })).toMatchObject({
      kind: 'local',
      networkMode: 'open',
      allowedHosts: [],
      requiresConnection: false,
    });
    // The built-ins are editable.
    expect(await b.call('updateEnvironment', { environmentId: 'env_sandboxed', allowedHosts: ['github.com'] })).toMatchObject({ allowedHosts: ['github.com'], builtIn: true });
  });

  it('refuse a second environment of the same name', async () => {
    const b = await bed();
    await b.call('createEnvironment', { name: 'Builds' });
    await expect(b.call('createEnvironment', { name: 'builds' })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('already an environment named') });
    const other = await b.call('createEnvironment', { name: 'Other' });
    await expect(b.call('updateEnvironment', { environmentId: other.id, name: 'BUILDS' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('are deleted only when no agent is in them (the refusal names the agents), and never when built in', async () => {
    const b = await bed();
    const env = await b.call('createEnvironment', { name: 'Scratch' });
    const first = await b.createAgent(['--lines', '1'], { name: 'Alpha', environmentId: env.id, homeMode: 'isolated' });
    await b.createAgent(['--lines', '1'], { name: 'Beta', environmentId: env.id, homeMode: 'isolated' });
    await expect(b.call('deleteEnvironment', { environmentId: env.id })).rejects.toMatchObject({
      code: 'conflict',
      reason: 'environment_in_use',
      message: 'Scratch is used by the agents Alpha and Beta. Move them to another environment first, then delete it.',
    });
    await b.call('updateAgent', { agentId: first.id, environmentId: 'env_local' });
    await expect(b.call('deleteEnvironment', { environmentId: env.id })).rejects.toMatchObject({ message: expect.stringContaining('the agent Beta.') });
    await b.call('deleteAgent', { agentId: present((await b.call('listAgents')).find((agent) => agent.name === 'Beta'), 'the agent Beta').id });

    expect(await b.call('deleteEnvironment', { environmentId: env.id })).toEqual({ environmentId: env.id });
    expect((await b.call('listEnvironments')).map((e: { id: string }) => e.id)).toEqual(['env_local', 'env_sandboxed']);
    // Its name is free again, and no agent can be put in it any more.
    await b.call('createEnvironment', { name: 'Scratch' });
    await expect(b.call('updateAgent', { agentId: first.id, environmentId: env.id })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(b.call('updateEnvironment', { environmentId: env.id, name: 'Back' })).rejects.toMatchObject({ code: 'not_found' });

    for (const builtIn of ['env_local', 'env_sandboxed']) {
      await expect(b.call('deleteEnvironment', { environmentId: builtIn })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('built in') });
    }
  });

  it('reach the admission of the agents in them: a local environment that starts to need a connection refuses their next run', async () => {
    const b = await bed();
    const env = await b.call('createEnvironment', { name: 'Mine', kind: 'local' });
    const agent = await b.createAgent(['--lines', '1'], { environmentId: env.id });
    expect((await b.call('getAgent', { agentId: agent.id })).verification?.state).toBe('ok');
    await b.call('updateEnvironment', { environmentId: env.id, requiresConnection: true });
    expect((await b.call('getAgent', { agentId: agent.id })).verification).toMatchObject({ state: 'refused', reason: 'ai_connection_required' });
    const task = await b.createTask();
    expect((await b.call('startRun', { taskId: task.id, agentId: agent.id })).status).toBe('refused');
  });
});
