import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { egressRelayCommand, findEgressRelayScript } from '../../sandbox/egress-relay';
import { makeTempDir } from '../../testing/temp-dir';
import { remoteTestUser, startSshTestServer, type SshTestServer } from '../../testing/ssh-test-server';
import { sshConnectionTo, type SshConnection } from '../remote-script';
import { sshEnvironment, type SshSettings } from '../ssh-command';
import { newModelTunnelToken, startModelProxy } from './model-proxy';
import { keepModelTunnel, openModelTunnel } from './model-tunnel';
import { installRelayOnHost, openRunModelTunnel } from './run-model-tunnel';
import { pidsWithMarker, waitFor } from '../../sandbox/test-fixtures';

/**
 * The model tunnel with a real OpenSSH server on 127.0.0.1: the console's model proxy on its side, ssh
 * -R carrying a socket into a run's remote task root, and on the host (as the remote user) a client in a
 * bubblewrap sandbox with no network but its own loopback, reaching the model through the egress relay
 * on that loopback, with the run's tunnel token for a key. The provider (a server on the console's side) gets the
 * real key; the host never holds it.
 */

const remoteHome = `/home/${remoteTestUser}`;
const secret = `sk-tunnel-${randomBytes(12).toString('hex')}`;
const runToken = newModelTunnelToken();
let server: SshTestServer;
let ssh: SshConnection;
let temp: { path: string; remove: () => void };
let provider: http.Server;
let seen: Array<{ url: string; authorization: string | undefined }>;

beforeAll(async () => {
  server = await startSshTestServer();
  temp = makeTempDir('oc-model-tunnel-');
  writeFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
  const settings: SshSettings = { program: 'ssh', configFile: server.configFile, env: sshEnvironment({ ...process.env, ...server.env }), consoleKnownHosts: path.join(temp.path, 'known_hosts'), connectTimeoutSeconds: 10 };
  ssh = await sshConnectionTo(settings, server.alias);
  seen = [];
  provider = http.createServer((request, response) => {
    seen.push({ url: request.url ?? '', authorization: request.headers.authorization });
    request.resume();
    if (request.headers.authorization !== `Bearer ${secret}`) {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end('{"error":"bad key"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"answer":"from the model"}');
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
}, 30_000);
afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => provider.close(() => resolve()));
  temp?.remove();
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A run's remote task root, made by the remote user as the remote supervisor would. */
function remoteTaskRoot(): string {
  const root = `${remoteHome}/.oc-tunnel-test/${randomBytes(5).toString('hex')}`;
  execFileSync('/usr/sbin/runuser', ['-u', remoteTestUser, '--', 'mkdir', '-p', '-m', '700', `${root}/model`, `${root}/view`]);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

/** Every file's bytes under a folder (sockets and the like skipped). */
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

async function proxyAndTunnel(root: string) {
  const port = (provider.address() as AddressInfo).port;
  const proxy = await startModelProxy({ upstreamBaseUrl: `http://127.0.0.1:${port}/v1`, secret, runToken, socketPath: path.join(temp.path, `${randomBytes(4).toString('hex')}.sock`) });
  cleanups.push(() => proxy.close());
  const tunnel = await openModelTunnel({ ssh, host: server.alias, sockets: [{ localSocket: proxy.socketPath, remoteSocket: `${root}/model/model.sock` }] });
  cleanups.push(() => tunnel.close());
  return { ...tunnel, remoteSocket: tunnel.remoteSockets[0]! };
}

describe('the model tunnel', () => {
  it('brings a sandboxed client on the host to the model through ssh, the key added only on the console’s side', async () => {
    const root = remoteTaskRoot();
    const tunnel = await proxyAndTunnel(root);
    expect(statSync(tunnel.remoteSocket).isSocket()).toBe(true);
    // sshd binds it as the remote user, for the remote user only.
    expect(statSync(tunnel.remoteSocket).mode & 0o077).toBe(0);

    // In the run's sandbox on the host: no network but its own loopback, the relay there, the run's token for a key.
    const relayPort = 4318;
    const client = `fetch('http://127.0.0.1:${relayPort}/v1/chat/completions', { method: 'POST', headers: { authorization: 'Bearer ${runToken}' }, body: '{}' })
      .then(async (r) => { require('fs').writeFileSync('${root}/view/answer.txt', r.status + ' ' + (await r.text())); })`;
    // The relay from inside the task root, as a host has it (installRelayOnHost): the repository may be
    // anywhere, /tmp included, which the sandbox hides under its own tmpfs.
    const relayScript = `${root}/egress-relay.mjs`;
    copyFileSync(findEgressRelayScript(), relayScript);
    const command = egressRelayCommand({ nodePath: process.execPath, relayScript, socketPath: tunnel.remoteSocket, relayPort, forwards: [], command: [process.execPath, '-e', client] });
    // Off the event loop: the console's proxy answers in this process.
    await promisify(execFile)(
      '/usr/sbin/runuser',
      ['-u', remoteTestUser, '--', 'bwrap', '--unshare-user', '--unshare-net', '--unshare-pid', '--die-with-parent', '--ro-bind', '/', '/', '--bind', root, root, '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', ...command],
      { env: { PATH: '/usr/bin:/bin', HOME: `${root}/view` }, timeout: 30_000 },
    );
    expect(readFileSync(`${root}/view/answer.txt`, 'utf8')).toBe('200 {"answer":"from the model"}');
    expect(seen.at(-1)).toEqual({ url: '/v1/chat/completions', authorization: `Bearer ${secret}` });
    // The host never held the key: not in the run's remote task root, not anywhere in the remote user's home.
    expect(allFileText(root)).not.toContain(secret);
    expect(allFileText(remoteHome)).not.toContain(secret);

    // Closing the tunnel ends ssh and takes the socket away.
    await tunnel.close();
    expect(await tunnel.ended).toMatchObject({ exitCode: expect.any(Number) });
    expect(existsSync(tunnel.remoteSocket)).toBe(false);
  }, 60_000);

  it('carries a provider-only run’s egress socket beside the model’s on the same ssh, and takes both away when closed', async () => {
    const root = remoteTaskRoot();
    execFileSync('/usr/sbin/runuser', ['-u', remoteTestUser, '--', 'mkdir', '-m', '700', `${root}/egress`]);
    const port = (provider.address() as AddressInfo).port;
    const proxy = await startModelProxy({ upstreamBaseUrl: `http://127.0.0.1:${port}/v1`, secret, runToken, socketPath: path.join(temp.path, `${randomBytes(4).toString('hex')}.sock`) });
    cleanups.push(() => proxy.close());
    // Standing in for the egress proxy: anything that answers on a socket of the console's.
    const egressSocket = path.join(temp.path, `${randomBytes(4).toString('hex')}-egress.sock`);
    const egress = http.createServer((_request, response) => response.end('egress proxy here'));
    await new Promise<void>((resolve) => egress.listen(egressSocket, resolve));
    cleanups.push(() => new Promise<void>((resolve) => egress.close(() => resolve())));
    const sockets = [
      { localSocket: proxy.socketPath, remoteSocket: `${root}/model/model.sock` },
      { localSocket: egressSocket, remoteSocket: `${root}/egress/proxy.sock` },
    ];
    const tunnel = await openModelTunnel({ ssh, host: server.alias, sockets });
    cleanups.push(() => tunnel.close());
    expect(tunnel.remoteSockets).toEqual([`${root}/model/model.sock`, `${root}/egress/proxy.sock`]);
    // One ssh carries both.
    expect(pidsWithMarker(`${root}/egress/proxy.sock:`)).toEqual(pidsWithMarker(`${root}/model/model.sock:`));
    const { stdout } = await promisify(execFile)(
      '/usr/sbin/runuser',
      ['-u', remoteTestUser, '--', process.execPath, '-e', `require('http').get({ socketPath: '${root}/egress/proxy.sock', path: '/' }, (r) => { r.setEncoding('utf8').on('data', (t) => process.stdout.write(t)); })`],
      { timeout: 20_000 },
    );
    expect(stdout).toBe('egress proxy here');
    await tunnel.close();
    for (const socket of tunnel.remoteSockets) expect(existsSync(socket)).toBe(false);
  }, 60_000);

  it('replaces a socket an earlier tunnel of the run left behind on the host', async () => {
    const root = remoteTaskRoot();
    execFileSync('/usr/sbin/runuser', ['-u', remoteTestUser, '--', process.execPath, '-e', `require('net').createServer().listen('${root}/model/model.sock', () => process.exit(0))`]);
    expect(statSync(`${root}/model/model.sock`).isSocket()).toBe(true);
    const tunnel = await proxyAndTunnel(root);
    expect(statSync(tunnel.remoteSocket).isSocket()).toBe(true);
  }, 60_000);

  it('is refused, saying why, when the host cannot bind the socket', async () => {
    const root = remoteTaskRoot();
    await expect(proxyAndTunnel(`${root}/missing-folder`)).rejects.toMatchObject({ code: 'ssh_failed', reason: 'tunnel_failed', message: expect.stringMatching(/refused to carry/) });
  }, 60_000);
});

describe('a kept model tunnel', () => {
  it('opens again by itself when its ssh connection dies, so the run keeps its model', async () => {
    const root = remoteTaskRoot();
    const port = (provider.address() as AddressInfo).port;
    const proxy = await startModelProxy({ upstreamBaseUrl: `http://127.0.0.1:${port}/v1`, secret, runToken, socketPath: path.join(temp.path, `${randomBytes(4).toString('hex')}.sock`) });
    cleanups.push(() => proxy.close());
    const changes: boolean[] = [];
    const remoteSocket = `${root}/model/model.sock`;
    const tunnel = await keepModelTunnel({ ssh, host: server.alias, sockets: [{ localSocket: proxy.socketPath, remoteSocket }] }, { onChange: (up) => changes.push(up), retryDelaysMs: [100] });
    cleanups.push(() => tunnel.close());
    const askThroughHost = async () => {
      const { stdout } = await promisify(execFile)(
        '/usr/sbin/runuser',
        ['-u', remoteTestUser, '--', process.execPath, '-e', `require('http').request({ socketPath: '${remoteSocket}', path: '/v1/models', headers: { authorization: 'Bearer ${runToken}' } }, (r) => { process.stdout.write(String(r.statusCode)); process.exit(0); }).end()`],
        { timeout: 20_000 },
      );
      return stdout;
    };
    expect(await askThroughHost()).toBe('200');

    // The connection dies the hard way (its ssh killed): the socket it bound is left behind on the host.
    for (const pid of pidsWithMarker(`${remoteSocket}:`)) process.kill(pid, 'SIGKILL');
    await waitFor(() => changes.length >= 2, 20_000, 'the tunnel to come back');
    expect(changes.slice(0, 2)).toEqual([false, true]);
    expect(await askThroughHost()).toBe('200');
    expect(seen.at(-1)).toEqual({ url: '/v1/models', authorization: `Bearer ${secret}` });
  }, 60_000);

  it('for a run going on already (taken up again by a restarted console), is tried again while its host cannot be reached, and comes up once it answers', async () => {
    const root = remoteTaskRoot();
    const port = (provider.address() as AddressInfo).port;
    const proxy = await startModelProxy({ upstreamBaseUrl: `http://127.0.0.1:${port}/v1`, secret, runToken, socketPath: path.join(temp.path, `${randomBytes(4).toString('hex')}.sock`) });
    cleanups.push(() => proxy.close());
    const changes: Array<{ up: boolean; detail: string }> = [];
    const remoteSocket = `${root}/model/model.sock`;
    await server.stopListening();
    try {
      const tunnel = await keepModelTunnel(
        { ssh, host: server.alias, sockets: [{ localSocket: proxy.socketPath, remoteSocket }] },
        { onChange: (up, detail) => changes.push({ up, detail }), retryDelaysMs: [200], keepTryingFirst: true },
      );
      cleanups.push(() => tunnel.close());
      // Not up, and said so (why, for the run's timeline); no socket on the host yet.
      expect(changes[0]).toMatchObject({ up: false, detail: expect.stringContaining(server.alias) });
      expect(existsSync(remoteSocket)).toBe(false);
    } finally {
      await server.startListening();
    }
    await waitFor(() => changes.some((change) => change.up), 30_000, 'the tunnel to come up once the host answers');
    const { stdout } = await promisify(execFile)(
      '/usr/sbin/runuser',
      ['-u', remoteTestUser, '--', process.execPath, '-e', `require('http').request({ socketPath: '${remoteSocket}', path: '/v1/models', headers: { authorization: 'Bearer ${runToken}' } }, (r) => { process.stdout.write(String(r.statusCode)); process.exit(0); }).end()`],
      { timeout: 20_000 },
    );
    expect(stdout).toBe('200');
    expect(seen.at(-1)).toEqual({ url: '/v1/models', authorization: `Bearer ${secret}` });
  }, 60_000);
});

describe('a run’s model tunnel', () => {
  it('installs the relay on the host once, and serves the model in the run’s sandbox there with the run’s token', async () => {
    const root = remoteTaskRoot();
    const consoleFolder = `${path.dirname(root)}/console-${randomBytes(3).toString('hex')}`;
    cleanups.push(() => rmSync(consoleFolder, { recursive: true, force: true }));
    const installed = await installRelayOnHost({ ssh, host: server.alias }, consoleFolder);
    expect(readFileSync(installed.relayScript)).toEqual(readFileSync(findEgressRelayScript()));
    expect(statSync(installed.relayScript).uid).toBe(statSync(remoteHome).uid);
    expect(installed.nodePath).toMatch(/\/node$/);
    // Again: the same file, not written twice.
    const mtime = statSync(installed.relayScript).mtimeMs;
    expect(await installRelayOnHost({ ssh, host: server.alias }, consoleFolder)).toEqual(installed);
    expect(statSync(installed.relayScript).mtimeMs).toBe(mtime);

    const port = (provider.address() as AddressInfo).port;
    const notes: string[] = [];
    const tunnel = await openRunModelTunnel({
      ssh,
      host: server.alias,
      model: {
        upstreamBaseUrl: `http://127.0.0.1:${port}/v1`,
        secret,
        consoleSocketFolder: path.join(temp.path, randomBytes(4).toString('hex')),
        remoteSocketFolder: `${root}/model`,
        onRequest: (note) => notes.push(`${note.method} ${note.path} ${note.status}`),
      },
      egress: null,
    });
    cleanups.push(() => tunnel.close());
    const relayPort = 4320;
    const client = `fetch('http://127.0.0.1:${relayPort}/v1/responses', { method: 'POST', headers: { authorization: 'Bearer ${tunnel.runToken!}' }, body: '{}' })
      .then(async (r) => { require('fs').writeFileSync('${root}/view/answer.txt', r.status + ' ' + (await r.text())); })`;
    const command = egressRelayCommand({ nodePath: installed.nodePath, relayScript: installed.relayScript, socketPath: tunnel.modelSocket!, relayPort, forwards: [], command: [installed.nodePath, '-e', client] });
    await promisify(execFile)(
      '/usr/sbin/runuser',
      ['-u', remoteTestUser, '--', 'bwrap', '--unshare-user', '--unshare-net', '--unshare-pid', '--die-with-parent', '--ro-bind', '/', '/', '--bind', root, root, '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', ...command],
      { env: { PATH: '/usr/bin:/bin', HOME: `${root}/view` }, timeout: 30_000 },
    );
    expect(readFileSync(`${root}/view/answer.txt`, 'utf8')).toBe('200 {"answer":"from the model"}');
    expect(notes).toEqual(['POST /v1/responses 200']);
    expect(allFileText(root)).not.toContain(secret);
    await tunnel.close();
    expect(existsSync(tunnel.modelSocket!)).toBe(false);
  }, 60_000);
});
