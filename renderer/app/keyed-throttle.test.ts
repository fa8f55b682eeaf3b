import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keyedThrottle } from './keyed-throttle';

describe('keyedThrottle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('acts at once, then at most once per interval, with one trailing call after a burst', () => {
    const calls: string[] = [];
    const throttle = keyedThrottle((key) => calls.push(key), 100);
    throttle.call('run_1');
    expect(calls).toEqual(['run_1']);
    for (let i = 0; i < 20; i += 1) throttle.call('run_1');
    expect(calls).toEqual(['run_1']);
    vi.advanceTimersByTime(100);
    expect(calls).toEqual(['run_1', 'run_1']);
    vi.advanceTimersByTime(500);
    expect(calls).toEqual(['run_1', 'run_1']);
    throttle.call('run_1');
    expect(calls).toHaveLength(3);
  });

  it('keeps keys apart', () => {
    const calls: string[] = [];
    const throttle = keyedThrottle((key) => calls.push(key), 100);
    throttle.call('run_1');
    throttle.call('run_2');
    throttle.call('run_1');
    expect(calls).toEqual(['run_1', 'run_2']);
    vi.advanceTimersByTime(100);
    expect(calls).toEqual(['run_1', 'run_2', 'run_1']);
  });

  it('does nothing after cancel', () => {
    const calls: string[] = [];
    const throttle = keyedThrottle((key) => calls.push(key), 100);
    throttle.call('run_1');
    throttle.call('run_1');
    throttle.cancel();
    vi.advanceTimersByTime(1000);
    expect(calls).toEqual(['run_1']);
  });
});
