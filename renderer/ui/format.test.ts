import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, formatTimestamp, pluralize, runDurationMs } from './format';

describe('formatDuration', () => {
  it('shows seconds under a minute', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(999)).toBe('0s');
    expect(formatDuration(42_000)).toBe('42s');
  });

  it('shows minutes with padded seconds, hours with padded minutes, days with hours', () => {
    expect(formatDuration(187_000)).toBe('3m 07s');
    expect(formatDuration(60 * 60_000)).toBe('1h 00m');
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000 + 59_000)).toBe('2h 05m');
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe('3d 4h');
  });

  it('never shows a negative duration (clock skew between start and now)', () => {
    expect(formatDuration(-5_000)).toBe('0s');
  });
});

describe('runDurationMs', () => {
  const start = '2025-01-01T10:00:00.000Z';

  it('is empty for a run that never started', () => {
    expect(runDurationMs({ startedAt: null, endedAt: null }, Date.parse(start))).toBeNull();
  });

  it('measures a finished run from start to end, whatever the time now', () => {
    const run = { startedAt: start, endedAt: '2025-01-01T10:01:30.000Z' };
    expect(runDurationMs(run, Date.parse('2030-01-01T00:00:00.000Z'))).toBe(90_000);
  });

  it('measures a run still going up to now', () => {
    expect(runDurationMs({ startedAt: start, endedAt: null }, Date.parse('2025-01-01T10:00:12.000Z'))).toBe(12_000);
  });
});

describe('formatTimestamp', () => {
  const now = Date.parse('2025-06-15T15:00:00.000Z');

  it('shows only the time for today', () => {
    expect(formatTimestamp('2025-06-15T09:05:00.000Z', now, 'en-GB', 'UTC')).toBe('09:05');
  });

  it('adds the date for an earlier day and the year for an earlier year', () => {
    expect(formatTimestamp('2025-06-14T21:30:00.000Z', now, 'en-GB', 'UTC')).toBe('14 Jun, 21:30');
    expect(formatTimestamp('2024-12-31T23:59:00.000Z', now, 'en-GB', 'UTC')).toBe('31 Dec 2024, 23:59');
  });

  it('decides "today" in the operator’s time zone, not UTC', () => {
    // 23:30 UTC on the 14th is already the morning of the 15th in Tokyo, where it is 19:00 on the 15th.
    const tokyoEvening = Date.parse('2025-06-15T10:00:00.000Z');
    expect(formatTimestamp('2025-06-14T23:30:00.000Z', tokyoEvening, 'en-GB', 'Asia/Tokyo')).toBe('08:30');
    expect(formatTimestamp('2025-06-14T23:30:00.000Z', tokyoEvening, 'en-GB', 'UTC')).toBe('14 Jun, 23:30');
  });

  it('returns text it cannot parse unchanged', () => {
    expect(formatTimestamp('not a date', now)).toBe('not a date');
  });
});

describe('pluralize', () => {
  it('uses the singular for one only', () => {
    expect(pluralize(1, 'task')).toBe('1 task');
    expect(pluralize(0, 'task')).toBe('0 tasks');
    expect(pluralize(3, 'task')).toBe('3 tasks');
  });
});

describe('formatBytes', () => {
  it('picks the largest decimal unit under 1000, with one decimal under 10', () => {
    expect(formatBytes(0, 'en')).toBe('0 bytes');
    expect(formatBytes(999, 'en')).toBe('999 bytes');
    expect(formatBytes(1000, 'en')).toBe('1 kB');
    expect(formatBytes(1_250_000, 'en')).toBe('1.3 MB');
    expect(formatBytes(48_300_000_000, 'en')).toBe('48 GB');
    expect(formatBytes(2_000_000_000_000_000, 'en')).toBe('2,000 TB');
  });
});
