import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endpointFromUrl, isEgressAllowed, loopbackForwards } from './egress-allow-list';
import { egressSocketPath, startEgressProxy, type EgressDecision, type EgressProxy } from './egress-proxy';
import { chooseRelayPort, egressProxyEnvironment, egressRelayCommand, findEgressRelayScript } from './egress-relay';

/** The host side of the egress proxy, spoken to over its Unix socket as the relay does. */

let base: string;
const closers: Array<() => Promise<void>> = [];

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'oc-egress-')));
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  rmSync(base, { recursive: true, force: true });
});

async function upstream(body: string): Promise<number> {
  const server = http.createServer((request, response) => {
    response.setHeader('x-seen-proxy-authorization', String(request.headers['proxy-authorization'] ?? 'none'));
    response.end(`${body} ${request.method} ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

async function proxyWith(allow: Array<{ host: string; port: number }>, decisions: EgressDecision[] = []): Promise<EgressProxy> {
  const proxy = await startEgressProxy({
    socketPath: path.join(base, 'egress', 'proxy.sock'),
    allow,
    onDecision: (decision) => decisions.push(decision),
  });
  closers.push(() => proxy.close());
  return proxy;
}

function getViaProxy(socketPath: string, url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath, path: url, headers: { host: url.startsWith('http') ? new URL(url).host : 'localhost', ...headers } }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
      })
      .on('error', reject);
  });
}

/** Opens a CONNECT tunnel; on 200 sends a GET through it and returns the raw answer. */
function connectViaProxy(socketPath: string, authority: string): Promise<{ status: number; tunnelled: string }> {
  return new Promise((resolve, reject) => {
    http
      .request({ socketPath, method: 'CONNECT', path: authority })
      .on('connect', (response, socket) => {
        if (response.statusCode !== 200) {
          socket.destroy();
          resolve({ status: response.statusCode ?? 0, tunnelled: '' });
          return;
        }
        let tunnelled = '';
        socket.setEncoding('utf8').on('data', (chunk: string) => (tunnelled += chunk));
        socket.on('end', () => resolve({ status: 200, tunnelled }));
        socket.write(`GET /through-tunnel HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
      })
      .on('error', reject)
      .end();
  });
}

describe('startEgressProxy', () => {
  it('forwards plain HTTP to an allowed endpoint and refuses others with 403, reporting each decision', async () => {
    const allowedPort = await upstream('allowed');
    const deniedPort = await upstream('denied');
    const decisions: EgressDecision[] = [];
    const proxy = await proxyWith([{ host: '127.0.0.1', port: allowedPort }], decisions);
    expect(statSync(proxy.socketPath!).mode & 0o777).toBe(0o600);

    const allowed = await getViaProxy(proxy.socketPath!, `http://127.0.0.1:${allowedPort}/v1/models?x=1`, { 'proxy-authorization': 'Basic c2VjcmV0' });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toBe('allowed GET /v1/models?x=1');
    // The proxy's own credentials stop at the proxy.
    expect(allowed.headers['x-seen-proxy-authorization']).toBe('none');

    const denied = await getViaProxy(proxy.socketPath!, `http://127.0.0.1:${deniedPort}/`);
    expect(denied.status).toBe(403);
    expect(denied.body).toContain(`127.0.0.1:${deniedPort} is not allowed`);

    expect(decisions.map(({ host, port, method, allowed: ok }) => ({ host, port, method, allowed: ok }))).toEqual([
      { host: '127.0.0.1', port: allowedPort, method: 'GET', allowed: true },
      { host: '127.0.0.1', port: deniedPort, method: 'GET', allowed: false },
    ]);
  });

  it('tunnels CONNECT only to allowed host:port pairs', async () => {
    const allowedPort = await upstream('tunnel');
    const decisions: EgressDecision[] = [];
    const proxy = await proxyWith([{ host: '127.0.0.1', port: allowedPort }], decisions);

    const allowed = await connectViaProxy(proxy.socketPath!, `127.0.0.1:${allowedPort}`);
    expect(allowed.status).toBe(200);
    expect(allowed.tunnelled).toContain('tunnel GET /through-tunnel');

    // Same host, other port; other spellings of the allowed host are other hosts.
    for (const authority of [`127.0.0.1:${allowedPort + 1}`, `localhost:${allowedPort}`, `127.1:${allowedPort}`, `[::ffff:127.0.0.1]:${allowedPort}`]) {
      expect((await connectViaProxy(proxy.socketPath!, authority)).status, authority).toBe(403);
    }
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, false, false, false, false]);
  });

  it('refuses a host that is no host name, whatever the list allows, and reports it escaped and cut short', async () => {
    const decisions: EgressDecision[] = [];
    const proxy = await proxyWith([{ host: '*.example.com', port: 443 }], decisions);
    // The agent writes the request line itself: raw bytes, a C1 control (CSI) and a long name in it.
    const raw = (requestLine: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(proxy.socketPath!);
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
        socket.on('close', () => resolve(answer));
        socket.on('error', () => resolve(answer));
        socket.write(Buffer.from(`${requestLine}\r\nHost: x\r\n\r\n`, 'latin1'));
      });
    // Node's own parser drops a request line with a raw C1 control (CSI) in it: nothing is decided or recorded.
    expect(await raw('CONNECT a\x9b2Jb.example.com:443 HTTP/1.1')).not.toMatch(/^HTTP\/1\.1 200/);
    expect(decisions).toEqual([]);
    // Printable characters pass the parser: the proxy refuses the name itself.
    const answer = await raw("CONNECT a'b!$%1b.example.com:443 HTTP/1.1");
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
    expect(answer).toContain('a\\u{27}b\\u{21}\\u{24}\\u{25}1b.example.com:443 is not allowed');
    await raw(`CONNECT ${'x'.repeat(5000)}.example.com:443 HTTP/1.1`);

    const [odd, long] = decisions;
    expect(odd).toMatchObject({ host: 'a\\u{27}b\\u{21}\\u{24}\\u{25}1b.example.com', port: 443, allowed: false, invalidHost: true });
    // A name longer than DNS allows is refused, and what is recorded of it is cut short.
    expect(long).toMatchObject({ allowed: false, invalidHost: true });
    expect(long!.host.length).toBe(255);
  });

  it('answers 400 to requests that are not proxy requests, and 502 when an allowed server is down', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const proxy = await proxyWith([{ host: '127.0.0.1', port: closedPort }]);
    expect((await getViaProxy(proxy.socketPath!, '/relative-path')).status).toBe(400);
    expect((await getViaProxy(proxy.socketPath!, `http://127.0.0.1:${closedPort}/`)).status).toBe(502);
    expect((await connectViaProxy(proxy.socketPath!, `127.0.0.1:${closedPort}`)).status).toBe(502);
  });

  it('applies a changed allow-list to later connections, and cuts open tunnels on close', async () => {
    const port = await upstream('later');
    const proxy = await proxyWith([]);
    expect((await getViaProxy(proxy.socketPath!, `http://127.0.0.1:${port}/`)).status).toBe(403);
    proxy.setAllowList([{ host: '127.0.0.1', port }]);
    expect((await getViaProxy(proxy.socketPath!, `http://127.0.0.1:${port}/`)).status).toBe(200);

    const tunnel = await new Promise<net.Socket>((resolve, reject) => {
      http.request({ socketPath: proxy.socketPath!, method: 'CONNECT', path: `127.0.0.1:${port}` }).on('connect', (_r, socket) => resolve(socket)).on('error', reject).end();
    });
    const closed = new Promise<void>((resolve) => tunnel.on('close', () => resolve()));
    await proxy.close();
    await closed;
  });

  it('replaces a stale socket left by a crashed proxy, but never another kind of file', async () => {
    const socketPath = path.join(base, 'egress', 'proxy.sock');
    mkdirSync(path.dirname(socketPath), { recursive: true });
    // A proxy process killed outright leaves its socket file behind.
    const crashed = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('up'))`]);
    await new Promise((resolve) => crashed.stdout.once('data', resolve));
    crashed.kill('SIGKILL');
    await new Promise((resolve) => crashed.once('exit', resolve));
    expect(statSync(socketPath).isSocket()).toBe(true);

    const proxy = await startEgressProxy({ socketPath, allow: [] });
    await proxy.close();

    const notASocket = path.join(base, 'other', 'proxy.sock');
    mkdirSync(path.dirname(notASocket), { recursive: true });
    writeFileSync(notASocket, 'precious');
    await expect(startEgressProxy({ socketPath: notASocket, allow: [] })).rejects.toThrow(/not a socket/);
  });
});

describe('egress helpers', () => {
  it('derives endpoints from provider URLs and matches hosts exactly or by subdomain wildcard', () => {
    expect(endpointFromUrl('https://api.openai.com/v1')).toEqual({ host: 'api.openai.com', port: 443 });
    expect(endpointFromUrl('http://127.0.0.1:11434/v1')).toEqual({ host: '127.0.0.1', port: 11434 });
    expect(endpointFromUrl('http://[::1]:8080')).toEqual({ host: '::1', port: 8080 });
    const allow = [{ host: '*.example.com', port: 443 }, { host: 'API.Anthropic.com.', port: 443 }];
    expect(isEgressAllowed(allow, 'eu.example.com', 443)).toBe(true);
    expect(isEgressAllowed(allow, 'example.com', 443)).toBe(false);
    expect(isEgressAllowed(allow, 'evil-example.com', 443)).toBe(false);
    expect(isEgressAllowed(allow, 'api.anthropic.com', 443)).toBe(true);
    expect(isEgressAllowed(allow, 'api.anthropic.com', 80)).toBe(false);
  });

  it('forwards only loopback endpoints and keeps the relay port clear of them', () => {
    const allow = [
      { host: 'api.openai.com', port: 443 },
      { host: '127.0.0.1', port: 3128 },
      { host: 'localhost', port: 3129 },
      // The same port again, and a port the sandbox may not listen on: neither gets a listener.
      { host: '127.0.0.1', port: 3129 },
      { host: 'localhost', port: 443 },
    ];
    const forwards = loopbackForwards(allow);
    expect(forwards).toEqual([allow[1], allow[2]]);
    expect(chooseRelayPort(forwards)).toBe(3130);
    expect(chooseRelayPort([])).toBe(3128);
    expect(() =>
      egressRelayCommand({ nodePath: 'node', relayScript: 'r.mjs', socketPath: '/s', relayPort: 3128, forwards, command: ['x'] }),
    ).toThrow(/forwarded loopback port/);
  });

  it('builds the relay command and the proxy variables', () => {
    expect(
      egressRelayCommand({
        nodePath: '/usr/bin/node',
        relayScript: '/app/resources/sandbox/egress-relay.mjs',
        socketPath: '/data/tasks/run_1/egress/proxy.sock',
        relayPort: 3128,
        forwards: [{ host: '127.0.0.1', port: 11434 }, { host: '::1', port: 8080 }],
        command: ['codex', 'exec', '--json'],
      }),
    ).toEqual([
      '/usr/bin/node',
      '/app/resources/sandbox/egress-relay.mjs',
      '/data/tasks/run_1/egress/proxy.sock',
      '3128',
      '--forward',
      '127.0.0.1:11434',
      '--forward',
      '[::1]:8080',
      '--',
      'codex',
      'exec',
      '--json',
    ]);
    expect(egressProxyEnvironment(3128)).toEqual({
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      HTTP_PROXY: 'http://127.0.0.1:3128',
      https_proxy: 'http://127.0.0.1:3128',
      http_proxy: 'http://127.0.0.1:3128',
      NO_PROXY: 'localhost,127.0.0.1,::1',
      no_proxy: 'localhost,127.0.0.1,::1',
    });
    expect(egressProxyEnvironment(41234, { privateLoopback: false })).toMatchObject({ HTTPS_PROXY: 'http://127.0.0.1:41234', NO_PROXY: '', no_proxy: '' });
    expect(findEgressRelayScript()).toMatch(/resources\/sandbox\/egress-relay\.mjs$/);
  });

  it('keeps the socket path short enough for a Unix socket, in a fresh private folder when the task root is too deep', async () => {
    expect(await egressSocketPath({ root: '/data/tasks/run_1' })).toBe('/data/tasks/run_1/egress/proxy.sock');
    const deepRoot = { root: `/home/someone/${'very-long-folder-name/'.repeat(5)}tasks/run_1` };
    const deep = await egressSocketPath(deepRoot);
    const folder = path.dirname(deep);
    try {
      expect(path.dirname(folder)).toBe(os.tmpdir());
      expect(Buffer.byteLength(deep)).toBeLessThanOrEqual(100);
      // Made now, with a random name and for the console only: nobody could have made it first.
      expect(statSync(folder).mode & 0o777).toBe(0o700);
      const again = await egressSocketPath(deepRoot);
      rmSync(path.dirname(again), { recursive: true, force: true });
      expect(again).not.toBe(deep);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
