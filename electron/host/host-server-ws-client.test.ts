import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { TransportState } from '../../shared/contract';
import { OperatorError } from '../../shared/errors';
import { createWebSocketClient, type SocketConstructor, type WebSocketClient } from '../../renderer/api/ws-client';
import { createCore } from '../core';
import { createMemoryLogger } from '../platform/log';
import { makeTempDir } from '../testing/temp-dir';
import { startHostServer, type HostServer } from './host-server';

/**
 * The renderer's WebSocket client against the real host and core. It lives here, not in renderer/,
 * because it needs Node (the host, `ws`), which the renderer's program must not see.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startHost(options: { port?: number; token?: string } = {}) {
  const data = makeTempDir('oc-wsc-data-');
  const statics = makeTempDir('oc-wsc-static-');
  writeFileSync(path.join(statics.path, 'index.html'), '<!doctype html><title>test</title>');
  const log = createMemoryLogger();
  const core = createCore({ dataDir: data.path, transport: 'browser', appVersion: 'test', log });
  const server = await startHostServer({
    core,
    staticDir: statics.path,
    port: options.port ?? 0,
    log,
    ...(options.token !== undefined ? { token: options.token } : {}),
  });
  cleanups.push(data.remove, statics.remove, () => core.close(), () => server.close());
  return { core, server };
}

/** `ws`'s class, sending the Origin a browser would send for the host's own page. */
function socketClassFor(server: HostServer): SocketConstructor {
  class PageSocket extends WebSocket {
    constructor(url: string) {
      super(url, { origin: server.origin });
    }
  }
  return PageSocket as unknown as SocketConstructor;
}

function connectClient(server: HostServer, extra: Partial<Parameters<typeof createWebSocketClient>[0]> = {}): WebSocketClient {
  const client = createWebSocketClient({
    url: `ws://127.0.0.1:${server.port}/ws?token=${server.token}`,
    // Node's own fetch, asking the real host as the page does.
    sessionUrl: `http://127.0.0.1:${server.port}/session?token=${server.token}`,
    WebSocketImpl: socketClassFor(server),
    reconnectDelayMs: { initial: 50, max: 200 },
    ...extra,
  });
  cleanups.push(() => client.close());
  return client;
}

function waitForState(client: WebSocketClient, wanted: TransportState, timeoutMs = 5_000): Promise<void> {
  if (client.transportState() === wanted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`transport stayed ${client.transportState()}, wanted ${wanted}`)), timeoutMs);
    const stop = client.onTransportState((state) => {
      if (state !== wanted) return;
      clearTimeout(timer);
      stop();
      resolve();
    });
  });
}

describe('the WebSocket client against the browser host', () => {
  it('exposes exactly the contract channels and round-trips requests and events', async () => {
    const { server } = await startHost();
    const client = connectClient(server);
    expect(client.transportState()).toBe('connecting');
    expect('invoke' in client).toBe(false);

    const changes: unknown[] = [];
    client.subscribe('projectsChanged', (payload) => changes.push(payload));
    const folder = makeTempDir('oc-wsc-project-');
    cleanups.push(folder.remove);

    // Made before the socket is open: it waits for the connection instead of failing.
    const added = await client.addProject({ path: folder.path, name: 'Fixture' });
    expect(client.transportState()).toBe('connected');
    expect(added).toMatchObject({ name: 'Fixture', isGitRepo: false });
    expect(await client.listProjects()).toEqual([added]);
    const info = await client.getSystemInfo();
    expect(info.transport).toBe('browser');
    await expect.poll(() => changes).toEqual([{}]);
  });

  it('rethrows refusals as OperatorError with their stable code', async () => {
    const { server } = await startHost();
    const client = connectClient(server);
    const missing = await client.addProject({ path: '/definitely/not/here/oc-test' }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OperatorError);
    expect(missing).toMatchObject({ code: 'path_not_found' });
    const invalid = await (client.addProject as (input: unknown) => Promise<unknown>)({ path: 42 }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ code: 'invalid_request' });
    const tooLarge = await client
      .addProject({ path: '/tmp', name: 'x'.repeat(2 * 1024 * 1024) })
      .catch((error: unknown) => error);
    expect(tooLarge).toMatchObject({ code: 'payload_too_large' });
    expect(await client.countOpenNotices()).toEqual({ open: 0 });
  });

  it('reconnects by itself when the host comes back on the same port', async () => {
    const first = await startHost();
    const client = connectClient(first.server);
    await waitForState(client, 'connected');
    const states: TransportState[] = [];
    client.onTransportState((state) => states.push(state));

    await first.server.close();
    await waitForState(client, 'reconnecting');
    // Made while the host is down: it waits for the reconnection.
    const waiting = client.countOpenNotices();

    await startHost({ port: first.server.port, token: first.server.token });
    await waitForState(client, 'connected');
    expect(await waiting).toEqual({ open: 0 });
    expect(states).toEqual(['reconnecting', 'connected']);
  });

  it('stops, refused, when the host comes back on the same port with a new token', async () => {
    const first = await startHost();
    const client = connectClient(first.server);
    await waitForState(client, 'connected');
    const states: TransportState[] = [];
    client.onTransportState((state) => states.push(state));

    await first.server.close();
    await waitForState(client, 'reconnecting');
    const waiting = client.countOpenNotices().catch((error: unknown) => error);
    const second = await startHost({ port: first.server.port });
    expect(second.server.token).not.toBe(first.server.token);
    await waitForState(client, 'refused');
    expect(await waiting).toMatchObject({ code: 'unauthorized', message: expect.stringContaining('console was restarted') });
    expect(states).toEqual(['reconnecting', 'refused']);
  });

  it('gives up on a request when the host stays away', async () => {
    const { server } = await startHost();
    const client = connectClient(server, { connectWaitMs: 300 });
    await waitForState(client, 'connected');
    await server.close();
    await waitForState(client, 'reconnecting');
    await expect(client.listProjects()).rejects.toMatchObject({ code: 'disconnected' });
  });
});
