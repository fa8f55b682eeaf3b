import type { OperatorClient } from '../../shared/contract';
import { findPreloadBridge, wrapPreloadBridge } from './preload-client';
import { createWebSocketClient } from './ws-client';

/**
 * The one OperatorClient of this page: the preload bridge in the desktop app, the WebSocket client
 * when the browser host served the page. The rest of the renderer never asks which.
 */

const tokenStorageKey = 'operator-console:host-token';

let client: OperatorClient | undefined;

export function getOperatorClient(): OperatorClient {
  if (client) return client;
  const bridge = findPreloadBridge(window);
  if (bridge) {
    client = wrapPreloadBridge(bridge);
  } else {
    const token = captureHostToken();
    client = createWebSocketClient({ url: hostSocketUrl(token), sessionUrl: hostSessionUrl(token) });
  }
  return client;
}

/**
 * The browser host opens the page as /?token=...: keep the token for this tab (sessionStorage, so the
 * socket can present it too) and take it out of the address bar, where it would end up in history,
 * bookmarks and screen shares. The host's HttpOnly cookie covers reloads; the hash route is kept.
 */
export function captureHostToken(): string | undefined {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    try {
      window.sessionStorage.setItem(tokenStorageKey, fromUrl);
    } catch {
      // Storage can be disabled; the cookie still authenticates this tab.
    }
    url.searchParams.delete('token');
    window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
    return fromUrl;
  }
  try {
    return window.sessionStorage.getItem(tokenStorageKey) ?? undefined;
  } catch {
    return undefined;
  }
}

/** /session on the host that served this page, with the same token as the socket: asks whether it is still accepted. */
export function hostSessionUrl(token: string | undefined, location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${location.protocol}//${location.host}/session${query}`;
}

/** ws://<the host that served this page>/ws, with the token when the page has one. */
export function hostSocketUrl(token: string | undefined, location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${scheme}//${location.host}/ws${query}`;
}
