import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pidsWithMarker, waitFor } from '../../sandbox/test-fixtures';
import { openRunTestBed, type RunTestBed } from '../../testing/run-test-kit';
import { remoteTestUser, startSshTestServer, type SshTestServer } from '../../testing/ssh-test-server';

/**
 * A run on an SSH host whose AI connection has a base URL, through the console's channels: its model
 * requests go through the run's tunnel to the console's proxy, which adds the key; the model server
 * (on this machine) answers only that key; the host never holds it (not in the run's folder there,
 * its spool included, not in its output).
 */

const secret = `sk-remote-run-${randomBytes(12).toString('hex')}`;
let server: SshTestServer;
let model: http.Server;
const seen: Array<{ url: string; authorization: string | undefined }> = [];
beforeAll(async () => {
  server = await startSshTestServer();
  appendFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
  model = http.createServer((request, response) => {
    seen.push({ url: request.url ?? '', authorization: request.headers.authorization });
    request.resume();
    const ok = request.headers.authorization === `Bearer ${secret}`;
    response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    response.end(ok ? '{"data":[{"id":"model-through-the-tunnel"}]}' : '{"error":"bad key"}');
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
}, 30_000);
afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => model.close(() => resolve()));
});

const beds: RunTestBed[] = [];
const remoteHome = () => execFileSync('getent', ['passwd', remoteTestUser], { encoding: 'utf8' }).split(':')[5]!;
const remoteRunDir = (runId: string) => path.join(remoteHome(), '.operator-console', 'runs', runId);
afterEach(async () => {
  for (const bed of beds.splice(0)) {
    const runIds = bed.core.ledger.runs.withStatus(['succeeded', 'failed', 'cancelled', 'running', 'preparing']).map((row) => row.id);
    await bed.close();
    for (const runId of runIds) rmSync(remoteRunDir(runId), { recursive: true, force: true });
  }
});

function allFileText(folder: string): string {
  let text = '';
  for (const name of readdirSync(folder)) {
    const file = path.join(folder, name);
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat?.isDirectory()) text += allFileText(file);
    else if (stat?.isFile()) text += readFileSync(file, 'latin1');
  }
  return text;
}

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

async function consoleOnHost() {
  const bed = await openRunTestBed({ operatorEnv: { ...process.env, OPERATOR_CONSOLE_SSH_CONFIG: server.configFile, ...server.env } });
  beds.push(bed);
  const host = await bed.call('addHost', { name: server.alias });
  expect((await bed.call('testHost', { hostId: host.id })).outcome).toBe('ready');
  const environment = await bed.call('createEnvironment', { name: 'On the test box', kind: 'sandboxed', networkMode: 'none', hostId: host.id });
  return { bed, environment };
}

describe('a Codex-like agent on an SSH host', () => {
  it('gets its login file in its home there for the attempt, removed when the attempt ends', async () => {
    const { bed, environment } = await consoleOnHost();
    const connection = await bed.call('createConnection', { name: 'OpenAI', provider: 'openai', method: 'api_key', secret, ownership: 'shared', agentScope: 'all' });
    const agent = await bed.call('createAgent', { name: 'codex-like', providerId: 'fixture-codex', model: 'model-a', profileId: 'shows-key', environmentId: environment.id, homeMode: 'isolated' });
    await bed.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    const run = await bed.waitForRun(runId, ended, 90_000);
    const output = Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes).toString('utf8');
    expect(run.status, `${output} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    // The agent read its login file there, 0600 (the key in it redacted from what the run printed).
    expect(output).toMatch(/file \$CODEX_HOME\/auth\.json: 0600 "\{\\n {2}\\"OPENAI_API_KEY\\": \\"\[redacted\]\\"/);
    expect(output).not.toContain(secret);
    // And it is gone from the host once the attempt ended.
    expect(allFileText(remoteRunDir(runId))).not.toContain(`"OPENAI_API_KEY": "${secret}"`);
    expect(readdirSync(path.join(remoteRunDir(runId), 'cache', 'codex-home'))).not.toContain('auth.json');
  }, 120_000);

  it('through a connection with a base URL, gets only the tunnel’s config and the run’s token: the key never reaches the host', async () => {
    const { bed, environment } = await consoleOnHost();
    const baseUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    const connection = await bed.call('createConnection', { name: 'Gateway', provider: 'openai', method: 'api_key', secret, baseUrl, ownership: 'shared', agentScope: 'all' });
    const agent = await bed.call('createAgent', { name: 'codex-like', providerId: 'fixture-codex', model: 'model-a', profileId: 'shows-key', environmentId: environment.id, homeMode: 'isolated' });
    await bed.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    const run = await bed.waitForRun(runId, ended, 90_000);
    const output = Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes).toString('utf8');
    expect(run.status, `${output} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    // Its config points it at the relay in its sandbox; there is no login file, and its key variable holds the run's token.
    expect(output).toContain('base_url = \\"http://127.0.0.1:3128/v1\\"');
    expect(output).toMatch(/file \$CODEX_HOME\/auth\.json: ENOENT/);
    expect(output).not.toContain(secret);
    expect(allFileText(remoteRunDir(runId))).not.toContain(secret);
  }, 120_000);
});

describe('a run on an SSH host with an AI connection that has a base URL', () => {
  it('reaches its model through the tunnel, the key added on this machine only', async () => {
    const bed = await openRunTestBed({ operatorEnv: { ...process.env, OPERATOR_CONSOLE_SSH_CONFIG: server.configFile, ...server.env } });
    beds.push(bed);
    const host = await bed.call('addHost', { name: server.alias });
    expect((await bed.call('testHost', { hostId: host.id })).outcome).toBe('ready');
    const environment = await bed.call('createEnvironment', { name: 'On the test box', kind: 'sandboxed', networkMode: 'none', hostId: host.id });
    const baseUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    const connection = await bed.call('createConnection', { name: 'Gateway', provider: 'openai', method: 'api_key', secret, baseUrl, ownership: 'shared', agentScope: 'all' });
    const agent = await bed.createAgent(['--print-env', 'OPENAI_BASE_URL', '--shell', 'curl -s -H "Authorization: Bearer $OPENAI_API_KEY" "$OPENAI_BASE_URL/models"'], {
      environmentId: environment.id,
      homeMode: 'isolated',
    });
    await bed.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    const run = await bed.waitForRun(runId, ended, 90_000);
    const output = Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes).toString('utf8');
    expect(run.status, `${output} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    // The agent was given the relay on its sandbox's loopback, and reached the model through it.
    expect(output).toContain('OPENAI_BASE_URL=http://127.0.0.1:3128/v1');
    expect(output).toContain('model-through-the-tunnel');
    expect(seen.at(-1)).toEqual({ url: '/v1/models', authorization: `Bearer ${secret}` });
    // The key was never on the host: not in the run's folder there (its spool included), not in what the run printed.
    expect(allFileText(remoteRunDir(runId))).not.toContain(secret);
    expect(output).not.toContain(secret);
    // The run's tunnel ended with it.
    await waitFor(() => pidsWithMarker(`${remoteRunDir(runId)}/model/model.sock:`).length === 0, 10_000, 'the run’s tunnel to end');
  }, 120_000);
});
