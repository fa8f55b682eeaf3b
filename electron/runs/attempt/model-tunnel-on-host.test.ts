import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pidsWithMarker, waitFor } from '../../sandbox/test-fixtures';
import { until } from '../../testing/host-run-test-kit';
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

/** A run of the agent (bound to the connection) on a new task, to its end, which must be a success; with what it printed. */
async function runToSuccess(bed: RunTestBed, agentId: string, connectionId: string, timeoutMs = 90_000) {
  await bed.call('setAgentConnection', { agentId, connectionId });
  const task = await bed.createTask();
  const runId = (await bed.call('startRun', { taskId: task.id, agentId })).id;
  const run = await bed.waitForRun(runId, ended, timeoutMs);
  const output = Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes).toString('utf8');
  expect(run.status, `${output} ${JSON.stringify(run.failure)}`).toBe('succeeded');
  return { runId, run, output };
}

async function consoleOnHost(network: { networkMode: 'none' | 'provider-only'; allowedHosts?: string[] } = { networkMode: 'none' }) {
  const bed = await openRunTestBed({ operatorEnv: { ...process.env, OPERATOR_CONSOLE_SSH_CONFIG: server.configFile, ...server.env } });
  beds.push(bed);
  const host = await bed.call('addHost', { name: server.alias });
  expect((await bed.call('testHost', { hostId: host.id })).outcome).toBe('ready');
  const environment = await bed.call('createEnvironment', { name: 'On the test box', kind: 'sandboxed', ...network, hostId: host.id });
  return { bed, environment };
}

/**
 * A run through the model tunnel whose agent asks its model, waits for the test to drop
 * `$TMPDIR/restarted` in its task root on the host (the console restarted meanwhile), then asks again
 * with `afterCurlOptions` and runs `afterLines`; returned once it has asked the first time. The agent
 * also leaves its key (the run's token) in `$TMPDIR/run-token`, for the test to look for elsewhere.
 */
async function runAskingItsModelAcrossARestart(afterCurlOptions: string, options: { network?: Parameters<typeof consoleOnHost>[0]; afterLines?: string[] } = {}) {
  const { bed, environment } = await consoleOnHost(options.network);
  const baseUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
  const connection = await bed.call('createConnection', { name: 'Gateway', provider: 'openai', method: 'api_key', secret, baseUrl, ownership: 'shared', agentScope: 'all' });
  commitScript(
    bed,
    [
      '#!/bin/sh',
      'printf %s "$OPENAI_API_KEY" > "$TMPDIR/run-token"',
      'echo "before: $(curl -s --max-time 20 -H "Authorization: Bearer $OPENAI_API_KEY" "$OPENAI_BASE_URL/models")"',
      'echo WAITING-FOR-RESTART',
      'i=0; while [ ! -e "$TMPDIR/restarted" ] && [ "$i" -lt 900 ]; do sleep 0.1; i=$((i + 1)); done',
      `echo "after: $(curl -s --max-time 20 ${afterCurlOptions} "$OPENAI_BASE_URL/models")"`,
      ...(options.afterLines ?? []),
      'echo SCRIPT-DONE',
      '',
    ].join('\n'),
  );
  const agent = await bed.createAgent(['--shell-file', '.agent/attack.sh'], { environmentId: environment.id, homeMode: 'isolated' });
  await bed.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
  const task = await bed.createTask();
  const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
  const output = () => Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes).toString('utf8');
  await waitFor(() => output().includes('WAITING-FOR-RESTART'), 90_000, 'the agent to ask its model before the restart');
  return { bed, connection, agent, runId, output };
}

describe('a Codex-like agent on an SSH host', () => {
  it('gets its login file in its home there for the attempt, removed when the attempt ends', async () => {
    const { bed, environment } = await consoleOnHost();
    const connection = await bed.call('createConnection', { name: 'OpenAI', provider: 'openai', method: 'api_key', secret, ownership: 'shared', agentScope: 'all' });
    const agent = await bed.call('createAgent', { name: 'codex-like', providerId: 'fixture-codex', model: 'model-a', profileId: 'shows-key', environmentId: environment.id, homeMode: 'isolated' });
    const { runId, output } = await runToSuccess(bed, agent.id, connection.id);
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
    const { runId, output } = await runToSuccess(bed, agent.id, connection.id);
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
    const { runId, output } = await runToSuccess(bed, agent.id, connection.id);
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

/** A server on this machine's 127.0.0.1 (which is the test host's too): answers every GET with what it was asked, and records each. */
async function startRecorder(name: string): Promise<{ port: number; paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = [];
  const recorder = http.createServer((request, response) => {
    paths.push(request.url ?? '');
    response.end(`${name} has ${request.url}\n`);
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  return {
    port: (recorder.address() as AddressInfo).port,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        recorder.closeAllConnections();
        recorder.close(() => resolve());
      }),
  };
}

/** Commits a script the agent runs (`--shell-file`, or the fixture Codex's attacker profile) into the project, so the run's view on the host has it. */
function commitScript(bed: RunTestBed, script: string): void {
  mkdirSync(path.join(bed.projectDir, '.agent'), { recursive: true });
  writeFileSync(path.join(bed.projectDir, '.agent', 'attack.sh'), script);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=Test', ...args], { cwd: bed.projectDir });
  git('add', '.agent/attack.sh');
  git('commit', '-q', '-m', 'the agent’s script');
}

async function egressOf(bed: RunTestBed, runId: string) {
  const { events } = await bed.call('listRunEvents', { runId });
  return events.filter((event) => event.kind === 'egress').map((event) => event.data);
}

/** Asks, from inside the run's sandbox, through the relay on its loopback and through the egress socket itself, for what the allow-list refuses; and tries the host's network directly. */
function attackScript(refused: number): string {
  return `import os, socket
def first_line(sock, request):
    sock.settimeout(20)
    sock.sendall(request.encode())
    data = b''
    while b'\\r\\n' not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b'\\r\\n')[0].decode() or 'closed'
def via_relay(request):
    return first_line(socket.create_connection(('127.0.0.1', int(os.environ['HTTPS_PROXY'].rsplit(':', 1)[1])), 10), request)
def via_socket(request):
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(os.environ['OPERATOR_CONSOLE_TASK_ROOT'] + '/egress/proxy.sock')
    return first_line(sock, request)
def direct(port):
    try:
        socket.create_connection(('127.0.0.1', port), 3)
        return 'REACHED'
    except OSError:
        return 'unreachable'
print('relay CONNECT refused host:', via_relay('CONNECT 127.0.0.1:${refused} HTTP/1.1\\r\\nHost: 127.0.0.1:${refused}\\r\\n\\r\\n'))
print('relay CONNECT invalid host:', via_relay('CONNECT a..b:443 HTTP/1.1\\r\\nHost: a..b:443\\r\\n\\r\\n'))
print('socket CONNECT refused host:', via_socket('CONNECT 127.0.0.1:${refused} HTTP/1.1\\r\\nHost: 127.0.0.1:${refused}\\r\\n\\r\\n'))
print('socket GET sshd:', via_socket('GET http://127.0.0.1:${server.port}/ HTTP/1.1\\r\\nHost: 127.0.0.1:${server.port}\\r\\n\\r\\n'))
print('direct refused host:', direct(${refused}))
print('direct sshd:', direct(${server.port}))
`;
}

describe('a provider-only run on an SSH host', () => {
  it('reaches the allowed hosts from this machine through the console’s egress proxy, is refused the rest with 403, and never the host’s own network; each decision is on its timeline', async () => {
    const registry = await startRecorder('registry');
    const elsewhere = await startRecorder('elsewhere');
    try {
      // 127.0.0.1:3128 allowed too: the relay's usual port on the sandbox's loopback is then the forwarded endpoint's, and the relays move aside.
      const { bed, environment } = await consoleOnHost({ networkMode: 'provider-only', allowedHosts: [`127.0.0.1:${registry.port}`, '127.0.0.1:3128'] });
      const baseUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
      const connection = await bed.call('createConnection', { name: 'Gateway', provider: 'openai', method: 'api_key', secret, baseUrl, ownership: 'shared', agentScope: 'all' });
      commitScript(
        bed,
        [
          '#!/bin/sh',
          // The model, on the sandbox's loopback (NO_PROXY), through the model tunnel.
          'echo "model: $(curl -s --max-time 20 -H "Authorization: Bearer $OPENAI_API_KEY" "$OPENAI_BASE_URL/models")"',
          // The allowed host, asked directly on the sandbox's loopback as a client that skips the proxy for loopback does: the relay tunnels it through the proxy.
          `echo "forwarded: $(curl -s --max-time 20 http://127.0.0.1:${registry.port}/forwarded)"`,
          `python3 - <<'PY'\n${attackScript(elsewhere.port)}PY`,
          'echo SCRIPT-DONE',
          '',
        ].join('\n'),
      );
      const agent = await bed.createAgent(['--print-env', 'OPENAI_BASE_URL', '--print-env', 'HTTPS_PROXY', '--http-get', `http://127.0.0.1:${registry.port}/left-pad`, '--http-get', `http://127.0.0.1:${elsewhere.port}/exfiltrate`, '--shell-file', '.agent/attack.sh'], {
        environmentId: environment.id,
        homeMode: 'isolated',
      });
      const { runId, run, output } = await runToSuccess(bed, agent.id, connection.id);
      expect(run.confinement).toMatchObject({ host: server.alias, sandbox: 'bubblewrap', network: 'provider-only' });
      expect(output).toContain('SCRIPT-DONE');
      expect(output).toContain('OPENAI_BASE_URL=http://127.0.0.1:3129/v1');
      expect(output).toContain('HTTPS_PROXY=http://127.0.0.1:3130');

      // The allowed host answered, from this machine; the other was refused by the proxy and never asked.
      expect(output).toContain(`http-get http://127.0.0.1:${registry.port}/left-pad: 200 registry has /left-pad`);
      expect(output).toContain(`http-get http://127.0.0.1:${elsewhere.port}/exfiltrate: 403 Operator Console egress proxy: 127.0.0.1:${elsewhere.port} is not allowed for this run.`);
      expect(output).toContain('forwarded: registry has /forwarded');
      expect(registry.paths).toEqual(['/left-pad', '/forwarded']);
      expect(elsewhere.paths).toEqual([]);
      // The model, beside it, through the model tunnel with the key added here.
      expect(output).toContain('model-through-the-tunnel');
      expect(seen.at(-1)).toEqual({ url: '/v1/models', authorization: `Bearer ${secret}` });

      // From inside: the relay and the egress socket itself refuse what the list refuses; the host's own network is not there.
      expect(output).toContain('relay CONNECT refused host: HTTP/1.1 403 Forbidden');
      expect(output).toContain('relay CONNECT invalid host: HTTP/1.1 403 Forbidden');
      expect(output).toContain('socket CONNECT refused host: HTTP/1.1 403 Forbidden');
      expect(output).toContain('socket GET sshd: HTTP/1.1 403 Forbidden');
      expect(output).toContain('direct refused host: unreachable');
      expect(output).toContain('direct sshd: unreachable');
      expect(output).not.toContain('REACHED');

      // Every decision is on the run's timeline, as a local run's are, and on its Network panel.
      expect(await egressOf(bed, runId)).toEqual([
        { host: '127.0.0.1', port: registry.port, method: 'GET', allowed: true },
        { host: '127.0.0.1', port: elsewhere.port, method: 'GET', allowed: false },
        { host: '127.0.0.1', port: registry.port, method: 'CONNECT', allowed: true },
        { host: '127.0.0.1', port: elsewhere.port, method: 'CONNECT', allowed: false },
        { host: 'a..b', port: 443, method: 'CONNECT', allowed: false, invalidHost: true },
        { host: '127.0.0.1', port: elsewhere.port, method: 'CONNECT', allowed: false },
        { host: '127.0.0.1', port: server.port, method: 'GET', allowed: false },
      ]);
      expect(await bed.call('listRunNetwork', { runId })).toMatchObject({ environmentKind: 'sandboxed', networkMode: 'provider-only', observed: true });
      expect(allFileText(remoteRunDir(runId))).not.toContain(secret);
      // The run's tunnel (both sockets on one ssh) ended with it.
      await waitFor(() => pidsWithMarker(`${remoteRunDir(runId)}/egress/proxy.sock:`).length === 0, 10_000, 'the run’s tunnel to end');
    } finally {
      await registry.close();
      await elsewhere.close();
    }
  }, 120_000);

  it('lets the project’s setup command there reach what a local run’s setup may, through the same proxy, and records its decisions', async () => {
    const registry = await startRecorder('registry');
    const elsewhere = await startRecorder('elsewhere');
    try {
      const { bed, environment } = await consoleOnHost({ networkMode: 'provider-only', allowedHosts: [`127.0.0.1:${registry.port}`] });
      const baseUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
      const connection = await bed.call('createConnection', { name: 'Gateway', provider: 'openai', method: 'api_key', secret, baseUrl, ownership: 'shared', agentScope: 'all' });
      // An install step, as `npm ci` is: the allowed registry answers, anything else is refused; no key in its environment.
      await bed.call('updateProjectSetup', {
        projectId: bed.projectId,
        setupCommand: [
          `echo "setup registry: $(curl -s --max-time 20 http://127.0.0.1:${registry.port}/setup-package)"`,
          // Through the proxy variables (loopback is in NO_PROXY, where nothing but the allowed endpoints' forwards listens).
          `echo "setup elsewhere: $(curl -s --noproxy '' -o /dev/null --max-time 20 -w '%{http_code}' http://127.0.0.1:${elsewhere.port}/setup-exfiltrate)"`,
          'echo "setup key: ${OPENAI_API_KEY:-none}"',
        ].join('; '),
      });
      const agent = await bed.createAgent(['--lines', '1'], { environmentId: environment.id, homeMode: 'isolated' });
      const { runId, output } = await runToSuccess(bed, agent.id, connection.id);
      expect(output).toContain('setup registry: registry has /setup-package');
      expect(output).toContain('setup elsewhere: 403');
      expect(output).toContain('setup key: none');
      expect(registry.paths).toEqual(['/setup-package']);
      expect(elsewhere.paths).toEqual([]);
      expect(await egressOf(bed, runId)).toEqual([
        { host: '127.0.0.1', port: registry.port, method: 'CONNECT', allowed: true },
        { host: '127.0.0.1', port: elsewhere.port, method: 'GET', allowed: false },
      ]);
      // The setup's tunnel ended with it, and the agent's with the run.
      await waitFor(() => pidsWithMarker(`${remoteRunDir(runId)}/egress/proxy.sock:`).length === 0, 10_000, 'the run’s tunnels to end');
    } finally {
      await registry.close();
      await elsewhere.close();
    }
  }, 120_000);

  it('with the key delivered to the host (no base URL), reaches the provider’s API through the egress proxy, and nothing else', async () => {
    const { bed, environment } = await consoleOnHost({ networkMode: 'provider-only' });
    const connection = await bed.call('createConnection', { name: 'OpenAI', provider: 'openai', method: 'api_key', secret, ownership: 'shared', agentScope: 'all' });
    // This machine has no way out: the proxy lets api.openai.com through and then cannot reach it (502); what matters is its decision.
    commitScript(
      bed,
      [
        '#!/bin/sh',
        'echo "provider: $(curl -s -o /dev/null --max-time 30 -w \'%{http_connect}\' https://api.openai.com/v1/models)"',
        'echo "elsewhere: $(curl -s -o /dev/null --max-time 30 -w \'%{http_connect}\' https://example.com/)"',
        'echo SCRIPT-DONE',
        '',
      ].join('\n'),
    );
    const agent = await bed.call('createAgent', { name: 'attacker', providerId: 'fixture-codex', model: 'model-a', profileId: 'attacker', environmentId: environment.id, homeMode: 'isolated' });
    const { runId, output } = await runToSuccess(bed, agent.id, connection.id, 120_000);
    expect(output).toContain('SCRIPT-DONE');
    expect(output).toContain('elsewhere: 403');
    const decisions = await egressOf(bed, runId);
    expect(decisions).toEqual([
      { host: 'api.openai.com', port: 443, method: 'CONNECT', allowed: true },
      { host: 'example.com', port: 443, method: 'CONNECT', allowed: false },
    ]);
    // No model tunnel: the login file was the way (read by the agent, redacted), and no model socket was made.
    expect(output).toMatch(/file \$CODEX_HOME\/auth\.json: 0600/);
    expect(existsSync(path.join(remoteRunDir(runId), 'model'))).toBe(false);
  }, 150_000);
});

describe('a run on an SSH host taken up again by a restarted console', () => {
  it('gets its tunnel back: its model answers before and after the restart with the key added here, its network is decided and recorded as before, and its token is sealed in the ledger', async () => {
    const registry = await startRecorder('registry');
    const elsewhere = await startRecorder('elsewhere');
    try {
      const { bed, runId, output } = await runAskingItsModelAcrossARestart('-H "Authorization: Bearer $OPENAI_API_KEY"', {
        network: { networkMode: 'provider-only', allowedHosts: [`127.0.0.1:${registry.port}`] },
        afterLines: [
          `echo "allowed after: $(curl -s --noproxy '' --max-time 20 http://127.0.0.1:${registry.port}/after-restart)"`,
          `echo "refused after: $(curl -s --noproxy '' -o /dev/null --max-time 20 -w '%{http_code}' http://127.0.0.1:${elsewhere.port}/after-restart)"`,
        ],
      });
      const seenBefore = seen.length;
      const runToken = readFileSync(path.join(remoteRunDir(runId), 'tmp', 'run-token'), 'utf8');
      expect(runToken).toMatch(/^operator-console-tunnel-[0-9a-f]{48}$/);

      // Twice: the console that took the run up keeps its sealed token for the next one.
      const reopened = async () => (await bed.call('listRunEvents', { runId })).events.filter((event) => event.kind === 'host_tunnel_reopened').length;
      for (const restart of [1, 2]) {
        await bed.restart();
        // Once the restarted console took the run up again (it says so on the run's timeline), the agent goes on.
        await until('the run’s tunnel to be opened again', async () => (await reopened()) === restart, 30_000).catch(() => undefined);
      }
      writeFileSync(path.join(remoteRunDir(runId), 'tmp', 'restarted'), '');
      const run = await bed.waitForRun(runId, ended, 90_000);
      expect(run.status, `${output()} ${JSON.stringify(run.failure)}`).toBe('succeeded');
      expect(output()).toContain('SCRIPT-DONE');

      // The model answered both times, through the tunnel, the key added on this machine each time.
      expect(output()).toContain('before: {"data":[{"id":"model-through-the-tunnel"}]}');
      expect(output()).toContain('after: {"data":[{"id":"model-through-the-tunnel"}]}');
      expect(seen.slice(seenBefore)).toEqual([{ url: '/v1/models', authorization: `Bearer ${secret}` }]);
      // After the restart, the allowed host was reached from this machine and the other refused with 403, both decisions on the run's timeline under its one attempt.
      expect(output()).toContain('allowed after: registry has /after-restart');
      expect(output()).toContain('refused after: 403');
      expect(registry.paths).toEqual(['/after-restart']);
      expect(elsewhere.paths).toEqual([]);
      const { events } = await bed.call('listRunEvents', { runId });
      expect(events.filter((event) => event.kind === 'egress').map((event) => ({ attempt: event.attempt, ...event.data }))).toEqual([
        { attempt: 1, host: '127.0.0.1', port: registry.port, method: 'GET', allowed: true },
        { attempt: 1, host: '127.0.0.1', port: elsewhere.port, method: 'GET', allowed: false },
      ]);

      // The key never reached the host; the token is in the ledger only sealed, never in clear (nor in the output).
      expect(allFileText(remoteRunDir(runId))).not.toContain(secret);
      expect(output()).not.toContain(runToken);
      const ledgerFiles = [bed.core.ledger.file, `${bed.core.ledger.file}-wal`].filter((file) => existsSync(file));
      for (const file of ledgerFiles) expect(readFileSync(file, 'latin1').includes(runToken), file).toBe(false);
      expect(JSON.stringify(bed.core.ledger.runs.locators(runId))).toMatch(/"sealedRunToken":"[a-z0-9-]+:[A-Za-z0-9+/=]+"/);
      // The tunnel opened again ended with the run.
      await waitFor(() => pidsWithMarker(`${remoteRunDir(runId)}/model/model.sock:`).length === 0, 10_000, 'the run’s tunnel to end');
    } finally {
      await registry.close();
      await elsewhere.close();
    }
  }, 240_000);

  it('whose host does not answer when the console starts again gets its model back once the host answers', async () => {
    const { bed, runId, output } = await runAskingItsModelAcrossARestart('-H "Authorization: Bearer $OPENAI_API_KEY"');
    const events = async () => (await bed.call('listRunEvents', { runId })).events;

    await server.stopListening();
    try {
      await bed.restart();
      // Taken up all the same: the tunnel's first try failed and says so; it is tried again.
      await until('the run’s tunnel to be set up again', async () => (await events()).some((event) => event.kind === 'host_tunnel_reopened'), 60_000);
      expect((await events()).find((event) => event.kind === 'host_tunnel_reopened')?.data.message).toContain('the host does not answer yet');
      expect((await bed.call('getRun', { runId })).status).toBe('running');
    } finally {
      await server.startListening();
    }
    await until('the run’s tunnel to come up once the host answers', async () => (await events()).some((event) => event.kind === 'host_tunnel_up'), 60_000);
    writeFileSync(path.join(remoteRunDir(runId), 'tmp', 'restarted'), '');
    const run = await bed.waitForRun(runId, ended, 90_000);
    expect(run.status, `${output()} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    expect(output()).toContain('after: {"data":[{"id":"model-through-the-tunnel"}]}');
  }, 240_000);

  it('whose AI connection was deleted meanwhile goes on without its model, and its timeline and a notice say why and what to do', async () => {
    const { bed, connection, agent, runId, output } = await runAskingItsModelAcrossARestart(`-w ' http %{http_code}' -H "Authorization: Bearer $OPENAI_API_KEY"`);
    expect(output()).toContain('before: {"data":[{"id":"model-through-the-tunnel"}]}');
    const seenBefore = seen.length;

    await bed.call('deleteConnection', { connectionId: connection.id });
    await bed.restart();
    const notReopened = async () => (await bed.call('listRunEvents', { runId })).events.find((event) => event.kind === 'host_tunnel_not_reopened');
    await until('the console to say the run’s tunnel was not opened again', async () => (await notReopened()) !== undefined, 30_000).catch(() => undefined);
    writeFileSync(path.join(remoteRunDir(runId), 'tmp', 'restarted'), '');
    const run = await bed.waitForRun(runId, ended, 90_000);
    // The take-up went on: the run followed to its end, its model closed to it (nothing reached the model server).
    expect(run.status, `${output()} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    expect(output()).toContain('SCRIPT-DONE');
    expect(output()).not.toContain('after: {"data"');
    expect(seen.slice(seenBefore)).toEqual([]);
    // Its timeline and one notice say what was not opened again, why, and what to do.
    expect((await notReopened())?.data.message).toMatch(/without its model: the console could not open it again for the run\. Choose an AI connection for .* Let the run finish without it, or stop it and run the task again once that is fixed\./);
    const notices = (await bed.call('listNotices', { runId })).filter((notice) => notice.kind === 'host_tunnel_not_reopened');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ code: 'configuration_incomplete', actionUrl: expect.stringContaining(agent.id) });
    // Once the run ended, the notice has nothing left to ask: it is resolved (the timeline keeps why).
    expect(notices[0]).toMatchObject({ status: 'resolved' });
  }, 240_000);
});
