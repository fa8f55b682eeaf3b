import { randomUUID } from 'node:crypto';
import type { EventName, EventPayload } from '../../shared/contract';

/**
 * One connected renderer (a WebSocket, an Electron window). Most events go to every client; a live
 * output stream goes only to the client that opened it, and ends when that client goes away.
 */
export interface ClientChannel {
  readonly id: string;
  push<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Called once when the client is gone (socket closed, window destroyed). */
  onClose(listener: () => void): void;
}

/**
 * A ClientChannel for a transport: `send` delivers one event to this client; `close()` is called by
 * the transport when the client goes away, and runs every close listener once. It lives here, beside
 * the interface, rather than with the transports: the domains that hold a client (runs/output-streams)
 * may not import electron/transport/, and their tests make clients too.
 */
export function createClientChannel(send: <E extends EventName>(event: E, payload: EventPayload<E>) => void): ClientChannel & {
  close(): void;
} {
  const listeners: Array<() => void> = [];
  let closed = false;
  return {
    id: randomUUID(),
    push: (event, payload) => {
      if (!closed) send(event, payload);
    },
    onClose: (listener) => {
      if (closed) listener();
      else listeners.push(listener);
    },
    close: () => {
      if (closed) return;
      closed = true;
      for (const listener of listeners.splice(0)) {
        try {
          listener();
        } catch {
          // One failing cleanup must not stop the others.
        }
      }
    },
  };
}
