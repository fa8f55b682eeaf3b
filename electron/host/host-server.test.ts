import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { maxRequestBytes } from '../../shared/contract';
import { decodeBinaryEvent, type ServerMessage } from '../../shared/wire';
import { createCore, type Core } from '../core';
import { createMemoryLogger } from '../platform/log';
import { makeTempDir } from '../testing/temp-dir';
import { startHostServer, tokenCookieName, type HostServer } from './host-server';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const indexHtml = '<!doctype html><title>Operator Console</title><script type="module" src="./assets/app.js"></script>';

async function startHost(options: { heartbeatIntervalMs?: number } = {}) {
  const data = makeTempDir('oc-host-data-');
  // The static dir sits inside a parent that also holds a file the host must never serve.
  const parent = makeTempDir('oc-host-static-');
  const staticDir = path.join(parent.path, 'renderer');
  mkdirSync(path.join(staticDir, 'assets'), { recursive: true });
  writeFileSync(path.join(staticDir, 'index.html'), indexHtml);
  writeFileSync(path.join(staticDir, 'assets', 'app.js'), 'console.log("app");');
  writeFileSync(path.join(parent.path, 'secret.txt'), 'not for the browser');
  const log = createMemoryLogger();
  const core = createCore({ dataDir: data.path, transport: 'browser', appVersion: 'test', log });
  const server = await startHostServer({ core, staticDir, port: 0, host: '127.0.0.1', log, ...options });
  cleanups.push(data.remove, parent.remove, () => core.close(), () => server.close());
  return { core, server, log };
}

interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw GET, so tests control every header (fetch would not let them forge Host). */
function httpGet(port: number, target: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: target, agent: false, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on('error', reject);
  });
}

/** A connected socket that remembers every message, so a test can wait for the one it expects. */
class TestSocket {
  readonly messages: ServerMessage[] = [];
  private waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const message = isBinary ? { type: 'event', ...decodeBinaryEvent(new Uint8Array(data)) } : JSON.parse(data.toString());
      this.messages.push(message as ServerMessage);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  async next(match: (message: ServerMessage) => boolean, timeoutMs = 3_000): Promise<ServerMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found) {
        this.messages.splice(this.messages.indexOf(found), 1);
        return found;
      }
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  response(id: number) {
    return this.next((message) => message.type === 'response' && message.id === id);
  }

  async request(id: number, channel: string, input?: unknown) {
    this.ws.send(JSON.stringify({ type: 'request', id, channel, input }));
    return this.response(id);
  }
}

function openSocket(
  server: HostServer,
  options: { token?: string; origin?: string; cookie?: string; autoPong?: boolean } = {},
): Promise<TestSocket> {
  const query = options.token !== undefined ? `?token=${options.token}` : '';
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws${query}`, {
    ...(options.origin !== undefined ? { origin: options.origin } : {}),
    ...(options.autoPong !== undefined ? { autoPong: options.autoPong } : {}),
    headers,
  });
  cleanups.push(() => ws.terminate());
  return new Promise((resolve, reject) => {
    const socket = new TestSocket(ws);
    ws.once('open', () => resolve(socket));
    ws.once('unexpected-response', (_request, response) => reject(new Error(`refused with ${response.statusCode}`)));
    ws.once('error', reject);
  });
}

function projectRows(core: Core): string {
  return JSON.stringify(core.ledger.db.prepare('SELECT * FROM projects ORDER BY id').all());
}

function projectCount(core: Core): number {
  return (core.ledger.db.prepare('SELECT count(*) AS n FROM projects').get() as { n: number }).n;
}

describe('the browser host over HTTP', () => {
  it('refuses a request without the token, or with a wrong one, and says what to open', async () => {
    const { server } = await startHost();
    const missing = await httpGet(server.port, '/');
    expect(missing.status).toBe(401);
    expect(missing.body).toMatch(/Open the URL the console printed/);
    expect(missing.body).not.toContain(server.token);
    const wrong = await httpGet(server.port, '/?token=not-the-token');
    expect(wrong.status).toBe(401);
    const wrongCookie = await httpGet(server.port, '/', { cookie: `${tokenCookieName(server.port)}=nope` });
    expect(wrongCookie.status).toBe(401);
  });

  it('serves the page with the token and sets a cookie that works on its own afterwards', async () => {
    const { server } = await startHost();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const page = await httpGet(server.port, `/?token=${server.token}`);
    expect(page.status).toBe(200);
    expect(page.body).toBe(indexHtml);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${server.port} ws://localhost:${server.port}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    const cookie = String(page.headers['set-cookie']);
    expect(cookie).toContain(`${tokenCookieName(server.port)}=${server.token}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');

    const cookieHeader = `${tokenCookieName(server.port)}=${server.token}`;
    const script = await httpGet(server.port, '/assets/app.js', { cookie: `other=1; ${cookieHeader}` });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['set-cookie']).toBeUndefined();
    expect(script.headers['content-security-policy']).toBeUndefined();

    // localhost names the same host, so it is accepted too.
    const viaLocalhost = await httpGet(server.port, '/', { cookie: cookieHeader, host: `localhost:${server.port}` });
    expect(viaLocalhost.status).toBe(200);
  });

  it('refuses a foreign Host header, which is how DNS rebinding arrives', async () => {
    const { server } = await startHost();
    const rebound = await httpGet(server.port, `/?token=${server.token}`, { host: `evil.example:${server.port}` });
    expect(rebound.status).toBe(403);
    const wrongPort = await httpGet(server.port, `/?token=${server.token}`, { host: `127.0.0.1:${server.port + 1}` });
    expect(wrongPort.status).toBe(403);
  });

  it('refuses requests a foreign page sends with its Origin', async () => {
    const { server } = await startHost();
    const answer = await httpGet(server.port, `/?token=${server.token}`, { origin: 'http://evil.example' });
    expect(answer.status).toBe(403);
  });

  it('answers the page’s session check: 204 for its token, 401 once the token is not the host’s, 403 to anyone else', async () => {
    const { server } = await startHost();
    const cookie = `${tokenCookieName(server.port)}=${server.token}`;
    const byCookie = await httpGet(server.port, '/session', { cookie });
    expect(byCookie.status).toBe(204);
    expect(byCookie.body).toBe('');
    expect(byCookie.headers['cache-control']).toBe('no-store');
    expect((await httpGet(server.port, `/session?token=${server.token}`, { origin: server.origin })).status).toBe(204);
    // What a page opened under an earlier console presents: the refusal it can read, and the words it gets.
    const stale = await httpGet(server.port, '/session?token=an-earlier-consoles-token', { cookie: `${tokenCookieName(server.port)}=an-earlier-consoles-token` });
    expect(stale.status).toBe(401);
    expect(stale.body).not.toContain(server.token);
    expect((await httpGet(server.port, '/session')).status).toBe(401);
    // Another site cannot even learn whether the operator's token is current.
    expect((await httpGet(server.port, '/session', { cookie, origin: 'http://evil.example' })).status).toBe(403);
    expect((await httpGet(server.port, '/session', { cookie, host: `evil.example:${server.port}` })).status).toBe(403);
    expect((await httpGet(server.port, '/session', { cookie, origin: 'http://evil.example' })).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('serves nothing outside the renderer directory', async () => {
    const { server } = await startHost();
    const auth = { cookie: `${tokenCookieName(server.port)}=${server.token}` };
    for (const target of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00', '/missing.js', '/assets']) {
      const answer = await httpGet(server.port, target, auth);
      expect(answer.status, target).toBe(404);
      expect(answer.body).not.toContain('not for the browser');
    }
  });
});

describe('the browser host WebSocket', () => {
  it('refuses a socket without the token (401) or from a foreign Origin (403)', async () => {
    const { server } = await startHost();
    await expect(openSocket(server, { origin: server.origin })).rejects.toThrow('refused with 401');
    await expect(openSocket(server, { origin: server.origin, token: 'wrong' })).rejects.toThrow('refused with 401');
    await expect(openSocket(server, { origin: 'http://evil.example', token: server.token })).rejects.toThrow('refused with 403');
    await expect(openSocket(server, { token: server.token })).rejects.toThrow('refused with 403');
    const ok = await openSocket(server, { origin: server.origin, token: server.token });
    expect(ok.ws.readyState).toBe(WebSocket.OPEN);
    const viaCookie = await openSocket(server, {
      origin: `http://localhost:${server.port}`,
      cookie: `${tokenCookieName(server.port)}=${server.token}`,
    });
    expect(viaCookie.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('answers requests and pushes the events they cause', async () => {
    const { server, core } = await startHost();
    const socket = await openSocket(server, { origin: server.origin, token: server.token });
    const folder = makeTempDir('oc-host-project-');
    cleanups.push(folder.remove);

    const added = await socket.request(1, 'addProject', { path: folder.path });
    expect(added).toMatchObject({ type: 'response', id: 1, ok: true, value: { name: path.basename(folder.path) } });
    expect(await socket.next((message) => message.type === 'event')).toEqual({ type: 'event', event: 'projectsChanged', payload: {} });
    const listed = await socket.request(2, 'listProjects');
    expect(listed).toMatchObject({ type: 'response', id: 2, ok: true, value: [{ path: expect.stringContaining('oc-host-project-') }] });
    expect(projectCount(core)).toBe(1);

    const again = await socket.request(3, 'addProject', { path: folder.path });
    expect(again).toMatchObject({ type: 'response', id: 3, ok: false, error: { code: 'project_exists' } });
  });

  it('answers every malformed message with its code, keeps serving, and leaves the ledger alone', async () => {
    const { server, core, log } = await startHost();
    const socket = await openSocket(server, { origin: server.origin, token: server.token });
    const folder = makeTempDir('oc-host-project-');
    cleanups.push(folder.remove);
    await socket.request(1, 'addProject', { path: folder.path });
    const rowsBefore = projectRows(core);
    const countBefore = projectCount(core);
    let nextId = 100;
    const stillServing = async () => {
      const id = nextId++;
      expect(await socket.request(id, 'countOpenNotices')).toEqual({ type: 'response', id, ok: true, value: { open: 0 } });
    };

    socket.ws.send('{"type":"request", not json');
    expect(await socket.next((message) => message.type === 'error')).toMatchObject({ error: { code: 'malformed_message' } });
    await stillServing();

    socket.ws.send(JSON.stringify({ hello: 'there' }));
    expect(await socket.next((message) => message.type === 'error')).toMatchObject({ error: { code: 'malformed_message' } });
    await stillServing();

    socket.ws.send(JSON.stringify({ type: 'request', id: 7, channel: 'addProject', input: { path: folder.path }, extra: true }));
    expect(await socket.response(7)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    await stillServing();

    expect(await socket.request(8, 'dropAllTables', {})).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    await stillServing();

    expect(await socket.request(9, 'addProject', { path: 42 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await socket.request(10, 'removeProject', { projectId: '' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    await stillServing();

    const huge = 'x'.repeat(maxRequestBytes + 10);
    expect(await socket.request(11, 'addProject', { path: folder.path, name: huge })).toMatchObject({
      ok: false,
      error: { code: 'payload_too_large' },
    });
    socket.ws.send(huge);
    expect(await socket.next((message) => message.type === 'error')).toMatchObject({ error: { code: 'payload_too_large' } });
    await stillServing();

    socket.ws.send(new Uint8Array([1, 2, 3, 4]), { binary: true });
    expect(await socket.next((message) => message.type === 'error')).toMatchObject({ error: { code: 'malformed_message' } });
    await stillServing();

    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
    expect(projectCount(core)).toBe(countBefore);
    expect(projectRows(core)).toBe(rowsBefore);
    // Each refusal is logged once, by whichever layer refused it.
    const refusals = log.lines.filter((line) => line.message === 'websocket message refused' || line.message === 'request refused');
    expect(refusals.map((line) => line.code)).toEqual([
      'malformed_message',
      'malformed_message',
      'invalid_request',
      'unknown_channel',
      'invalid_request',
      'invalid_request',
      'payload_too_large',
      'payload_too_large',
      'malformed_message',
    ]);
  });

  it('sends events whose payload holds bytes as binary frames', async () => {
    const { server, core } = await startHost();
    const socket = await openSocket(server, { origin: server.origin, token: server.token });
    const bytes = new Uint8Array([0xe2, 0x82, 0xac, 0, 255]);
    // No contract event carries bytes yet (live terminal output will); the host must already frame them.
    (core.events.emit as (event: string, payload: unknown) => void)('runsChanged', { runIds: ['r1'], bytes });
    const message = await socket.next((candidate) => candidate.type === 'event');
    expect(message).toEqual({ type: 'event', event: 'runsChanged', payload: { runIds: ['r1'], bytes } });
  });

  it('drops events for a socket that stops reading, instead of buffering without bound', async () => {
    const { server, core, log } = await startHost();
    const slow = await openSocket(server, { origin: server.origin, token: server.token });
    const underlying = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    underlying.pause();
    const chunk = new Uint8Array(1024 * 1024);
    const emit = core.events.emit.bind(core.events) as (event: string, payload: unknown) => void;
    for (let index = 0; index < 64; index += 1) emit('runsChanged', { runIds: [String(index)], bytes: chunk });
    const dropped = log.lines.filter((line) => line.message === 'websocket too far behind; dropping events until it catches up');
    expect(dropped).toHaveLength(1);
    // Once it reads again it gets what was buffered, and requests are still answered (a response is
    // sent after every event before it, so by then every event that was not dropped has arrived).
    underlying.resume();
    expect(await slow.request(1, 'countOpenNotices')).toMatchObject({ ok: true });
    const runIdsOf = (message: ServerMessage) => (message.type === 'event' ? (message.payload as { runIds: string[] }).runIds : []);
    const delivered = slow.messages.flatMap(runIdsOf);
    // What it got is the events up to the point it fell behind, in order; the rest were dropped, not queued.
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.length).toBeLessThan(64);
    expect(delivered).toEqual(Array.from({ length: delivered.length }, (_, index) => String(index)));
    // Caught up, it gets events again.
    emit('runsChanged', { runIds: ['after catching up'] });
    expect(await slow.next((message) => runIdsOf(message)[0] === 'after catching up')).toMatchObject({ event: 'runsChanged' });
  });

  it('terminates a socket that stops answering pings', async () => {
    const { server } = await startHost({ heartbeatIntervalMs: 50 });
    const silent = await openSocket(server, { origin: server.origin, token: server.token, autoPong: false });
    const healthy = await openSocket(server, { origin: server.origin, token: server.token });
    const closed = await new Promise<number>((resolve) => silent.ws.once('close', (code) => resolve(code)));
    expect(closed).toBe(1006);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes at once, without waiting out its grace period, telling sockets it is going away', async () => {
    const { server } = await startHost();
    const socket = await openSocket(server, { origin: server.origin, token: server.token });
    const closeCode = new Promise<number>((resolve) => socket.ws.once('close', (code) => resolve(code)));
    // A keep-alive HTTP connection must not hold close() open either.
    const agent = new http.Agent({ keepAlive: true });
    cleanups.push(() => agent.destroy());
    await new Promise<void>((resolve) =>
      http.get({ host: '127.0.0.1', port: server.port, path: `/?token=${server.token}`, agent }, (response) => {
        response.resume();
        response.on('end', () => resolve());
      }),
    );
    // Nor may a request whose headers never finish (Node's own close() drops idle connections only).
    const halfRequest = net.connect(server.port, '127.0.0.1');
    cleanups.push(() => halfRequest.destroy());
    const halfRequestClosed = new Promise<void>((resolve) => halfRequest.once('close', () => resolve()));
    await new Promise<void>((resolve) => halfRequest.write(`GET /?token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`, () => resolve()));
    // close() waits for sockets and connections at most a grace period each, by a timer. With timers
    // frozen it can only resolve if every socket said goodbye and every connection closed by itself:
    // should it need a grace timer, it never resolves and the test times out.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    cleanups.push(() => vi.useRealTimers());
    await server.close();
    vi.useRealTimers();
    expect(await closeCode).toBe(1001);
    await halfRequestClosed;
    await expect(httpGet(server.port, '/')).rejects.toThrow();
  });
});
