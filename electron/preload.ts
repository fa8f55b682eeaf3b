import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  channelNames,
  ipcChannelFor,
  ipcEventChannel,
  isEventName,
  preloadBridgeKey,
  type EventHandler,
  type EventName,
  type PreloadBridge,
  type ResponseEnvelope,
} from '../shared/contract';

/**
 * The sandboxed preload: exposes `window.operator`, one method per contract channel and nothing else
 * (no generic invoke, no ipcRenderer, no IpcRendererEvent ever reaches the page).
 *
 * Methods resolve to the response envelope instead of throwing, because contextBridge copies a thrown
 * Error with its message only; renderer/api/preload-client.ts unwraps the envelope into a value or an
 * OperatorError with its code, reason and action link intact.
 */

function request(channel: string, input: unknown): Promise<ResponseEnvelope> {
  return ipcRenderer.invoke(channel, input).then(
    (envelope: ResponseEnvelope) => envelope,
    // invoke rejects only when the main process has no handler (it is quitting) or the handler threw,
    // which the binding never does; either way the page gets an error value, not a bare rejection.
    (error: unknown): ResponseEnvelope => ({
      ok: false,
      error: {
        code: 'disconnected',
        message: 'The console’s main process did not answer. Restart Operator Console.',
        ...(error instanceof Error ? { reason: error.message.slice(0, 300) } : {}),
      },
    }),
  );
}

// One IPC listener for all subscriptions, so a page with many subscribers does not pile up listeners.
const subscribers = new Map<EventName, Set<(payload: unknown) => void>>();
let listening = false;

function deliver(_event: IpcRendererEvent, name: unknown, payload: unknown): void {
  if (!isEventName(name)) return;
  for (const handler of subscribers.get(name) ?? []) {
    try {
      handler(payload);
    } catch (error) {
      // A failing handler is the page's bug; the other subscribers still get the event.
      console.error(`operator: a ${name} handler threw`, error);
    }
  }
}

function subscribe<E extends EventName>(event: E, handler: EventHandler<E>): () => void {
  if (!isEventName(event)) throw new TypeError(`There is no event named ${JSON.stringify(String(event))}.`);
  if (typeof handler !== 'function') throw new TypeError('subscribe needs a handler function.');
  let handlers = subscribers.get(event);
  if (!handlers) {
    handlers = new Set();
    subscribers.set(event, handlers);
  }
  const entry = handler as (payload: unknown) => void;
  handlers.add(entry);
  if (!listening) {
    ipcRenderer.on(ipcEventChannel, deliver);
    listening = true;
  }
  return () => {
    handlers.delete(entry);
  };
}

function buildBridge(): PreloadBridge {
  const requests = Object.fromEntries(
    channelNames.map((name) => {
      const channel = ipcChannelFor(name);
      return [name, (input?: unknown) => request(channel, input)];
    }),
  ) as Pick<PreloadBridge, (typeof channelNames)[number]>;
  return {
    ...requests,
    subscribe,
    // IPC to the main process is in-process and cannot drop, so the transport is always connected.
    transportState: () => 'connected',
    onTransportState: () => () => {},
  };
}

contextBridge.exposeInMainWorld(preloadBridgeKey, buildBridge());
