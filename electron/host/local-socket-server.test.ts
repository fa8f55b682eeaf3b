import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { contractVersion, type ServiceWelcome } from '../../shared/service-hello';
import { EventHub } from '../events/event-hub';
import { createMemoryLogger } from '../platform/log';
import { connectToService } from '../service/service-client';
import { startLocalSocketServer, type LocalSocketServer } from './local-socket-server';

/**
 * The console service's local socket on its own, with a core that answers every request and pushes
 * events as fast as it can: what reaches a client, in which order, and what is refused.
 */

let dir: string;
let events: EventHub;
let server: LocalSocketServer;
const welcome: ServiceWelcome = { type: 'welcome', consoleVersion: __APP_VERSION__, contractVersion, pid: process.pid, dataDir: '/data', url: 'http://127.0.0.1:1/?token=t', startedAt: new Date(0).toISOString(), liveRuns: 0 };

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'oc-local-socket-'));
  events = new EventHub();
  server = await startLocalSocketServer({
    core: { events, dispatch: () => Promise.resolve({ ok: true, value: [] }) },
    socketPath: path.join(dir, 'console.sock'),
    log: createMemoryLogger(),
    greeting: { hello: () => ({ ok: true, welcome }), control: () => Promise.resolve({ stopping: false, liveRuns: 0, otherClients: 0 }), secrets: () => ({ legacy: [] }) },
  });
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A raw client: the messages it receives, as text, from its first on. */
function rawClient(headers: Record<string, string> = {}) {
  const ws = new WebSocket('ws://localhost/ws', { createConnection: () => net.connect(server.socketPath), headers });
  const received: string[] = [];
  ws.on('message', (data: Buffer) => received.push(data.toString('utf8')));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  return { ws, received, opened, closed };
}

describe('the service socket', () => {
  it('answers a hello before anything else, however busy the events are', async () => {
    // A flood of broadcasts (a busy service: runs changing, output streaming to others).
    const flood = setInterval(() => {
      for (let n = 0; n < 50; n += 1) events.emit('runsChanged', { runIds: ['run_1'] });
    }, 0);
    try {
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const connection = await connectToService(server.socketPath, { client: 'node-client' });
        expect(connection.welcome).toEqual(welcome);
        await connection.close();
      }
    } finally {
      clearInterval(flood);
    }
  });

  it('refuses a request before the hello with hello_required, and closes', async () => {
    const client = rawClient();
    await client.opened;
    client.ws.send(JSON.stringify({ type: 'request', id: 1, channel: 'listProjects' }));
    expect(await client.closed).toBe(1008);
    expect(client.received.map((text) => JSON.parse(text) as { error: { code: string } })).toEqual([
      { type: 'error', error: expect.objectContaining({ code: 'hello_required' }) },
    ]);
  });

  it('refuses an upgrade that carries an Origin, as a browser would send', async () => {
    const client = rawClient({ Origin: 'http://127.0.0.1:1' });
    await expect(client.opened).rejects.toThrow();
  });
});
