import { afterEach, describe, expect, it, vi } from 'vitest';
import { channelNames, type PreloadBridge } from '../../shared/contract';

/** A stand-in for the few window parts operator-client.ts touches (the unit tests run without a DOM). */
function fakeWindow(href: string, extra: Record<string, unknown> = {}) {
  const storage = new Map<string, string>();
  const url = new URL(href);
  const fake = {
    location: {
      get href() {
        return url.href;
      },
      protocol: url.protocol,
      host: url.host,
    },
    history: {
      state: { kept: true },
      replaceState: vi.fn((_state: unknown, _title: string, next: string) => {
        const resolved = new URL(next, url);
        url.search = resolved.search;
        url.hash = resolved.hash;
      }),
    },
    sessionStorage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => void storage.set(key, value),
    },
    ...extra,
  };
  vi.stubGlobal('window', fake);
  return fake;
}

class RecordingSocket {
  static urls: string[] = [];
  readyState = 0;
  binaryType = 'blob';
  onopen = null;
  onclose = null;
  onerror = null;
  onmessage = null;
  constructor(url: string) {
    RecordingSocket.urls.push(url);
  }
  send(): void {}
  close(): void {}
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
  RecordingSocket.urls = [];
});

describe('the page’s operator client', () => {
  it('takes the token out of the address bar, keeps it for the tab, and keeps the route', async () => {
    const fake = fakeWindow('http://127.0.0.1:4321/?token=abc_DEF-123&x=1#/runs/r1');
    const { captureHostToken, hostSessionUrl, hostSocketUrl } = await import('./operator-client');
    expect(captureHostToken()).toBe('abc_DEF-123');
    expect(fake.history.replaceState).toHaveBeenCalledWith({ kept: true }, '', '/?x=1#/runs/r1');
    expect(fake.location.href).toBe('http://127.0.0.1:4321/?x=1#/runs/r1');
    // A reload no longer has it in the URL, but the tab still does.
    expect(captureHostToken()).toBe('abc_DEF-123');
    expect(fake.history.replaceState).toHaveBeenCalledTimes(1);
    expect(hostSocketUrl('abc_DEF-123', fake.location)).toBe('ws://127.0.0.1:4321/ws?token=abc_DEF-123');
    expect(hostSocketUrl(undefined, { protocol: 'https:', host: 'localhost:9' })).toBe('wss://localhost:9/ws');
    // The session check presents what the socket presents.
    expect(hostSessionUrl('abc_DEF-123', fake.location)).toBe('http://127.0.0.1:4321/session?token=abc_DEF-123');
    expect(hostSessionUrl(undefined, fake.location)).toBe('http://127.0.0.1:4321/session');
  });

  it('uses the WebSocket client in a plain browser, once per page', async () => {
    fakeWindow('http://localhost:4321/?token=tok#/tasks');
    vi.stubGlobal('WebSocket', RecordingSocket);
    const { getOperatorClient } = await import('./operator-client');
    const client = getOperatorClient();
    expect(getOperatorClient()).toBe(client);
    expect(RecordingSocket.urls).toEqual(['ws://localhost:4321/ws?token=tok']);
    expect(client.transportState()).toBe('connecting');
    (client as unknown as { close(): void }).close();
  });

  it('uses the preload bridge in the desktop app', async () => {
    const bridge = Object.fromEntries(channelNames.map((name) => [name, () => Promise.resolve({ ok: true, value: name })])) as unknown as PreloadBridge;
    Object.assign(bridge, { subscribe: () => () => {}, transportState: () => 'connected', onTransportState: () => () => {} });
    fakeWindow('file:///app/index.html#/runs', { operator: bridge });
    vi.stubGlobal('WebSocket', RecordingSocket);
    const { getOperatorClient } = await import('./operator-client');
    const client = getOperatorClient();
    expect(await client.listAgents()).toBe('listAgents');
    expect(client.transportState()).toBe('connected');
    expect(RecordingSocket.urls).toEqual([]);
  });
});
