import { describe, expect, it } from 'vitest';
import { processLocator, processStartTime } from './process-identity';

describe('the process locator', () => {
  it('binds a launch to the child it started, with the start time that tells a reused pid apart', () => {
    expect(processLocator(process.pid, 2)).toEqual({ pid: process.pid, pgid: process.pid, startTime: processStartTime(process.pid), attempt: 2 });
    expect(processStartTime(process.pid)).toMatch(/^\d+$/);
  });

  it('refuses to bind a launch to a missing child', () => {
    for (const pid of [undefined, 0, -1, 1.5]) {
      expect(() => processLocator(pid, 1)).toThrow(expect.objectContaining({ code: 'spawn_failed', reason: 'no_child_process' }));
    }
  });
});
