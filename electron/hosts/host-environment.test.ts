import { afterEach, describe, expect, it } from 'vitest';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';

/**
 * An environment can name an SSH host (issue 28): its runs execute there (remote-run/remote-run.test.ts),
 * once the host passed Test host. Before that, admission refuses such a run up front with one notice
 * that says why and leads to Settings → Hosts, and nothing is started here instead. A host is not
 * removed while an environment names it. Adding a host asks only `ssh -G`, which connects to
 * nothing, so no server is needed here.
 */

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const bed of beds.splice(0)) await bed.close();
});

describe('an environment on an SSH host', () => {
  it('is stored and shown, refuses its runs with one notice while the host has not passed Test host, and keeps its host from being removed', async () => {
    const b = await openRunTestBed();
    beds.push(b);
    const host = await b.call('addHost', { name: 'build-box' });
    const env = await b.call('createEnvironment', { name: 'On the build box', kind: 'local', hostId: host.id });
    expect(env).toMatchObject({ hostId: host.id });
    expect((await b.call('listEnvironments')).find((listed) => listed.id === env.id)).toMatchObject({ hostId: host.id });
    expect((await b.call('listHosts'))[0]).toMatchObject({ id: host.id, environmentIds: [env.id] });
    await expect(b.call('createEnvironment', { name: 'Nowhere', hostId: 'hst_gone' })).rejects.toMatchObject({ code: 'invalid_request', reason: 'host_missing' });

    // The agent's Test says it, and a run is refused with nothing started: no attempt, no task root.
    const agent = await b.createAgent(['--lines', '1'], { environmentId: env.id });
    expect((await b.call('getAgent', { agentId: agent.id })).verification).toMatchObject({ state: 'refused', reason: 'host_unready' });
    const task = await b.createTask();
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(run.status).toBe('refused');
    const refused = await b.call('getRun', { runId: run.id });
    expect(refused.attempts).toEqual([]);
    const notices = (await b.call('listNotices', { status: 'open' })).filter((notice) => notice.reason === 'host_unready');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      title: 'SSH host not ready for this run',
      message: expect.stringContaining('runs on build-box, which has not passed Test host. Nothing was started.'),
      actionUrl: '#/settings/hosts',
      actionLabel: 'Open Settings → Hosts',
    });

    await expect(b.call('removeHost', { hostId: host.id })).rejects.toMatchObject({ code: 'conflict', reason: 'host_in_use', message: expect.stringContaining('On the build box') });

    // Back on this machine: the notice resolves and the agent's runs are admitted again; the host can go.
    expect(await b.call('updateEnvironment', { environmentId: env.id, hostId: null })).toMatchObject({ hostId: null });
    expect((await b.call('getAgent', { agentId: agent.id })).verification?.state).toBe('ok');
    expect((await b.call('listNotices', { status: 'open' })).filter((notice) => notice.reason === 'host_unready')).toEqual([]);
    expect(await b.call('removeHost', { hostId: host.id })).toEqual({ hostId: host.id });
  });
});
