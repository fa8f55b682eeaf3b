import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newModelTunnelToken, startModelProxy, type ModelProxy, type ModelProxyNote } from '../../electron/hosts/model-tunnel/model-proxy';
import { openModelTunnel, type ModelTunnel } from '../../electron/hosts/model-tunnel/model-tunnel';
import { remoteCredentialRoute } from '../../electron/hosts/model-tunnel/remote-credential-route';
import { remoteShellWord, sshConnectionTo, type SshConnection } from '../../electron/hosts/remote-script';
import { sshEnvironment, type SshSettings } from '../../electron/hosts/ssh-command';
import { startEgressProxy, type EgressDecision, type EgressProxy } from '../../electron/sandbox/egress-proxy';
import { egressProxyEnvironment, egressRelayCommand, findEgressRelayScript } from '../../electron/sandbox/egress-relay';
import { remoteTestUser, startSshTestServer, type SshTestServer } from '../../electron/testing/ssh-test-server';
import { cliTestTimeoutMs, installTimeoutMs } from './agent-suite';
import { ensureAgentClis } from './install.mjs';
import { credentialOf, protocolFor, startModelServer, type ModelServer } from './model-servers';
import { connectionProviderFor, createWorkspace, providerEntry, runCli, type AgentWorkspace } from './run-cli';

/** The repository this runs from (the CLIs are installed in it, the relay is one of its files). */
const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The real agent CLIs, each run on an SSH host (Debian's sshd on 127.0.0.1, the remote another user
 * account) in a bubblewrap sandbox there with no network but its own loopback, its model traffic
 * carried back through ssh to the console's model proxy, which adds the AI connection's key before
 * the model server (on the console's side, answering only that key) sees the request. The key is
 * never on the host: not in the run's remote task root, not in the environment of any process of the
 * remote user while the agent waits for its model, not in the run's output.
 */

const remoteHome = `/home/${remoteTestUser}`;
const secret = `sk-console-only-${randomBytes(12).toString('hex')}`;
const relayPort = 4319;
const runToken = newModelTunnelToken();

let server: SshTestServer;
let ssh: SshConnection;
let consoleDir: string;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  await ensureAgentClis();
  server = await startSshTestServer();
  consoleDir = mkdtempSync(path.join(os.tmpdir(), 'oc-e2e-console-'));
  writeFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
  const settings: SshSettings = { program: 'ssh', configFile: server.configFile, env: sshEnvironment({ ...process.env, ...server.env }), consoleKnownHosts: path.join(consoleDir, 'known_hosts'), connectTimeoutSeconds: 10 };
  ssh = await sshConnectionTo(settings, server.alias);
}, installTimeoutMs);

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await server?.stop();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
});

/** Every regular file's bytes under a folder. */
function allFileText(folder: string): string {
  let text = '';
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      const stat = statSync(file, { throwIfNoEntry: false });
      if (stat?.isDirectory()) walk(file);
      else if (stat?.isFile()) text += readFileSync(file, 'latin1');
    }
  };
  walk(folder);
  return text;
}

/** The environments of every process of the remote user, as /proc has them. */
function remoteProcessEnvironments(): string {
  const uid = Number(execFileSync('id', ['-u', remoteTestUser], { encoding: 'utf8' }).trim());
  let text = '';
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (statSync(`/proc/${pid}`).uid !== uid) continue;
      text += readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      // Gone meanwhile.
    }
  }
  return text;
}

const modes = (['pi', 'codex', 'claude-code', 'gemini-cli'] as const).flatMap((providerId) => (['none', 'provider-only'] as const).map((network) => [providerId, network] as const));

describe('an agent CLI on an SSH host, its model traffic through the console’s tunnel', { timeout: cliTestTimeoutMs }, () => {
  it.each(modes)('%s (network %s) reaches the model with the key added only on the console’s side, and the host never holds the key', async (providerId, network) => {
    const model: ModelServer = await startModelServer(protocolFor[providerId]);
    cleanups.push(() => model.close());
    // The provider answers only the real key.
    model.requireKey(secret);
    const provider = providerEntry(providerId);
    const connection = { provider: connectionProviderFor[providerId], method: 'api_key' as const, baseUrl: model.baseUrl };
    const route = remoteCredentialRoute(provider.definition, connection, relayPort);
    if (route.kind !== 'tunnel') throw new Error('a connection with a base URL goes through the tunnel');
    expect(route.agentBaseUrl).toBe(`http://127.0.0.1:${relayPort}${new URL(model.baseUrl).pathname.replace(/\/+$/, '')}`);

    // The run's remote task root, the remote user's (as the remote supervisor makes it).
    const workspace: AgentWorkspace = createWorkspace(providerId, { base: path.join(remoteHome, '.oc-e2e-remote-tunnel') });
    cleanups.push(() => workspace.cleanup());
    const root = workspace.taskRoot.root;
    mkdirSync(path.join(root, 'model'), { mode: 0o700 });
    mkdirSync(path.join(root, 'egress'), { mode: 0o700 });
    execFileSync('chown', ['-R', `${remoteTestUser}:${remoteTestUser}`, path.dirname(root)]);

    const notes: ModelProxyNote[] = [];
    const proxy: ModelProxy = await startModelProxy({
      upstreamBaseUrl: route.upstreamBaseUrl,
      secret,
      runToken,
      socketPath: path.join(consoleDir, `${providerId}.sock`),
      onRequest: (note) => notes.push(note),
    });
    cleanups.push(() => proxy.close());
    // Provider only, as confine-on-host.ts builds it: the console's egress proxy (nothing allowed: the model is
    // not the egress proxy's business) beside the model proxy on the same ssh, the agent behind both relays,
    // the proxy variables pointing at the egress relay, the model's base URL on the sandbox's loopback (NO_PROXY).
    const decisions: EgressDecision[] = [];
    const egress: EgressProxy | null =
      network === 'provider-only' ? await startEgressProxy({ socketPath: path.join(consoleDir, `${providerId}-egress.sock`), allow: [], onDecision: (decision) => decisions.push(decision) }) : null;
    if (egress) cleanups.push(() => egress.close());
    const egressSocket = path.join(root, 'egress', 'proxy.sock');
    const tunnel: ModelTunnel = await openModelTunnel({
      ssh,
      host: server.alias,
      sockets: [{ localSocket: proxy.socketPath, remoteSocket: path.join(root, 'model', 'model.sock') }, ...(egress ? [{ localSocket: egress.socketPath!, remoteSocket: egressSocket }] : [])],
    });
    cleanups.push(() => tunnel.close());
    const egressPort = relayPort + 1;

    const environmentsWhileWaiting: string[] = [];
    const stop = model.onRequest(() => environmentsWhileWaiting.push(remoteProcessEnvironments()));
    const result = await runCli({
      providerId,
      workspace,
      connection: { baseUrl: route.agentBaseUrl, apiKey: runToken },
      prompt: 'Create the file hello.txt.',
      environmentKind: 'sandboxed',
      launchVia: ({ executable, args, env, cwd }) => {
        // What the console delivered into the remote task root is the remote user's, as on a host.
        execFileSync('chown', ['-R', `${remoteTestUser}:${remoteTestUser}`, root]);
        const relayed = (socketPath: string, port: number, command: string[]) => egressRelayCommand({ nodePath: process.execPath, relayScript: findEgressRelayScript(), socketPath, relayPort: port, forwards: [], command });
        const relay = relayed(tunnel.remoteSockets[0]!, relayPort, egress ? relayed(egressSocket, egressPort, [executable, ...args]) : [executable, ...args]);
        const proxyVariables = egress ? egressProxyEnvironment(egressPort) : {};
        // A private /tmp first, then what the run needs over it: the repository (the CLI and the relay are
        // in it) and the task root (inside it) may be under /tmp, as in a CI clone.
        const sandbox = ['bwrap', '--unshare-user', '--unshare-net', '--unshare-pid', '--die-with-parent', '--ro-bind', '/', '/', '--tmpfs', '/tmp', '--ro-bind', repositoryRoot, repositoryRoot, '--bind', root, root, '--dev', '/dev', '--proc', '/proc', '--chdir', cwd];
        const environment = ['/usr/bin/env', '-i', ...Object.entries({ ...env, ...proxyVariables }).map(([name, value]) => `${name}=${value}`)];
        const remoteCommand = ['exec', ...[...sandbox, '--', ...environment, ...relay].map(remoteShellWord)].join(' ');
        return {
          file: 'ssh',
          args: ['-F', server.configFile, '-T', '-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${server.operatorKnownHosts}`, '-o', 'StrictHostKeyChecking=yes', '--', server.alias, remoteCommand],
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...server.env },
        };
      },
    });
    stop();

    expect(result.failure, `${result.stderr}\n${result.stdout}`).toBeNull();
    expect(result.exitCode).toBe(0);
    // The agent worked on the host: its tool call made the file in its view there.
    expect(existsSync(path.join(workspace.taskRoot.view, 'hello.txt'))).toBe(true);
    // The model server (which answers only the real key) was asked, every time with the key the console added.
    expect(model.modelRequests().length).toBeGreaterThanOrEqual(2);
    for (const request of model.modelRequests()) expect(credentialOf(request.headers, request.query)).toBe(secret);
    // Anything else that came through was the console's key too, or a bare HEAD of the base (Claude Code's connectivity check), which carries none.
    const keyless = model.requests.filter((request) => credentialOf(request.headers, request.query) !== secret);
    expect(keyless.map((request) => `${request.method} ${request.path} ${credentialOf(request.headers, request.query)}`)).toEqual(keyless.map(() => 'HEAD / null'));
    // Everything the CLI asked for is one of the model API's paths the proxy passes.
    expect(notes.filter((note) => note.refused)).toEqual([]);
    expect(notes.length).toBe(model.requests.length);

    // The key was never on the host.
    expect(result.delivery.secrets).toEqual([runToken]);
    expect(JSON.stringify(result.env)).not.toContain(secret);
    expect(environmentsWhileWaiting.length).toBeGreaterThan(0);
    for (const environments of environmentsWhileWaiting) {
      expect(environments).toContain(runToken);
      expect(environments).not.toContain(secret);
    }
    expect(allFileText(root)).not.toContain(secret);
    expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
    // Provider only: the model went through its tunnel, not the egress proxy (which would have refused it),
    // and whatever else the CLI asked for was refused there, on this machine, and recorded.
    if (egress) {
      // The CLI ran with the proxy variables (its environment, seen on the host while it waited for the model).
      expect(environmentsWhileWaiting.some((environments) => environments.includes(`HTTPS_PROXY=http://127.0.0.1:${egressPort}`))).toBe(true);
      expect(decisions.filter((decision) => decision.allowed)).toEqual([]);
      expect(decisions.filter((decision) => decision.port === relayPort || decision.port === Number(new URL(model.baseUrl).port))).toEqual([]);
    }
  });
});
