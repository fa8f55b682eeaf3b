import type { EventName, EventPayload } from '../../shared/contract';

export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/**
 * The core's pushed events, fanned out to every transport that listens (one per Electron window or
 * WebSocket connection). A listener that throws is the transport's bug and must not stop the others.
 */
export class EventHub {
  private readonly listeners = new Set<EventListener>();

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) {
      try {
        listener(event, payload);
      } catch {
        // The transport logs its own send failures; the core keeps going.
      }
    }
  }

  listen(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
