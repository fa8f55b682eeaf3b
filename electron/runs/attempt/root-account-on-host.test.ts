import { randomBytes } from 'node:crypto';
import { existsSync, appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consoleOnHost, hostRunBeds, remoteProcessesOf, remoteRunDir, until, waitForEnd } from '../../testing/host-run-test-kit';
import { startSshTestServer, type SshTestServer } from '../../testing/ssh-test-server';

/**
 * A host reached as root (issue 28): its sandboxed runs run as an unprivileged user there, as they do
 * here when the console runs as root (sandbox/sandbox-user.ts), their writable roots handed to that user
 * on the host first and the view taken back to fetch the work. The test sshd lets root in with the test
 * key only, from an authorized_keys of its own folder (never /root/.ssh); the console's folder it makes
 * in /root goes with the test when it was not there before.
 */

const consoleFolder = '/root/.operator-console';
const secret = `sk-root-host-${randomBytes(12).toString('hex')}`;
let server: SshTestServer;
let model: http.Server;
let hadConsoleFolder = true;
beforeAll(async () => {
  hadConsoleFolder = existsSync(consoleFolder);
  server = await startSshTestServer({ rootLogin: true });
  appendFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
  // A model server here that answers only the real key.
  model = http.createServer((request, response) => {
    request.resume();
    const ok = request.headers.authorization === `Bearer ${secret}`;
    response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    response.end(ok ? '{"data":[{"id":"model-through-the-tunnel"}]}' : '{"error":"bad key"}');
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
}, 30_000);
afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => model?.close(() => resolve()));
  if (!hadConsoleFolder) rmSync(consoleFolder, { recursive: true, force: true });
});

const { beds, closeAll } = hostRunBeds('root');
afterEach(() => closeAll());

/** Whatever runs on the host for the run, as root (the supervisor) or as the sandbox's user (the agent). */
const leftOnHost = (runId: string) => [...remoteProcessesOf(runId, 'root'), ...remoteProcessesOf(runId, 'nobody')];

describe('a run on a host reached as root', () => {
  it('runs its setup and its agent there as an unprivileged user; its work still comes back and Clean up removes everything', async () => {
    const c = await consoleOnHost(server, beds, { alias: server.rootAlias });
    expect(c.test).toMatchObject({ outcome: 'ready', report: { account: { uid: 0, setpriv: true } } });
    await c.bed.call('updateProjectSetup', { projectId: c.bed.projectId, setupCommand: 'id -u > setup-uid.txt' });
    const script = [
      'echo "agent-uid=$(id -u)"',
      'echo "setup-uid=$(cat setup-uid.txt)"',
      // The repository borrows the project's objects on the host: git reads them as that user too.
      'git log --oneline -1 >/dev/null && echo GIT-READS-ITS-OBJECTS',
      'cat /root/.bash_history 2>/dev/null >/dev/null && echo OPEN-ROOT-FILE',
      'echo made-by-agent > agent-work.txt',
      'echo AGENT-DONE',
    ].join('; ');
    const agent = await c.agent(['--shell', script]);
    const runId = await c.run(agent.id);
    const run = await waitForEnd(c.bed, runId);
    const text = c.output(runId).toString('utf8');
    expect(run.status, `${text} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    expect(text).toContain('AGENT-DONE');
    expect(text).toMatch(/agent-uid=(\d+)/);
    expect(text).not.toContain('agent-uid=0\r');
    expect(text).toContain('agent-uid=65534');
    expect(text).toContain('setup-uid=65534');
    expect(text).toContain('GIT-READS-ITS-OBJECTS');
    expect(text).not.toContain('OPEN-ROOT-FILE');
    // The work came back here (the host's view was taken back to pack it).
    expect(readFileSync(path.join(run.cwd!, 'agent-work.txt'), 'utf8')).toBe('made-by-agent\n');
    expect(readFileSync(path.join(run.cwd!, 'setup-uid.txt'), 'utf8')).toBe('65534\n');
    await until('nothing of the run running on the host', () => leftOnHost(runId).length === 0, 15_000);
    const cleaned = await c.bed.call('cleanUpRuns', { runIds: [runId], confirmedRunIds: [runId] });
    expect(cleaned.removed).toEqual([runId]);
    expect(existsSync(remoteRunDir(runId, 'root'))).toBe(false);
    expect(leftOnHost(runId)).toEqual([]);
  }, 120_000);

  it('gives the unprivileged user a login file it can read there, and the model tunnel it can reach', async () => {
    const c = await consoleOnHost(server, beds, { alias: server.rootAlias });
    // A login file (a connection without a base URL), delivered for the attempt.
    const login = await c.bed.call('createConnection', { name: 'OpenAI', provider: 'openai', method: 'api_key', secret, ownership: 'shared', agentScope: 'all' });
    const codex = await c.bed.call('createAgent', { name: 'codex-like', providerId: 'fixture-codex', model: 'model-a', profileId: 'shows-key', environmentId: c.environment.id, homeMode: 'isolated' });
    await c.bed.call('setAgentConnection', { agentId: codex.id, connectionId: login.id });
    const first = await c.run(codex.id);
    const read = await waitForEnd(c.bed, first, 90_000);
    const readText = c.output(first).toString('utf8');
    expect(read.status, `${readText} ${JSON.stringify(read.failure)}`).toBe('succeeded');
    expect(readText).toMatch(/file \$CODEX_HOME\/auth\.json: 0600 "\{\\n {2}\\"OPENAI_API_KEY\\": \\"\[redacted\]\\"/);

    // The model tunnel (a connection with a base URL): its socket and relay reached by that user.
    const baseUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    const gateway = await c.bed.call('createConnection', { name: 'Gateway', provider: 'openai', method: 'api_key', secret, baseUrl, ownership: 'shared', agentScope: 'all' });
    const agent = await c.bed.createAgent(['--shell', 'echo "agent-uid=$(id -u)"; curl -s -H "Authorization: Bearer $OPENAI_API_KEY" "$OPENAI_BASE_URL/models"'], { environmentId: c.environment.id, homeMode: 'isolated' });
    await c.bed.call('setAgentConnection', { agentId: agent.id, connectionId: gateway.id });
    const second = await c.run(agent.id);
    const run = await waitForEnd(c.bed, second, 90_000);
    const text = c.output(second).toString('utf8');
    expect(run.status, `${text} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    expect(text).toContain('agent-uid=65534');
    expect(text).toContain('model-through-the-tunnel');
    expect(text).not.toContain(secret);
  }, 180_000);

  it('in the provider-only mode, gives the unprivileged user the egress proxy’s socket: the allowed host is reached, another refused', async () => {
    const allowed = http.createServer((request, response) => response.end(`allowed has ${request.url ?? ''}`));
    await new Promise<void>((resolve) => allowed.listen(0, '127.0.0.1', resolve));
    const allowedPort = (allowed.address() as AddressInfo).port;
    const modelPort = (model.address() as AddressInfo).port;
    try {
      const c = await consoleOnHost(server, beds, { alias: server.rootAlias, networkMode: 'provider-only', allowedHosts: [`127.0.0.1:${allowedPort}`] });
      const agent = await c.agent(['--print-env', 'HTTPS_PROXY', '--http-get', `http://127.0.0.1:${allowedPort}/package`, '--http-get', `http://127.0.0.1:${modelPort}/not-allowed`]);
      const runId = await c.run(agent.id);
      const run = await waitForEnd(c.bed, runId, 90_000);
      const text = c.output(runId).toString('utf8');
      expect(run.status, `${text} ${JSON.stringify(run.failure)}`).toBe('succeeded');
      expect(text).toContain(`http-get http://127.0.0.1:${allowedPort}/package: 200 allowed has /package`);
      expect(text).toContain(`http-get http://127.0.0.1:${modelPort}/not-allowed: 403`);
    } finally {
      allowed.closeAllConnections();
      await new Promise<void>((resolve) => allowed.close(() => resolve()));
    }
  }, 120_000);

  it('taken up again by a restarted console, gives the unprivileged user the model tunnel opened again', async () => {
    const c = await consoleOnHost(server, beds, { alias: server.rootAlias });
    const baseUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    const gateway = await c.bed.call('createConnection', { name: 'Gateway', provider: 'openai', method: 'api_key', secret, baseUrl, ownership: 'shared', agentScope: 'all' });
    const ask = 'curl -s --max-time 20 -H "Authorization: Bearer $OPENAI_API_KEY" "$OPENAI_BASE_URL/models"';
    const script = [
      `echo "before: $(${ask})"`,
      'echo WAITING-FOR-RESTART',
      'i=0; while [ ! -e "$TMPDIR/restarted" ] && [ "$i" -lt 900 ]; do sleep 0.1; i=$((i + 1)); done',
      `echo "after: $(${ask})"`,
      'echo "agent-uid=$(id -u)"',
    ].join('; ');
    const agent = await c.bed.createAgent(['--shell', script], { environmentId: c.environment.id, homeMode: 'isolated' });
    await c.bed.call('setAgentConnection', { agentId: agent.id, connectionId: gateway.id });
    const runId = await c.run(agent.id);
    await until('the agent to ask its model before the restart', () => c.output(runId).toString('utf8').includes('WAITING-FOR-RESTART'), 90_000);
    await c.bed.restart();
    const reopened = async () => (await c.bed.call('listRunEvents', { runId })).events.some((event) => event.kind === 'host_tunnel_reopened');
    await until('the run’s tunnel to be opened again', reopened, 30_000);
    writeFileSync(path.join(remoteRunDir(runId, 'root'), 'tmp', 'restarted'), '');
    const run = await waitForEnd(c.bed, runId, 90_000);
    const text = c.output(runId).toString('utf8');
    expect(run.status, `${text} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    expect(text).toContain('agent-uid=65534');
    expect(text).toContain('before: {"data":[{"id":"model-through-the-tunnel"}]}');
    expect(text).toContain('after: {"data":[{"id":"model-through-the-tunnel"}]}');
  }, 240_000);
});
