import type { Logger } from '../platform/log';

/**
 * The core's domain events, in process (not the wire's EventHub, which tells renderers what changed):
 * a part of the core says what happened (an attempt started, ended; a run ended), and the reactions
 * (notices, cleanup, ...) subscribe to it in their own folders. A new reaction is a new subscriber,
 * never an edit to the part that emits.
 *
 * Listeners run synchronously, in the order they subscribed, when the event is emitted: a reaction
 * happens exactly where the emitter's old inline call was. A listener that throws is logged and the
 * others still hear the event: a reaction's bug must not stop a run.
 */
export class CoreEventBus<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  constructor(private readonly log: Logger) {}

  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => void set.delete(listener);
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        (listener as (payload: Events[K]) => void)(payload);
      } catch (error) {
        this.log.error('a core event reaction failed', { event: String(event), error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
}
