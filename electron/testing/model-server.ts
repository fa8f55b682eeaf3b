import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny model server on 127.0.0.1 for connection Tests: the models endpoints of the OpenAI-compatible,
 * Anthropic and Gemini APIs, each accepting one key the way that API sends it. It records what it was
 * asked (the e2e model servers in e2e/agents/ also speak the chat APIs; a Test needs only this).
 */
export interface TestModelServer {
  /** `http://127.0.0.1:<port>` (an OpenAI-compatible base URL is this + `/v1`). */
  origin: string;
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

export async function startTestModelServer(options: { key: string; models?: string[]; hang?: boolean; echoKeyOnError?: boolean }): Promise<TestModelServer> {
  const models = options.models ?? ['fixture-model'];
  const requests: TestModelServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers });
    if (options.hang) return; // never answers: the Test's timeout must end it
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const refuse = (given: string) =>
      send(401, { error: { message: options.echoKeyOnError ? `Incorrect API key provided: ${given}.` : 'Incorrect API key provided.', code: 'invalid_api_key' } });
    if (req.method !== 'GET') return send(404, { error: { message: 'not found' } });
    if (url.pathname === '/v1/models' && req.headers['x-api-key'] !== undefined) {
      // Anthropic: x-api-key and anthropic-version.
      if (req.headers['x-api-key'] !== options.key || !req.headers['anthropic-version']) return refuse(String(req.headers['x-api-key']));
      return send(200, { data: models.map((id) => ({ type: 'model', id })), has_more: false });
    }
    if (url.pathname === '/v1/models') {
      const given = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      if (given !== options.key) return refuse(given);
      return send(200, { object: 'list', data: models.map((id) => ({ id, object: 'model', owned_by: 'test' })) });
    }
    if (url.pathname === '/v1beta/models') {
      const given = String(req.headers['x-goog-api-key'] ?? '');
      if (given !== options.key) return send(400, { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } });
      return send(200, { models: models.map((id) => ({ name: `models/${id}` })) });
    }
    if (url.pathname === '/moved/models') {
      res.writeHead(302, { location: 'http://example.invalid/v1/models' });
      return res.end();
    }
    send(404, { error: { message: `no route ${url.pathname}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
