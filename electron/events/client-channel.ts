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
