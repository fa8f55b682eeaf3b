import { promises as fs } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { displayHost, isRequestHost } from '../../shared/allowed-hosts';
import { isEgressAllowed, normalizeHost, type EgressEndpoint } from './egress-allow-list';

// electron/runs/ imports the allow-list and the relay's command from here too.

/**
 * The egress proxy of the `provider-only` network mode.
 *
 * The console runs it on the host, one per run, listening on a Unix socket in the task root. The
 * sandbox has its own network namespace (nothing but its own loopback), and the socket's folder is
 * bound into it. Inside, `resources/sandbox/egress-relay.mjs` starts first: it listens on the
 * sandbox's 127.0.0.1:<relayPort>, passes every connection through to the socket, then starts the
 * agent. The agent's HTTPS_PROXY/HTTP_PROXY point at the relay.
 *
 * The proxy answers plain HTTP requests (absolute-form URLs), CONNECT tunnels and HTTP upgrades, only
 * to allowed `host:port` pairs (the provider API or AI-connection base URL, and the operator's
 * allow-list), and 403 to everything else. Each decision goes to `onDecision` (a run event). The
 * host in a request is the agent's own text: one that is not a host name or an address is refused
 * whatever the list says, and every host reported is in its display form (shared/allowed-hosts.ts:
 * no control or invisible characters, length-capped), so what the console records and shows of it
 * can carry nothing but a name.
 *
 * NO_PROXY: the sandbox's 127.0.0.1 is its own, not the host's. An AI connection whose base URL is on
 * the host's loopback (a local model server) is therefore reached through the relay's forward
 * listeners: for each allowed loopback endpoint the relay also listens on the same port of the
 * sandbox's loopback and tunnels it (CONNECT) through the proxy. So NO_PROXY lists the loopback names:
 * clients that skip the proxy for loopback (Go does, always; Node's fetch ignores proxy variables)
 * still reach the allowed local server, every such connection still passes the proxy's decision,
 * and the agent's own servers inside the sandbox (a dev server under test) stay reachable.
 *
 * The allow-list is egress-allow-list.ts; the relay's command line and the agent's proxy variables
 * are egress-relay.ts.
 */

export interface EgressDecision {
  /** In display form (displayHost): safe to record and show. */
  host: string;
  port: number;
  /** CONNECT for tunnels, the request's method for plain HTTP. */
  method: string;
  allowed: boolean;
  /** Set when the host was refused for not being a host name or address at all. */
  invalidHost?: true;
  /** ISO 8601. */
  at: string;
}

/** A decision as the run's timeline notes it and the run lifecycle tells it (without its time: the note has one). */
export type EgressDecisionNote = Omit<EgressDecision, 'at'>;

export interface EgressProxyOptions {
  /** Listen on this Unix socket (Linux, bound into the sandbox). */
  socketPath?: string;
  /** Or on this TCP port of 127.0.0.1 (macOS, where Seatbelt allows connecting to it). 0 picks one. */
  tcpPort?: number;
  allow: EgressEndpoint[];
  onDecision?: (decision: EgressDecision) => void;
  connectTimeoutMs?: number;
  /** A sandbox's user when the console is root: the socket and its folder are handed to it, so it can connect. */
  owner?: { uid: number; gid: number } | null;
}

export interface EgressProxy {
  socketPath: string | null;
  tcpPort: number | null;
  /** Replaces the allow-list for later connections (e.g. an AI connection's base URL changed). */
  setAllowList(allow: EgressEndpoint[]): void;
  /** Stops listening and cuts every open tunnel. */
  close(): Promise<void>;
}

// Linux allows 107 bytes in a socket path (108 with the terminating NUL), macOS 103; keep a margin.
const maxSocketPathBytes = 100;
const socketPathLimitBytes = process.platform === 'darwin' ? 103 : 107;

/**
 * Where the run's proxy socket lives: `<root>/egress/proxy.sock` (the task root is the console's, and
 * hidden from every other run's sandbox with the rest of the data directory), or, when that path is
 * too long for a Unix socket, a fresh private folder under the system temporary directory (made with
 * a random name, so nobody can have made it first; also hidden from every sandbox).
 */
export async function egressSocketPath(taskRoot: { root: string }): Promise<string> {
  const preferred = path.join(taskRoot.root, 'egress', 'proxy.sock');
  if (Buffer.byteLength(preferred) <= maxSocketPathBytes) return preferred;
  return path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'oc-egress-')), 'proxy.sock');
}

/** `host:port` of a CONNECT request (`[::1]:443` for IPv6). */
function parseAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority.trim());
  if (!match?.[1] || !match[2]) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return null;
  return { host: normalizeHost(match[1]), port };
}

// Headers that describe one hop, not the request: never forwarded (RFC 9110 section 7.6.1).
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export function endToEndHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const listed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const result: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHop.has(name) || listed.has(name)) continue;
    result[name] = value;
  }
  return result;
}

function refusalBody(host: string, port: number): string {
  return `Operator Console egress proxy: ${displayHost(host)}:${port} is not allowed for this run.\n`;
}

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  if ((options.socketPath === undefined) === (options.tcpPort === undefined)) {
    throw new Error('The egress proxy listens on either a Unix socket or a TCP port.');
  }
  let allow = [...options.allow];
  const connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
  const openSockets = new Set<net.Socket>();

  const decide = (host: string, port: number, method: string): boolean => {
    const valid = isRequestHost(host);
    const allowed = valid && isEgressAllowed(allow, host, port);
    try {
      options.onDecision?.({
        host: displayHost(host),
        port,
        method: displayHost(method).slice(0, 32),
        allowed,
        ...(valid ? {} : { invalidHost: true as const }),
        at: new Date().toISOString(),
      });
    } catch {
      // A failing observer must not change what the proxy does.
    }
    return allowed;
  };

  const track = (socket: net.Socket) => {
    openSockets.add(socket);
    socket.on('close', () => openSockets.delete(socket));
  };

  const server = http.createServer((request, response) => {
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      response.writeHead(400, { 'content-type': 'text/plain', connection: 'close' });
      response.end('Operator Console egress proxy: send an absolute URL (http://host/path) or CONNECT host:port.\n');
      return;
    }
    if (target.protocol !== 'http:') {
      response.writeHead(400, { 'content-type': 'text/plain', connection: 'close' });
      response.end('Operator Console egress proxy: use CONNECT for https.\n');
      return;
    }
    const host = normalizeHost(target.hostname);
    const port = target.port ? Number(target.port) : 80;
    if (!decide(host, port, request.method ?? 'GET')) {
      response.writeHead(403, { 'content-type': 'text/plain', connection: 'close' });
      response.end(refusalBody(host, port));
      return;
    }
    const upstream = http.request(
      {
        host,
        port,
        method: request.method,
        path: `${target.pathname}${target.search}`,
        headers: endToEndHeaders(request.headers),
        timeout: connectTimeoutMs,
      },
      (upstreamResponse) => {
        response.writeHead(upstreamResponse.statusCode ?? 502, endToEndHeaders(upstreamResponse.headers));
        upstreamResponse.pipe(response);
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error('upstream timed out')));
    upstream.on('error', () => {
      if (!response.headersSent) {
        response.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
        response.end(`Operator Console egress proxy: ${displayHost(host)}:${port} did not answer.\n`);
      } else {
        response.destroy();
      }
    });
    request.pipe(upstream);
  });

  server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    track(client);
    const authority = parseAuthority(request.url ?? '');
    if (!authority) {
      client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const { host, port } = authority;
    if (!decide(host, port, 'CONNECT')) {
      const body = refusalBody(host, port);
      client.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    tunnel(client, host, port, head, 'HTTP/1.1 200 Connection Established\r\n\r\n');
  });

  server.on('upgrade', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    track(client);
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const host = normalizeHost(target.hostname);
    const port = target.port ? Number(target.port) : 80;
    if (target.protocol !== 'http:' || !decide(host, port, request.method ?? 'GET')) {
      const body = refusalBody(host, port);
      client.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    // Replay the request in origin form, minus the proxy's own headers, then splice the sockets.
    const lines = [`${request.method} ${target.pathname}${target.search} HTTP/1.1`];
    for (let i = 0; i < request.rawHeaders.length; i += 2) {
      const name = request.rawHeaders[i] ?? '';
      if (/^proxy-/i.test(name)) continue;
      lines.push(`${name}: ${request.rawHeaders[i + 1] ?? ''}`);
    }
    tunnel(client, host, port, Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), head]), null);
  });

  function tunnel(client: net.Socket, host: string, port: number, firstBytes: Buffer, established: string | null): void {
    const upstream = net.connect({ host, port });
    let connected = false;
    track(upstream);
    upstream.setTimeout(connectTimeoutMs, () => upstream.destroy(new Error('connect timed out')));
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      if (established) client.write(established);
      if (firstBytes.length > 0) upstream.write(firstBytes);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (established && !connected) {
        client.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      } else {
        client.destroy();
      }
    });
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  server.on('connection', track);
  server.on('clientError', (_error, socket) => socket.destroy());

  if (options.socketPath !== undefined) {
    const socketPath = options.socketPath;
    if (Buffer.byteLength(socketPath) > socketPathLimitBytes) {
      throw new Error(`The egress socket path is too long for a Unix socket: ${socketPath}`);
    }
    await fs.mkdir(path.dirname(socketPath), { recursive: true, mode: 0o700 });
    await removeStaleSocket(socketPath);
    await listen(server, () => server.listen(socketPath));
    await fs.chmod(socketPath, 0o600);
    if (options.owner) {
      await fs.lchown(path.dirname(socketPath), options.owner.uid, options.owner.gid);
      await fs.lchown(socketPath, options.owner.uid, options.owner.gid);
    }
  } else {
    await listen(server, () => server.listen(options.tcpPort, '127.0.0.1'));
  }
  const address = server.address();
  const tcpPort = typeof address === 'object' && address !== null ? address.port : null;

  return {
    socketPath: options.socketPath ?? null,
    tcpPort,
    setAllowList(next) {
      allow = [...next];
    },
    close() {
      return new Promise((resolve) => {
        for (const socket of openSockets) socket.destroy();
        server.close(() => {
          if (!options.socketPath) return resolve();
          const socketPath = options.socketPath;
          // The folder goes too when it is empty (the temporary-directory fallback would linger).
          void fs
            .rm(socketPath, { force: true })
            .then(() => fs.rmdir(path.dirname(socketPath)))
            .catch(() => undefined)
            .finally(() => resolve());
        });
      });
    },
  };
}

export function listen(server: http.Server, start: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      resolve();
    });
    start();
  });
}

/** A socket left by an earlier proxy for this run (a crash) would make listen() fail. */
export async function removeStaleSocket(socketPath: string): Promise<void> {
  try {
    const stat = await fs.lstat(socketPath);
    if (!stat.isSocket()) throw new Error(`${socketPath} exists and is not a socket; refusing to replace it.`);
    await fs.unlink(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
