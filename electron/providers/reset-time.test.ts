import { describe, expect, it } from 'vitest';
import { parseResetAt, zonedTimeToUtc } from './reset-time';

const observedAt = new Date('2029-12-31T12:00:00.000Z');
const later = (ms: number) => new Date(observedAt.getTime() + ms).toISOString();
const parse = (text: string, timeZone = 'UTC', at = observedAt) => parseResetAt(text, at, { timeZone })?.toISOString() ?? null;

describe('parseResetAt', () => {
  it('reads relative waits', () => {
    expect(parse('Rate limit reached for gpt-5 ... Please try again in 2m30s. Visit https://platform.openai.com/account/rate-limits')).toBe(later(150_000));
    expect(parse('You exceeded your current quota, please check your plan and billing details. Please retry in 32.5s.')).toBe(later(32_500));
    expect(parse('Suggested retry after 32s.. Retrying after 36541ms...')).toBe(later(32_000));
    expect(parse('retry after 500ms')).toBe(later(500));
    expect(parse('Usage resets in 4 hours 12 minutes')).toBe(later((4 * 60 + 12) * 60_000));
    expect(parse('try again in 1h2m3s')).toBe(later(3_723_000));
  });

  it('reads Retry-After headers in seconds and as HTTP dates', () => {
    expect(parse('HTTP/1.1 429 Too Many Requests\nRetry-After: 30')).toBe(later(30_000));
    expect(parse('retry-after: Tue, 01 Jan 2030 00:00:45 GMT')).toBe('2030-01-01T00:00:45.000Z');
  });

  it('reads structured fields: epoch seconds and milliseconds, seconds to wait, RetryInfo', () => {
    expect(parse('{"error":{"type":"usage_limit_reached","plan_type":"plus","resets_at":1893456000}}')).toBe('2030-01-01T00:00:00.000Z');
    expect(parse('{"resetsAt": 1893456000123}')).toBe('2030-01-01T00:00:00.123Z');
    expect(parse('{"resets_in_seconds": 9000}')).toBe(later(9_000_000));
    expect(parse('"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"32s"}]')).toBe(later(32_000));
    expect(parse('Claude AI usage limit reached|1893456000')).toBe('2030-01-01T00:00:00.000Z');
  });

  it('reads an ISO timestamp after a reset keyword', () => {
    expect(parse('anthropic-ratelimit-requests-reset: 2030-01-01T00:00:45Z')).toBe('2030-01-01T00:00:45.000Z');
  });

  it("reads Codex's wall-clock times, with and without a date", () => {
    expect(parse('You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again at Jan 1st, 2030 12:00 AM.')).toBe(
      '2030-01-01T00:00:00.000Z',
    );
    expect(parse("You've hit your usage limit. Try again at 3:45 PM.")).toBe('2029-12-31T15:45:00.000Z');
    // Already past today: the next day.
    expect(parse('try again at 9:05 AM.')).toBe('2030-01-01T09:05:00.000Z');
  });

  it("reads Claude's reset times in the zone it names", () => {
    // 12:00Z is 07:00 in New York (EST, UTC-5): 3pm there is 20:00Z.
    expect(parse("You've hit your session limit · resets 3pm (America/New_York)")).toBe('2029-12-31T20:00:00.000Z');
    expect(parse("You've hit your weekly limit · resets Jan 5, 3pm (UTC)")).toBe('2030-01-05T15:00:00.000Z');
    expect(parse("You've hit your Opus limit · resets Jan 5, 2030, 10:30am (Europe/Berlin)")).toBe('2030-01-05T09:30:00.000Z');
    // Summer time: 9am in Los Angeles (PDT, UTC-7) is 16:00Z.
    expect(parse('resets Jul 4, 9am (America/Los_Angeles)', 'UTC', new Date('2030-06-20T00:00:00Z'))).toBe('2030-07-04T16:00:00.000Z');
  });

  it('uses the fallback zone when the text names none', () => {
    // 12:00Z is 13:00 in Berlin: 3:30pm there is 14:30Z the same day.
    expect(parse('resets 3:30pm', 'Europe/Berlin')).toBe('2029-12-31T14:30:00.000Z');
    expect(parse('resets at 15:00', 'Europe/Berlin')).toBe('2029-12-31T14:00:00.000Z');
    // An unknown zone in parentheses falls back too.
    expect(parse('resets 3pm (Mars/Olympus)', 'UTC')).toBe('2029-12-31T15:00:00.000Z');
  });

  it('finds nothing where no time is stated, and ignores absurd ones', () => {
    expect(parse('This request would exceed the rate limit for your organization of 50 requests per minute.')).toBeNull();
    expect(parse('exceeded retry limit, last status: 429 Too Many Requests')).toBeNull();
    expect(parse('resets 5 files to HEAD')).toBeNull();
    expect(parse('{"resets_in_seconds": 99999999}')).toBeNull();
    expect(parse('Retrying after 36541ms...')).toBeNull();
  });
});

describe('zonedTimeToUtc', () => {
  it('converts wall time in a zone to the instant, across daylight saving', () => {
    expect(zonedTimeToUtc(2030, 0, 15, 9, 0, 'America/New_York').toISOString()).toBe('2030-01-15T14:00:00.000Z');
    expect(zonedTimeToUtc(2030, 6, 15, 9, 0, 'America/New_York').toISOString()).toBe('2030-07-15T13:00:00.000Z');
    expect(zonedTimeToUtc(2030, 0, 32, 0, 0, 'UTC').toISOString()).toBe('2030-02-01T00:00:00.000Z');
  });
});
