/**
 * Runs `action(key)` at most once per `intervalMs` for each key, and always once more after the last
 * call (trailing), so the final state is never missed. The core pushes a `runTimeline` event per parsed
 * CLI line; refetching on each one would cancel and restart the same request over and over.
 */
export function keyedThrottle(
  action: (key: string) => void,
  intervalMs: number,
  timers: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'> = globalThis,
): { call(key: string): void; cancel(): void } {
  const waiting = new Map<string, { timer: ReturnType<typeof setTimeout>; again: boolean }>();

  function schedule(key: string): void {
    const timer = timers.setTimeout(() => {
      const entry = waiting.get(key);
      if (entry?.again) {
        entry.again = false;
        action(key);
        schedule(key);
      } else {
        waiting.delete(key);
      }
    }, intervalMs);
    const entry = waiting.get(key);
    if (entry) entry.timer = timer;
    else waiting.set(key, { timer, again: false });
  }

  return {
    call(key) {
      const entry = waiting.get(key);
      if (entry) {
        entry.again = true;
        return;
      }
      action(key);
      schedule(key);
    },
    cancel() {
      for (const entry of waiting.values()) timers.clearTimeout(entry.timer);
      waiting.clear();
    },
  };
}
