/**
 * Node's timers take a 32-bit delay: anything over about 24.8 days fires after 1 ms instead (with a
 * TimeoutOverflowWarning). A quota reset can be a month away, so a wait that long is cut into steps
 * no longer than the limit and re-armed until the deadline, which is kept as a time, not a delay.
 */
export const maxTimerDelayMs = 2 ** 31 - 1;

export interface LongTimer {
  /** When it fires, in epoch milliseconds. */
  readonly at: number;
  cancel(): void;
}

export function setLongTimer(at: number, fire: () => void, now: () => number = Date.now): LongTimer {
  let handle: NodeJS.Timeout | null = null;
  let cancelled = false;
  const arm = () => {
    const left = at - now();
    if (left <= 0) {
      handle = null;
      fire();
      return;
    }
    handle = setTimeout(arm, Math.min(left, maxTimerDelayMs));
  };
  // The first step is always a timer, never a synchronous call: callers set the timer up and then
  // record it, and a deadline in the past still fires after them.
  handle = setTimeout(arm, Math.max(0, Math.min(at - now(), maxTimerDelayMs)));
  return {
    at,
    cancel: () => {
      if (cancelled) return;
      cancelled = true;
      if (handle) clearTimeout(handle);
      handle = null;
    },
  };
}
