import { randomUUID } from 'node:crypto';
import type { EventName, EventPayload } from '../../shared/contract';
import type { ClientChannel } from '../events/client-channel';

/**
 * A ClientChannel for a transport: `send` delivers one event to this client; `close()` is called by
 * the transport when the client goes away, and runs every close listener once.
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
