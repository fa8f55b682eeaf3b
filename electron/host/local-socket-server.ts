import { chmod, unlink } from 'node:fs/promises';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Core } from '../core';
import { describeError, type Logger } from '../platform/log';
import { broadcastEvents, HostSocket, type HostSocketGreeting } from './host-socket';

/**
 * The console service's local socket: the same WebSocket messages as the browser's (shared/wire.ts,
 * HostSocket), carried over a Unix socket instead of a TCP port. What keeps others out is the file
 * system: the socket is 0600 in a folder that is 0700 (electron/service/service-socket-path.ts makes
 * it), so only the operator's own processes can connect, and no port is opened. Hence no token and no
 * Origin: a browser cannot reach a Unix socket, and an upgrade that carries an Origin (a browser's
 * would) is refused all the same. Each connection says hello first (HostSocketGreeting).
 */

export interface LocalSocketServerOptions {
  core: Pick<Core, 'dispatch' | 'events'>;
  /** Its folder exists and is private (0700); a file left there by a dead service is replaced. */
  socketPath: string;
  log: Logger;
  greeting: HostSocketGreeting;
}

export interface LocalSocketServer {
  readonly socketPath: string;
  /** The connections that said hello (apps attached now). */
  clients(): HostSocket[];
  /** Called whenever a connection closes. */
  onClientGone(listener: () => void): void;
  close(): Promise<void>;
}

const maxFrameBytes = 8 * 1024 * 1024;
const closeGraceMs = 400;

export async function startLocalSocketServer(options: LocalSocketServerOptions): Promise<LocalSocketServer> {
  const { core, socketPath, log, greeting } = options;
  const sockets = new Set<HostSocket>();
  const goneListeners: Array<() => void> = [];
  let closing = false;

  const server = http.createServer((_request, response) => {
    response.statusCode = 426;
    response.end('The console service speaks WebSocket on /ws.\n');
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes, clientTracking: false });
  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (closing || request.url !== '/ws' || request.headers.origin !== undefined) {
      log.warn('service socket upgrade refused', { path: String(request.url).slice(0, 200), origin: request.headers.origin !== undefined, closing });
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const hostSocket = new HostSocket(ws, core, log, greeting);
      sockets.add(hostSocket);
      ws.on('close', () => {
        sockets.delete(hostSocket);
        for (const listener of goneListeners) listener();
      });
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  // The caller holds the data directory lock, so a socket file here is a dead service's: replace it.
  await unlink(socketPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // The folder (0700) already keeps everyone else out; the socket's own mode says so too.
  await chmod(socketPath, 0o600);
  server.on('error', (error) => log.error('service socket error', { error: describeError(error) }));
  const stopEvents = broadcastEvents(core.events, sockets);
  log.info('service socket listening', { socketPath });

  let closed: Promise<void> | undefined;
  return {
    socketPath,
    clients: () => [...sockets].filter((socket) => socket.hello !== undefined),
    onClientGone: (listener) => void goneListeners.push(listener),
    close: () =>
      (closed ??= (async () => {
        closing = true;
        stopEvents();
        const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.race([Promise.all([...sockets].map((socket) => socket.closeGoingAway())), delay(closeGraceMs)]);
        for (const socket of sockets) socket.terminate();
        server.closeAllConnections();
        await Promise.race([serverClosed, delay(closeGraceMs)]);
        await unlink(socketPath).catch(() => undefined);
      })()),
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
