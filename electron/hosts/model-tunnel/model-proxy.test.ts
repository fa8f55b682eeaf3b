import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../testing/temp-dir';
import { newModelTunnelToken, startModelProxy, type ModelProxy, type ModelProxyNote } from './model-proxy';

/**
 * The console's model proxy, between a real HTTP server on 127.0.0.1 standing in for the provider and
 * requests on its Unix socket standing in for the agent on the host: the key is added only here, only
 * the model APIs' own paths pass, and answers stream through as they come.
 */

const secret = 'sk-real-key-never-on-the-host';
const runToken = newModelTunnelToken();

interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let upstream: http.Server;
let seen: SeenRequest[];
let proxy: ModelProxy;
let notes: ModelProxyNote[];
let temp: { path: string; remove: () => void };
let releaseStream: () => void;

async function startProxy(base: string, options: { maxRequestBytes?: number } = {}) {
  const address = upstream.address() as AddressInfo;
  proxy = await startModelProxy({
    upstreamBaseUrl: `http://127.0.0.1:${address.port}${base}`,
    secret,
    runToken,
    socketPath: path.join(temp.path, 'model.sock'),
    onRequest: (note) => notes.push(note),
    ...options,
  });
}

beforeEach(async () => {
  temp = makeTempDir('oc-model-proxy-');
  seen = [];
  notes = [];
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  releaseStream = release;
  upstream = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() });
      if (request.url?.includes('hold=1')) {
        // Half an answer now, the rest only when the test says: the client must see the first half before the end.
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('data: first\n\n');
        void released.then(() => response.end('data: second\n\n'));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      response.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  releaseStream();
  await proxy?.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  temp.remove();
});

function ask(
  requestPath: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath: proxy.socketPath, path: requestPath, method: options.method ?? 'POST', headers: options.headers ?? {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: response.headers }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('the model proxy', () => {
  it('puts the key where the agent put the run’s token, in the header its CLI uses, and nowhere else', async () => {
    await startProxy('/v1');
    expect(await ask('/v1/chat/completions', { headers: { authorization: `Bearer ${runToken}`, 'content-type': 'application/json' }, body: '{"model":"m"}' })).toMatchObject({
      status: 200,
      body: '{"ok":true}',
      headers: { 'x-upstream': 'yes' },
    });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions', body: '{"model":"m"}', headers: { authorization: `Bearer ${secret}` } });
    expect(seen[0]!.headers.host).toBe(`127.0.0.1:${(upstream.address() as AddressInfo).port}`);

    await ask('/v1/responses', { headers: { 'x-api-key': runToken } });
    expect(seen[1]!.headers['x-api-key']).toBe(secret);
    expect(seen[1]!.headers.authorization).toBeUndefined();
    await ask('/v1/models', { method: 'GET', headers: { 'x-goog-api-key': runToken } });
    expect(seen[2]!.headers['x-goog-api-key']).toBe(secret);
    // Notes name what passed; never a key.
    expect(JSON.stringify(notes)).not.toContain(secret);
    expect(notes.map((note) => `${note.method} ${note.path} ${note.status}`)).toEqual(['POST /v1/chat/completions 200', 'POST /v1/responses 200', 'GET /v1/models 200']);
  });

  it('puts the key in Gemini’s ?key= in place, and refuses a request that carries no key at all', async () => {
    await startProxy('');
    await ask(`/v1beta/models/gemini-2.5-pro:generateContent?key=${runToken}&alt=sse`);
    expect(seen[0]!.url).toBe(`/v1beta/models/gemini-2.5-pro:generateContent?key=${secret}&alt=sse`);
    // Only the run has its token: a program on the host that reaches the relay without it gets nothing.
    expect((await ask('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse')).status).toBe(401);
    expect((await ask('/v1/messages', { headers: { 'x-api-key': newModelTunnelToken() } })).status).toBe(401);
    // Except a CLI's bare HEAD of the base URL (a connectivity check), which goes on without any key.
    expect((await ask('/', { method: 'HEAD' })).status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toMatchObject({ method: 'HEAD', url: '/' });
    expect(JSON.stringify(seen[1]!.headers)).not.toContain(secret);
  });

  it('refuses another key than the run’s token, and everything but the model APIs’ paths under the base URL, before the provider sees it', async () => {
    await startProxy('/api/v1');
    const token = { authorization: `Bearer ${runToken}` };
    const refused: Array<[string, { method?: string; headers?: Record<string, string> }, number]> = [
      ['/api/v1/chat/completions', { headers: { authorization: 'Bearer sk-someone-else' } }, 401],
      ['/api/v1/chat/completions', { headers: { 'x-api-key': 'sk-someone-else' } }, 401],
      ['/api/v1/models?key=sk-someone-else', { method: 'GET' }, 401],
      ['/v1/chat/completions', { headers: token }, 403],
      ['/api/v1/admin/keys', { headers: token }, 403],
      ['/api/v1/chat/completions/../../../admin', { headers: token }, 400],
      ['/api/v1/%2e%2e/admin', { headers: token }, 400],
      ['/api/v1//chat/completions', { headers: token }, 400],
      ['/api/v1/chat/completions', { method: 'DELETE', headers: token }, 405],
      ['/api/v1/files', { headers: token }, 403],
    ];
    for (const [requestPath, options, status] of refused) {
      expect((await ask(requestPath, options)).status, `${options.method ?? 'POST'} ${requestPath}`).toBe(status);
    }
    expect(seen).toEqual([]);
    expect(notes.every((note) => note.refused)).toBe(true);
  });

  it('refuses a body larger than its bound, and CONNECT', async () => {
    await startProxy('/v1', { maxRequestBytes: 1024 });
    expect((await ask('/v1/chat/completions', { headers: { authorization: `Bearer ${runToken}` }, body: 'x'.repeat(4096) })).status).toBe(413);
    const connect = await new Promise<number>((resolve) => {
      const request = http.request({ socketPath: proxy.socketPath, method: 'CONNECT', path: 'api.openai.com:443' });
      request.on('connect', (response, socket) => {
        socket.destroy();
        resolve(response.statusCode ?? 0);
      });
      request.on('response', (response) => resolve(response.statusCode ?? 0));
      request.end();
    });
    expect(connect).toBe(405);
    expect(seen).toEqual([]);
  });

  it('streams the answer as it comes', async () => {
    await startProxy('/v1');
    const first = await new Promise<string>((resolve, reject) => {
      const request = http.request({ socketPath: proxy.socketPath, path: '/v1/responses?hold=1', method: 'POST', headers: { authorization: `Bearer ${runToken}` } }, (response) => {
        response.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      });
      request.on('error', reject);
      request.end('{}');
    });
    // The upstream has not finished its answer: what arrived came through before the end.
    expect(first).toBe('data: first\n\n');
    releaseStream();
  });
});
