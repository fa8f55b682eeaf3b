import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

/**
 * A proxy that lets nothing through. The CLIs run with HTTP(S)_PROXY pointing here and NO_PROXY
 * covering 127.0.0.1, so a CLI that tries to reach anything but the local model server (telemetry,
 * update checks, a provider's real API) is recorded here and refused (403) instead of leaving the
 * machine. Tests assert it saw nothing. (Clients that ignore the proxy variables are not caught: Pi's
 * Node fetch does not read them; its network use is limited by PI_OFFLINE=1 instead.)
 */
export interface EgressAttempt {
  method: string;
  /** host:port for CONNECT, the absolute URL for plain proxied requests. */
  target: string;
  at: string;
}

export interface EgressCanary {
  url: string;
  attempts: EgressAttempt[];
  close(): Promise<void>;
}

export async function startEgressCanary(): Promise<EgressCanary> {
  const attempts: EgressAttempt[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    attempts.push({ method: req.method ?? 'GET', target: req.url ?? '', at: new Date().toISOString() });
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('egress refused by the e2e canary proxy\n');
  });
  server.on('connect', (req: http.IncomingMessage, socket: Socket) => {
    attempts.push({ method: 'CONNECT', target: req.url ?? '', at: new Date().toISOString() });
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
