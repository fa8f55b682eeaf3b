import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { endToEndHeaders, listen, removeStaleSocket } from '../../sandbox/egress-proxy';

/**
 * The console's side of a remote run's model traffic (issue 28): a reverse proxy that holds the AI
 * connection's key, so the key never leaves the operator's machine. It listens on a Unix socket of
 * the console's; ssh carries the host's end of it into the run's remote task root (model-tunnel.ts),
 * where the relay in the run's sandbox serves it on the sandbox's loopback. The agent there is given
 * that loopback base URL and, as its key, the run's tunnel token (`newModelTunnelToken`); this proxy puts the real
 * key where the token was (a bearer token, `x-api-key`, `x-goog-api-key` or Google's `?key=`, the
 * way each CLI sends it) and passes the request on to the connection's base URL, streaming both ways.
 *
 * The token is the run's own, random, and not the key: it is all the host ever holds, and it opens
 * only this proxy, only for as long as the run's tunnel is up. It also keeps out whatever else runs on
 * the host: in an `open` network mode the relay listens on the host's own loopback, where any program
 * there could connect, and a request that does not carry the token is refused here.
 *
 * What comes through the socket is the agent's, so it is hostile input: only GET, POST and HEAD, only
 * the model APIs' own paths under the connection's base path (responses, chat completions, messages,
 * models, Gemini's models/…:generateContent), no dot segments or encoded slashes, the run's token and
 * no other credential, a request body of at most `maxRequestBytes`, a response of at most
 * `maxResponseBytes`, and a time limit on each request. Anything else is answered 4xx here and never
 * reaches the provider.
 */

/** What a remote run's agent is given instead of the key: random for each run, so nothing else on the host can use the tunnel. */
export function newModelTunnelToken(): string {
  return `operator-console-tunnel-${randomBytes(24).toString('hex')}`;
}

export interface ModelProxyOptions {
  /** The connection's base URL (its own, or the gateway's): where requests go, and the path prefix they must be under. */
  upstreamBaseUrl: string;
  /** The connection's key: only ever in this process's memory and the upstream request. */
  secret: string;
  /** The run's tunnel token (newModelTunnelToken): what the agent sends where the key would be. */
  runToken: string;
  socketPath: string;
  maxRequestBytes?: number;
  maxResponseBytes?: number;
  /** The longest one model request may take, answer streamed included. */
  requestTimeoutMs?: number;
  /** What passed and what was refused (for the run's timeline); never the key. */
  onRequest?: (note: ModelProxyNote) => void;
}

export interface ModelProxyNote {
  method: string;
  /** The path without its query (a `key=` is never in it). */
  path: string;
  /** The upstream's status, or the proxy's own refusal. */
  status: number;
  refused?: string;
}

export interface ModelProxy {
  socketPath: string;
  close(): Promise<void>;
}

const allowedMethods = new Set(['GET', 'POST', 'HEAD']);
/**
 * The model APIs' paths after the connection's base path: OpenAI's (the base names /v1), Anthropic's
 * and Gemini's (the base is the origin, or a gateway's prefix), and the bare base for a HEAD check.
 */
const apiPath = /^(?:\/(?:v1|v1beta))?(?:\/(?:responses(?:\/[A-Za-z0-9_-]+){0,2}|chat\/completions|completions|messages(?:\/count_tokens)?|models(?:\/[A-Za-z0-9._-]+(?::[A-Za-z]+)?)?))?\/?$/;
const credentialHeaders = ['authorization', 'x-api-key', 'x-goog-api-key'] as const;

export async function startModelProxy(options: ModelProxyOptions): Promise<ModelProxy> {
  const upstream = new URL(options.upstreamBaseUrl);
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error(`The model proxy forwards to http(s) only, not ${upstream.protocol}`);
  const basePath = upstream.pathname.replace(/\/+$/, '');
  const maxRequestBytes = options.maxRequestBytes ?? 32 * 1024 * 1024;
  const maxResponseBytes = options.maxResponseBytes ?? 512 * 1024 * 1024;
  const requestTimeoutMs = options.requestTimeoutMs ?? 15 * 60_000;
  const open = new Set<net.Socket>();
  const note = (entry: ModelProxyNote) => {
    try {
      options.onRequest?.(entry);
    } catch {
      // An observer's failure changes nothing here.
    }
  };

  const server = http.createServer((request, response) => {
    const method = request.method ?? 'GET';
    const refuse = (status: number, why: string, shownPath: string) => {
      note({ method: method.slice(0, 16), path: shownPath.slice(0, 200), status, refused: why });
      response.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
      response.end(`Operator Console model tunnel: ${why}.\n`);
      request.resume();
    };
    // Origin form (the agent's base URL is the relay's loopback); the absolute form of a proxy client is read for its path only.
    const raw = request.url ?? '';
    let target: URL;
    try {
      target = new URL(raw.startsWith('/') ? `http://model-tunnel${raw}` : raw);
    } catch {
      return refuse(400, 'not a request URL', '?');
    }
    const requestPath = target.pathname;
    if (!allowedMethods.has(method)) return refuse(405, `${method} is not a model API method`, requestPath);
    if (/%2e|%2f|%5c|\\|\/\/|(?:^|\/)\.\.?(?:\/|$)/i.test(raw.split('?')[0] ?? '')) return refuse(400, 'the path is not a plain model API path', requestPath);
    if (requestPath !== basePath && !requestPath.startsWith(`${basePath}/`)) return refuse(403, 'the path is not under the AI connection’s base URL', requestPath);
    if (!apiPath.test(requestPath.slice(basePath.length))) return refuse(403, 'the path is not one of the model API’s', requestPath);

    // The credential: the run's token where the CLI put it, and nothing else; then the key in its place.
    const headers = endToEndHeaders(request.headers);
    delete headers.host;
    delete headers.cookie;
    let carried = 0;
    for (const name of credentialHeaders) {
      const value = headers[name];
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(',') : String(value);
      const bearer = /^Bearer\s+(.+)$/i.exec(text)?.[1];
      if ((name === 'authorization' ? bearer : text) !== options.runToken) return refuse(401, `${name} is not the key the console gave this run`, requestPath);
      headers[name] = name === 'authorization' ? `Bearer ${options.secret}` : options.secret;
      carried += 1;
    }
    const query = target.searchParams;
    if (query.has('key')) {
      if (query.getAll('key').some((value) => value !== options.runToken)) return refuse(401, 'key is not the key the console gave this run', requestPath);
      query.set('key', options.secret);
      carried += 1;
    }
    // A bare HEAD of the base is a CLI's connectivity check (Claude Code's): it goes on as it came, without a key.
    const connectivityCheck = method === 'HEAD' && requestPath.slice(basePath.length).replace(/\/$/, '') === '';
    if (carried === 0 && !connectivityCheck) return refuse(401, 'the request carries no key (the run’s agent is given one)', requestPath);
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxRequestBytes) return refuse(413, `the request is larger than ${maxRequestBytes} bytes`, requestPath);

    const transport = upstream.protocol === 'https:' ? https : http;
    const search = query.toString();
    const outgoing = transport.request(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port || undefined,
        method,
        path: `${requestPath}${search ? `?${search}` : ''}`,
        headers: { ...headers, host: upstream.host },
        timeout: requestTimeoutMs,
      },
      (answer) => {
        note({ method, path: requestPath, status: answer.statusCode ?? 502 });
        response.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
        let sent = 0;
        answer.on('data', (chunk: Buffer) => {
          sent += chunk.length;
          if (sent > maxResponseBytes) {
            answer.destroy();
            response.destroy();
          }
        });
        answer.pipe(response);
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy(new Error('timed out'));
      response.destroy();
    }, requestTimeoutMs);
    response.on('close', () => {
      clearTimeout(timer);
      outgoing.destroy();
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')));
    outgoing.on('error', () => {
      if (response.headersSent) return void response.destroy();
      note({ method, path: requestPath, status: 502, refused: 'the AI connection’s base URL did not answer' });
      response.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
      response.end('Operator Console model tunnel: the AI connection’s base URL did not answer.\n');
    });
    let received = 0;
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxRequestBytes) {
        outgoing.destroy();
        if (!response.headersSent) refuse(413, `the request is larger than ${maxRequestBytes} bytes`, requestPath);
        else response.destroy();
      }
    });
    request.pipe(outgoing);
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  // Neither a tunnel nor an upgrade: the model APIs are plain requests.
  server.on('connect', (_request, socket: net.Socket) => socket.end('HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'));
  server.on('upgrade', (_request, socket: net.Socket) => socket.end('HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'));

  await fs.mkdir(path.dirname(options.socketPath), { recursive: true, mode: 0o700 });
  await removeStaleSocket(options.socketPath);
  await listen(server, () => server.listen(options.socketPath));
  await fs.chmod(options.socketPath, 0o600);
  return {
    socketPath: options.socketPath,
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => void fs.rm(options.socketPath, { force: true }).finally(() => resolve()));
      }),
  };
}
