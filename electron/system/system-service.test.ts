import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../platform/log';
import { SystemService } from './system-service';

describe('a page’s crash reports', () => {
  it('are written at most ten in any sliding minute, and written again once the minute has passed', () => {
    const log = createMemoryLogger();
    let now = Date.parse('2026-12-04T12:00:00Z');
    const system = new SystemService({ appVersion: '1.0.0', transport: 'browser', dataDir: '/data', ledgerFile: '/data/ledger.sqlite', operatorHome: '/home/op', log, now: () => now });
    const report = { message: 'Cannot read properties of null', route: '/runs' };
    const crashes = () => log.lines.filter((line) => line.message === 'a page of the console crashed').length;

    for (let i = 0; i < 10; i += 1) {
      expect(system.reportRendererError(report)).toEqual({ logged: true });
      now += 5_000; // ten reports over 50 seconds
    }
    expect(system.reportRendererError(report)).toEqual({ logged: false });
    expect(crashes()).toBe(10);

    // 61 s after the first report it has left the window: one more may be written, and no more.
    now = Date.parse('2026-12-04T12:01:01Z');
    expect(system.reportRendererError(report)).toEqual({ logged: true });
    expect(system.reportRendererError(report)).toEqual({ logged: false });
    expect(crashes()).toBe(11);
  });
});
