import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TransportState } from '../../shared/contract';
import { encodeBinaryEvent } from '../../shared/wire';
import { createWebSocketClient, type SocketLike, type WebSocketClient } from './ws-client';

/**
 * The client's own rules (when a request fails, how it reconnects), with a socket the test drives.
 * The same client against the real host is in electron/host/host-server-ws-client.test.ts.
 */

class FakeSocket implements SocketLike {
  static opened: FakeSocket[] = [];
  readyState = 0;
  binaryType = 'blob';
  sent: string[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;

  constructor(readonly url: string) {
    FakeSocket.opened.push(this);
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {
    this.drop();
  }
  accept(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop(): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.onclose?.({});
  }
  receive(data: unknown): void {
    this.onmessage?.({ data });
  }
  lastRequest(): { id: number; channel: string; input?: unknown } {
    return JSON.parse(this.sent.at(-1)!) as { id: number; channel: string; input?: unknown };
  }
}

const clients: WebSocketClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  FakeSocket.opened = [];
  vi.useRealTimers();
});

function makeClient(connectWaitMs = 30_000, session?: { answer: () => Promise<{ status: number }>; checks: string[] }) {
  const client = createWebSocketClient({
    url: 'ws://127.0.0.1:1234/ws?token=t',
    WebSocketImpl: FakeSocket,
    connectWaitMs,
    reconnectDelayMs: { initial: 250, max: 5_000 },
    ...(session
      ? {
          sessionUrl: 'http://127.0.0.1:1234/session?token=t',
          fetchImpl: (url: string) => {
            session.checks.push(url);
            return session.answer();
          },
        }
      : {}),
  });
  clients.push(client);
  const states: TransportState[] = [];
  client.onTransportState((state) => states.push(state));
  return { client, states, socket: () => FakeSocket.opened.at(-1)! };
}

describe('the WebSocket client', () => {
  it('rejects requests in flight with disconnected when the socket drops, then reconnects', async () => {
    vi.useFakeTimers();
    const { client, states, socket } = makeClient();
    socket().accept();
    const inFlight = client.listProjects();
    expect(socket().lastRequest()).toEqual({ type: 'request', id: 1, channel: 'listProjects' });
    socket().drop();
    await expect(inFlight).rejects.toMatchObject({ name: 'OperatorError', code: 'disconnected' });
    expect(client.transportState()).toBe('reconnecting');

    vi.advanceTimersByTime(250);
    expect(FakeSocket.opened).toHaveLength(2);
    socket().accept();
    expect(states).toEqual(['connected', 'reconnecting', 'connected']);
  });

  it('backs off between attempts, doubling up to five seconds', () => {
    vi.useFakeTimers();
    const { socket } = makeClient();
    socket().accept();
    socket().drop();
    const delays: number[] = [];
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const before = FakeSocket.opened.length;
      let waited = 0;
      while (FakeSocket.opened.length === before) {
        vi.advanceTimersByTime(50);
        waited += 50;
      }
      delays.push(waited);
      socket().drop();
    }
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('holds requests made while disconnected until the socket opens, or fails them after the wait', async () => {
    vi.useFakeTimers();
    const { client, socket } = makeClient(1_000);
    const waiting = client.countOpenNotices();
    expect(socket().sent).toEqual([]);
    socket().accept();
    const request = socket().lastRequest();
    expect(request.channel).toBe('countOpenNotices');
    socket().receive(JSON.stringify({ type: 'response', id: request.id, ok: true, value: { open: 3 } }));
    expect(await waiting).toEqual({ open: 3 });

    socket().drop();
    const abandoned = client.countOpenNotices();
    vi.advanceTimersByTime(1_000);
    await expect(abandoned).rejects.toMatchObject({ code: 'disconnected' });
  });

  it('delivers events, binary ones with their bytes, and ignores what is outside the protocol', () => {
    const { client, socket } = makeClient();
    socket().accept();
    const received: unknown[] = [];
    const stop = client.subscribe('runsChanged', (payload) => received.push(payload));
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});

    socket().receive(JSON.stringify({ type: 'event', event: 'runsChanged', payload: { runIds: ['a'] } }));
    const frame = encodeBinaryEvent('runsChanged', { runIds: ['b'], bytes: new Uint8Array([1, 2, 3]) });
    socket().receive(frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.byteLength));
    socket().receive('not json');
    socket().receive(JSON.stringify({ type: 'event', event: 'runsChanged', payload: { runIds: 'wrong' } }));
    socket().receive(JSON.stringify({ type: 'event', event: 'noSuchEvent', payload: {} }));
    stop();
    socket().receive(JSON.stringify({ type: 'event', event: 'runsChanged', payload: { runIds: ['c'] } }));

    expect(received).toEqual([{ runIds: ['a'] }, { runIds: ['b'] }]);
    expect(errors).toHaveBeenCalledTimes(2);
    errors.mockRestore();
  });

  it('refuses an oversized request without sending it, and fails everything on close', async () => {
    const { client, socket } = makeClient();
    socket().accept();
    await expect(client.addProject({ path: '/tmp', name: 'x'.repeat(1024 * 1024) })).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    expect(socket().sent).toEqual([]);
    const inFlight = client.listProjects();
    client.close();
    await expect(inFlight).rejects.toMatchObject({ code: 'disconnected' });
    await expect(client.listProjects()).rejects.toMatchObject({ code: 'disconnected' });
  });
});

describe('the WebSocket client when the console is restarted', () => {
  function hostAnswering(answer: () => Promise<{ status: number }>) {
    return { answer, checks: [] as string[] };
  }

  it('keeps trying while the host is down or still accepts the token, and never checks after a mere drop', async () => {
    vi.useFakeTimers();
    let hostUp = false;
    const session = hostAnswering(() => (hostUp ? Promise.resolve({ status: 204 }) : Promise.reject(new TypeError('Failed to fetch'))));
    const { client, states, socket } = makeClient(30_000, session);
    socket().accept();
    socket().drop();
    // A socket that was open and dropped: a drop, reconnected without asking.
    expect(session.checks).toEqual([]);
    await vi.advanceTimersByTimeAsync(250);
    socket().drop();
    await vi.advanceTimersByTimeAsync(500);
    expect(session.checks).toEqual(['http://127.0.0.1:1234/session?token=t']);
    expect(FakeSocket.opened).toHaveLength(3);
    hostUp = true;
    socket().drop();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(session.checks).toHaveLength(2);
    expect(FakeSocket.opened).toHaveLength(4);
    socket().accept();
    expect(states).toEqual(['connected', 'reconnecting', 'connected']);
    expect(client.transportState()).toBe('connected');
  });

  it('stops at once when the host refuses the token: state refused, waiting requests fail with unauthorized', async () => {
    vi.useFakeTimers();
    const session = hostAnswering(() => Promise.resolve({ status: 401 }));
    const { client, states, socket } = makeClient(30_000, session);
    socket().accept();
    socket().drop();
    const waiting = client.listProjects().catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(250);
    socket().drop();
    await vi.advanceTimersByTimeAsync(0);
    expect(states).toEqual(['connected', 'reconnecting', 'refused']);
    expect(await waiting).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/console was restarted.*new address/) });
    await expect(client.countOpenNotices()).rejects.toMatchObject({ code: 'unauthorized' });
    // Nothing more is tried: no socket, no check, however long the page stays open.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeSocket.opened).toHaveLength(2);
    expect(session.checks).toHaveLength(1);
    expect(client.transportState()).toBe('refused');
  });

  it('treats any answer but 401 as no verdict, and a page opened under a refused token as refused from the start', async () => {
    vi.useFakeTimers();
    const forbidden = hostAnswering(() => Promise.resolve({ status: 503 }));
    const first = makeClient(30_000, forbidden);
    first.socket().drop();
    await vi.advanceTimersByTimeAsync(250);
    expect(FakeSocket.opened).toHaveLength(2);
    expect(first.client.transportState()).toBe('connecting');
    first.client.close();

    const refused = hostAnswering(() => Promise.resolve({ status: 401 }));
    const second = makeClient(30_000, refused);
    second.socket().drop();
    await vi.advanceTimersByTimeAsync(0);
    expect(second.states).toEqual(['refused']);
  });
});
