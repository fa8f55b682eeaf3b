import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bed, closeConnectionBeds, createConnection, ended, key, outputText, servers, type Bed } from '../testing/connection-test-kit';
import { startTestModelServer } from '../testing/model-server';
import { present, timeOf } from '../testing/run-test-kit';

/**
 * An environment's network rules as a sandboxed run meets them (issue 12): real bubblewrap, the
 * real egress proxy and relay, the fixture agent asking for URLs. Every target is on 127.0.0.1: a
 * small HTTP server stands in for a package registry, another for a host nobody allowed.
 */

const registries: Registry[] = [];
afterEach(async () => {
  await closeConnectionBeds();
  await Promise.all(registries.splice(0).map((registry) => registry.close()));
});

interface Registry {
  origin: string;
  port: number;
  paths: string[];
  close(): Promise<void>;
}

/** Answers every GET with the package name it was asked for, and records each. */
async function startRegistry(name: string): Promise<Registry> {
  const paths: string[] = [];
  const server = http.createServer((request, response) => {
    paths.push(request.url ?? '');
    response.end(`${name} has ${request.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const registry = {
    origin: `http://127.0.0.1:${port}`,
    port,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  registries.push(registry);
  return registry;
}

/**
 * A sandboxed fixture agent in `environmentId`, bound to a connection whose base URL is a local model
 * server; it GETs each of `urls(model)` through the proxy variables it is given.
 */
async function agentIn(b: Bed, environmentId: string, urls: (model: string) => string[]) {
  const model = await startTestModelServer({ key });
  servers.push(model);
  const connection = await createConnection(b, { name: 'Local model', provider: 'custom', baseUrl: `${model.origin}/v1` });
  const agent = await b.createAgent(
    urls(model.origin).flatMap((url) => ['--http-get', url]),
    { environmentId, homeMode: 'isolated' },
  );
  await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
  return { agent, model };
}

async function runOnce(b: Bed, agentId: string, existingTask?: { id: string }) {
  const task = existingTask ?? (await b.createTask('Install the dependencies'));
  const started = await b.call('startRun', { taskId: task.id, agentId });
  const run = await b.waitForRun(started.id, ended, 30_000);
  expect(run.status, `${JSON.stringify(run.failure)}\n${outputText(b, run.id)}`).toBe('succeeded');
  return run;
}

async function egressOf(b: Bed, runId: string) {
  const { events } = await b.call('listRunEvents', { runId });
  return events.filter((event) => event.kind === 'egress').map((event) => event.data);
}

describe('an environment’s network', () => {
  it('None: no connection leaves the sandbox, not even to the model, and nothing reaches a proxy', async () => {
    const b = await bed();
    const registry = await startRegistry('registry');
    const offline = await b.call('createEnvironment', { name: 'Offline', networkMode: 'none' });
    const { agent, model } = await agentIn(b, offline.id, (origin) => [`${registry.origin}/left-pad`, `${origin}/v1/models`]);
    const run = await runOnce(b, agent.id);
    expect(run.confinement).toMatchObject({ environmentName: 'Offline', sandbox: 'bubblewrap', network: 'none' });
    const text = outputText(b, run.id);
    expect(text).toMatch(new RegExp(`http-get ${registry.origin}/left-pad: failed E[A-Z]+`));
    expect(text).toMatch(new RegExp(`http-get ${model.origin}/v1/models: failed E[A-Z]+`));
    expect(registry.paths).toEqual([]);
    expect(model.requests).toEqual([]);
    expect(await egressOf(b, run.id)).toEqual([]);
    // The Network panel says why it lists nothing: there was no proxy to see anything.
    expect(await b.call('listRunNetwork', { runId: run.id })).toEqual({ environmentKind: 'sandboxed', networkMode: 'none', observed: false, hosts: [], truncated: false });
  });

  it('Provider only with an allowed host: the run reaches that host (and its model), and is refused everything else', async () => {
    const b = await bed();
    const registry = await startRegistry('registry');
    const elsewhere = await startRegistry('elsewhere');
    const builds = await b.call('createEnvironment', { name: 'Node builds', allowedHosts: [`127.0.0.1:${registry.port}`] });
    const { agent, model } = await agentIn(b, builds.id, (origin) => [
      `${registry.origin}/left-pad`,
      `${elsewhere.origin}/exfiltrate`,
      `${origin}/v1/models`,
      // Retried: still one host on the Network panel, counted.
      `${elsewhere.origin}/exfiltrate`,
      `${elsewhere.origin}/exfiltrate`,
      // The allowed host's address on another port is another host.
      `http://127.0.0.1:${registry.port + 1 === elsewhere.port ? registry.port + 2 : registry.port + 1}/`,
    ]);
    const run = await runOnce(b, agent.id);
    expect(run.confinement).toMatchObject({ environmentName: 'Node builds', network: 'provider-only' });
    const text = outputText(b, run.id);
    expect(text).toContain(`http-get ${registry.origin}/left-pad: 200 registry has /left-pad`);
    expect(text).toContain(`http-get ${elsewhere.origin}/exfiltrate: 403 Operator Console egress proxy: 127.0.0.1:${elsewhere.port} is not allowed for this run.`);
    // The model's API is allowed without being listed (the request has no key, so it is refused there, not at the proxy).
    expect(text).toContain(`http-get ${model.origin}/v1/models: 401`);
    expect(registry.paths).toEqual(['/left-pad']);
    expect(elsewhere.paths).toEqual([]);
    expect(model.requests).toHaveLength(1);

    const decisions = await egressOf(b, run.id);
    const modelPort = Number(new URL(model.origin).port);
    expect(decisions).toEqual([
      { host: '127.0.0.1', port: registry.port, method: 'GET', allowed: true },
      { host: '127.0.0.1', port: elsewhere.port, method: 'GET', allowed: false },
      { host: '127.0.0.1', port: modelPort, method: 'GET', allowed: true },
      { host: '127.0.0.1', port: elsewhere.port, method: 'GET', allowed: false },
      { host: '127.0.0.1', port: elsewhere.port, method: 'GET', allowed: false },
      expect.objectContaining({ allowed: false }),
    ]);
    const network = await b.call('listRunNetwork', { runId: run.id });
    expect(network).toMatchObject({ environmentKind: 'sandboxed', networkMode: 'provider-only', observed: true, truncated: false });
    const row = (port: number) => present(network.hosts.find((entry) => entry.port === port), `the host on port ${port}`);
    expect(network.hosts).toHaveLength(4);
    expect(row(registry.port)).toEqual({ host: '127.0.0.1', port: registry.port, allowed: true, count: 1, firstAt: expect.any(String), lastAt: expect.any(String) });
    expect(row(elsewhere.port)).toMatchObject({ host: '127.0.0.1', allowed: false, count: 3 });
    expect(row(modelPort)).toMatchObject({ allowed: true, count: 1 });
    expect(timeOf(row(elsewhere.port).lastAt)).toBeGreaterThanOrEqual(timeOf(row(elsewhere.port).firstAt));
    // What it was admitted with is recorded on the run.
    expect(JSON.parse(b.core.ledger.runs.row(run.id)!.admission_json!)).toMatchObject({ version: 3, networkMode: 'provider-only', allowedHosts: [`127.0.0.1:${registry.port}`] });

    // Taking the host off the list reaches the next run, not the one admitted before.
    await b.call('updateEnvironment', { environmentId: builds.id, allowedHosts: [] });
    const next = await runOnce(b, agent.id);
    expect(outputText(b, next.id)).toContain(`http-get ${registry.origin}/left-pad: 403`);
    expect(registry.paths).toEqual(['/left-pad']);
    expect((JSON.parse(b.core.ledger.runs.row(run.id)!.admission_json!) as { allowedHosts: string[] }).allowedHosts).toEqual([`127.0.0.1:${registry.port}`]);
  });
});

describe('a blocked request', () => {
  it('raises one "Network request blocked" notice per host, whose link opens the environment’s allowed hosts with it filled in; allowing it resolves the notice, and Run again runs once and gets through', async () => {
    const b = await bed();
    const registry = await startRegistry('registry');
    const elsewhere = await startRegistry('elsewhere');
    const builds = await b.call('createEnvironment', { name: 'Node builds' });
    const entry = `127.0.0.1:${registry.port}`;
    // The agent retries the registry, then tries a second host: still one notice, for the first.
    const { agent } = await agentIn(b, builds.id, () => [`${registry.origin}/left-pad`, `${registry.origin}/left-pad`, `${registry.origin}/left-pad`, `${elsewhere.origin}/x`]);
    const first = await runOnce(b, agent.id);
    expect(outputText(b, first.id)).toContain(`http-get ${registry.origin}/left-pad: 403`);

    let notices = await b.call('listNotices', {});
    expect(notices).toHaveLength(1);
    const notice = present(notices[0], 'notice');
    expect(notice).toMatchObject({
      kind: 'network_blocked',
      title: 'Network request blocked',
      severity: 'warning',
      actionLabel: `Allow ${entry}`,
      actionUrl: `#/settings/environments/${builds.id}?allow=127.0.0.1%3A${registry.port}`,
      environmentId: builds.id,
      agentId: agent.id,
      runId: first.id,
      runIds: [first.id],
      status: 'open',
      canRunAgain: false,
    });
    // It names the run (its task and agent), the host and the environment.
    expect(notice.message).toContain('“Install the dependencies”');
    expect(notice.message).toContain(agent.name);
    expect(notice.message).toContain(entry);
    expect(notice.message).toContain('Node builds environment');
    expect((await b.call('getRun', { runId: first.id })).notice).toMatchObject({ id: notice.id });

    // A later run (of the same task) refused the same host joins it.
    const second = await runOnce(b, agent.id, { id: first.taskId });
    notices = await b.call('listNotices', {});
    expect(notices, JSON.stringify(notices, null, 1)).toHaveLength(1);
    expect(notices[0]?.runIds).toEqual([first.id, second.id]);
    expect(notices[0]?.message).toContain('1 later run was refused it too');

    // Another environment change that does not allow the host leaves it open.
    await b.call('updateEnvironment', { environmentId: builds.id, allowedHosts: ['pypi.org'] });
    expect((await b.call('listNotices', {}))[0]?.status).toBe('open');
    await expect(b.call('runAgain', { noticeId: notice.id })).rejects.toMatchObject({ code: 'conflict' });

    // Allowing it (what the link's form saves) resolves it, in words, with Run again.
    await b.call('updateEnvironment', { environmentId: builds.id, allowedHosts: ['pypi.org', entry] });
    const resolved = (await b.call('listNotices', { status: 'all' }))[0];
    expect(resolved).toMatchObject({ id: notice.id, status: 'resolved', resolution: `${entry} is allowed in the Node builds environment now.`, canRunAgain: true });
    expect(await b.call('countOpenNotices')).toEqual({ open: 0 });

    // Run again starts the task once (both runs were of one task), and twice starts nothing more.
    const again = await b.call('runAgain', { noticeId: notice.id });
    expect(again.alreadyRan).toBe(false);
    expect(again.runs).toHaveLength(1);
    const rerunId = present(again.runs[0], 'the rerun').id;
    expect(await b.call('runAgain', { noticeId: notice.id })).toMatchObject({ alreadyRan: true, runs: [{ id: rerunId }] });
    const rerun = await b.waitForRun(rerunId, ended, 30_000);
    expect(rerun.status).toBe('succeeded');
    expect(outputText(b, rerun.id)).toContain(`http-get ${registry.origin}/left-pad: 200 registry has /left-pad`);
    expect(registry.paths).toEqual(['/left-pad', '/left-pad', '/left-pad']);
    // The rerun was refused the other host: that is its own first blocked host, so its own notice.
    notices = await b.call('listNotices', {});
    expect(notices).toMatchObject([{ actionLabel: `Allow 127.0.0.1:${elsewhere.port}`, runIds: [rerun.id] }]);
    expect((await b.call('listNotices', { status: 'all' })).find((n) => n.id === notice.id)).toMatchObject({ canRunAgain: false, rerunRunIds: [rerun.id] });
  });

  it('is left to the Network panel when the host is no host name, and a deleted environment’s notices are put away', async () => {
    const b = await bed();
    const registry = await startRegistry('registry');
    const scratch = await b.call('createEnvironment', { name: 'Scratch' });
    // First a name no resolver would take (the agent writes what it likes), then a real one.
    const { agent } = await agentIn(b, scratch.id, () => ['http://a!b$c.example/x', `${registry.origin}/x`]);
    const run = await runOnce(b, agent.id);
    expect(outputText(b, run.id)).toContain('http-get http://a!b$c.example/x: 403');
    expect((await b.call('listNotices', {}))[0]).toMatchObject({ actionLabel: `Allow 127.0.0.1:${registry.port}` });
    const network = await b.call('listRunNetwork', { runId: run.id });
    expect(network.hosts.map((entry) => [entry.host, entry.port, entry.allowed])).toEqual(
      expect.arrayContaining([
        ['a\\u{21}b\\u{24}c.example', 80, false],
        ['127.0.0.1', registry.port, false],
      ]),
    );
    await b.call('updateAgent', { agentId: agent.id, environmentId: 'env_sandboxed' });
    await b.call('deleteEnvironment', { environmentId: scratch.id });
    expect(await b.call('countOpenNotices')).toEqual({ open: 0 });
    expect((await b.call('listNotices', { runId: run.id }))[0]).toMatchObject({ status: 'dismissed' });
  });
});
