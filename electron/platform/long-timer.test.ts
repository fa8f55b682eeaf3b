import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { maxTimerDelayMs, setLongTimer } from './long-timer';

const day = 24 * 60 * 60 * 1000;

describe('a long timer', () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.parse('2026-12-01T00:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('waits a month for a reset a month away (a plain setTimeout fires after 1 ms past 24.8 days)', () => {
    const fired = vi.fn();
    setLongTimer(Date.now() + 30 * day, fired);
    vi.advanceTimersByTime(1);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(maxTimerDelayMs);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(30 * day - maxTimerDelayMs - 2);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60 * day);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('fires a short wait on time, and a deadline already past on the next turn, not synchronously', () => {
    const fired = vi.fn();
    setLongTimer(Date.now() + 2500, fired);
    vi.advanceTimersByTime(2499);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fired).toHaveBeenCalledTimes(1);

    const late = vi.fn();
    setLongTimer(Date.now() - 1000, late);
    expect(late).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(late).toHaveBeenCalledTimes(1);
  });

  it('never fires once cancelled, also between its steps', () => {
    const fired = vi.fn();
    const timer = setLongTimer(Date.now() + 40 * day, fired);
    vi.advanceTimersByTime(maxTimerDelayMs + 10);
    timer.cancel();
    vi.advanceTimersByTime(60 * day);
    expect(fired).not.toHaveBeenCalled();
  });
});
