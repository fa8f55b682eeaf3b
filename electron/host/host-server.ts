import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { realpath } from 'node:fs/promises';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Core } from '../core';
import { describeError, detailsInLog, type Logger } from '../platform/log';
import { broadcastEvents, HostSocket } from './host-socket';
import { contentTypes, resolveStaticFile } from './static-files';

/**
 * The browser host: the built renderer over HTTP and the core's contract over one WebSocket, on
 * 127.0.0.1 only. Anything on the machine can reach a loopback port, and any web page the operator
 * visits can try to, so every HTTP request and every socket must carry the per-launch token, the Host
 * header must name the loopback address (DNS rebinding), and sockets must come from our own Origin.
 * Those checks are here; what one socket does once admitted is host-socket.ts, and which file a path
 * names is static-files.ts.
 */

export interface HostServerOptions {
  core: Pick<Core, 'dispatch' | 'events'>;
  /** The built renderer (dist/renderer). */
  staticDir: string;
  /** 0 picks a free port. */
  port: number;
  host?: '127.0.0.1';
  log: Logger;
  /** The token to require. A fresh random one by default; tests pass one to restart a host in place. */
  token?: string;
  /** How often dead sockets are looked for. */
  heartbeatIntervalMs?: number;
}

export interface HostServer {
  /** The URL to open: http://127.0.0.1:<port>/?token=<token>. */
  url: string;
  /** http://127.0.0.1:<port>, the only origin (besides localhost:<port>) the host answers. */
  origin: string;
  port: number;
  token: string;
  /** Pages connected now. */
  socketCount(): number;
  /** Called with each page's socket as it connects (the console service hands it what it held back). */
  onSocketAccepted(listener: (socket: HostSocket) => void): void;
  close(): Promise<void>;
}

/** Large enough to answer an oversized request with payload_too_large instead of ws closing the socket. */
const maxFrameBytes = 8 * 1024 * 1024;
const defaultHeartbeatMs = 15_000;
/** How long close() lets sockets say goodbye before cutting them. */
const closeGraceMs = 400;

const unauthorizedBody =
  'Operator Console needs its access token. Open the URL the console printed when it started ' +
  '(the one ending in /?token=...).\n';
const forbiddenHostBody = 'Operator Console answers only on 127.0.0.1 or localhost.\n';
const forbiddenOriginBody = 'Operator Console accepts connections only from its own page.\n';

export function createHostToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokenCookieName(port: number): string {
  return `oc_token_${port}`;
}

export async function startHostServer(options: HostServerOptions): Promise<HostServer> {
  const { core, log } = options;
  const bindHost = options.host ?? '127.0.0.1';
  const token = options.token ?? createHostToken();
  const tokenBytes = Buffer.from(token, 'utf8');
  const staticRoot = await realpath(options.staticDir);

  // Known once listening (the port may be 0 until then); every check below runs after that.
  let port = 0;
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();
  let contentSecurityPolicy = '';
  let closing = false;

  const sockets = new Set<HostSocket>();
  const server = http.createServer((request, response) => {
    handleHttpRequest(request, response).catch((error: unknown) => {
      log.error('http request failed unexpectedly', { error: describeError(error) });
      if (!response.headersSent) sendText(response, 500, `Operator Console could not answer this request. ${detailsInLog(log)}\n`);
      else response.destroy();
    });
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes, clientTracking: false });

  function tokenMatches(candidate: string | undefined): boolean {
    if (!candidate) return false;
    const bytes = Buffer.from(candidate, 'utf8');
    return bytes.length === tokenBytes.length && timingSafeEqual(bytes, tokenBytes);
  }

  /** Query token first (a freshly opened URL), then the cookie (every later request from the page). */
  function requestToken(request: http.IncomingMessage, query: URLSearchParams): { valid: boolean; fromQuery: boolean } {
    if (tokenMatches(query.get('token') ?? undefined)) return { valid: true, fromQuery: true };
    return { valid: tokenMatches(readCookie(request.headers.cookie, tokenCookieName(port))), fromQuery: false };
  }

  function hostAllowed(request: http.IncomingMessage): boolean {
    const host = request.headers.host;
    return host !== undefined && allowedHosts.has(host.toLowerCase());
  }

  function originAllowed(origin: string | undefined): boolean {
    return origin !== undefined && allowedOrigins.has(origin.toLowerCase());
  }

  async function handleHttpRequest(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    response.setHeader('X-Content-Type-Options', 'nosniff');
    // The token rides in the first URL; never let it leave in a Referer.
    response.setHeader('Referrer-Policy', 'no-referrer');

    const target = splitRequestTarget(request.url);
    if (!hostAllowed(request)) {
      log.warn('http request refused', { code: 'forbidden_host', path: target?.pathname.slice(0, 200) });
      return sendText(response, 403, forbiddenHostBody);
    }
    if (!target) return sendText(response, 400, 'Bad request.\n');
    // Browsers send Origin on cross-site fetches; a page elsewhere must not read or poke the host.
    const origin = request.headers.origin;
    if (origin !== undefined && !originAllowed(origin)) {
      log.warn('http request refused', { code: 'forbidden_origin', path: target.pathname.slice(0, 200) });
      return sendText(response, 403, forbiddenOriginBody);
    }
    const auth = requestToken(request, target.query);
    if (!auth.valid) {
      log.warn('http request refused', { code: 'unauthorized', path: target.pathname.slice(0, 200) });
      return sendText(response, 401, unauthorizedBody);
    }
    if (auth.fromQuery) {
      // Cookies are scoped by host, not port, hence the port in the name.
      response.setHeader('Set-Cookie', `${tokenCookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return sendText(response, 405, 'Method not allowed.\n');
    }
    if (target.pathname === '/ws') return sendText(response, 426, 'This address is the console WebSocket.\n');
    // Past every check above: the page's session check (a failed socket cannot say it was a 401).
    if (target.pathname === '/session') return sendEmpty(response, 204);

    const file = await resolveStaticFile(staticRoot, target.pathname);
    if (!file) return sendText(response, 404, 'Not found.\n');

    const extension = path.extname(file.path).toLowerCase();
    const isHtml = extension === '.html';
    response.statusCode = 200;
    response.setHeader('Content-Type', contentTypes[extension] ?? 'application/octet-stream');
    response.setHeader('Content-Length', file.size);
    // index.html names the hashed assets of the current build, so it must never be cached.
    response.setHeader('Cache-Control', isHtml ? 'no-store' : 'no-cache');
    if (isHtml) response.setHeader('Content-Security-Policy', contentSecurityPolicy);
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    const stream = createReadStream(file.path);
    stream.on('error', (error) => {
      log.error('static file read failed', { file: file.path, error: describeError(error) });
      response.destroy();
    });
    stream.pipe(response);
  }

  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // Errors on a socket we are about to refuse must not reach the process.
    socket.on('error', () => socket.destroy());
    const target = splitRequestTarget(request.url);
    if (closing) return refuseUpgrade(socket, 503, 'Service Unavailable', 'Operator Console is shutting down.\n');
    if (!hostAllowed(request)) {
      log.warn('websocket refused', { code: 'forbidden_host' });
      return refuseUpgrade(socket, 403, 'Forbidden', forbiddenHostBody);
    }
    if (!target || target.pathname !== '/ws') return refuseUpgrade(socket, 404, 'Not Found', 'Not found.\n');
    if (!requestToken(request, target.query).valid) {
      log.warn('websocket refused', { code: 'unauthorized' });
      return refuseUpgrade(socket, 401, 'Unauthorized', unauthorizedBody);
    }
    if (!originAllowed(request.headers.origin)) {
      log.warn('websocket refused', { code: 'forbidden_origin', origin: String(request.headers.origin).slice(0, 200) });
      return refuseUpgrade(socket, 403, 'Forbidden', forbiddenOriginBody);
    }
    wss.handleUpgrade(request, socket, head, (ws) => acceptSocket(ws));
  });

  // A malformed HTTP request must cost the sender its connection, not the host its process.
  server.on('clientError', (_error, socket) => socket.destroy());

  const acceptedListeners: Array<(socket: HostSocket) => void> = [];
  function acceptSocket(ws: WebSocket): void {
    const hostSocket = new HostSocket(ws, core, log);
    sockets.add(hostSocket);
    ws.on('close', () => sockets.delete(hostSocket));
    log.debug('websocket connected', { sockets: sockets.size });
    for (const listener of acceptedListeners) listener(hostSocket);
  }

  const stopEvents = broadcastEvents(core.events, sockets);

  const heartbeat = setInterval(() => {
    for (const socket of sockets) socket.checkAlive();
  }, options.heartbeatIntervalMs ?? defaultHeartbeatMs);
  heartbeat.unref();

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      clearInterval(heartbeat);
      stopEvents();
      reject(error);
    };
    server.once('error', onError);
    server.listen(options.port, bindHost, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (error) => log.error('http server error', { error: describeError(error) }));

  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('The host server has no TCP address.');
  port = address.port;
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  allowedOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  contentSecurityPolicy = [
    "default-src 'self'",
    "script-src 'self'",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    // xterm.js and React set inline styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

  const origin = `http://127.0.0.1:${port}`;
  let closePromise: Promise<void> | undefined;

  async function closeHost(): Promise<void> {
    closing = true;
    clearInterval(heartbeat);
    stopEvents();
    const httpClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const socketsClosed = Promise.all([...sockets].map((socket) => socket.closeGoingAway()));
    await Promise.race([socketsClosed, delay(closeGraceMs)]);
    for (const socket of sockets) socket.terminate();
    // Keep-alive or half-finished HTTP requests must not hold close() open.
    server.closeAllConnections();
    await Promise.race([httpClosed, delay(closeGraceMs)]);
    log.info('browser host closed', { port });
  }

  log.info('browser host listening', { origin });
  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    socketCount: () => sockets.size,
    onSocketAccepted: (listener) => void acceptedListeners.push(listener),
    close: () => (closePromise ??= closeHost()),
  };
}

/** Splits an origin-form request target ("/path?query"); anything else is refused. */
function splitRequestTarget(url: string | undefined): { pathname: string; query: URLSearchParams } | undefined {
  if (!url || !url.startsWith('/')) return undefined;
  const queryAt = url.indexOf('?');
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1));
  return { pathname, query };
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at === -1) continue;
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function sendText(response: http.ServerResponse, status: number, body: string): void {
  response.statusCode = status;
  response.setHeader('Content-Type', 'text/plain; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(body));
  response.setHeader('Cache-Control', 'no-store');
  response.end(body);
}

function sendEmpty(response: http.ServerResponse, status: number): void {
  response.statusCode = status;
  response.setHeader('Cache-Control', 'no-store');
  response.end();
}

/** Answers a refused upgrade on the raw socket, then drops it. */
function refuseUpgrade(socket: Duplex, status: number, statusText: string, body: string): void {
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      '\r\n' +
      body,
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
