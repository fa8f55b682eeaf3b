/**
 * Reads "when does the limit lift" out of the text CLIs print for usage limits and HTTP 429s. Each CLI
 * says it differently, e.g.
 *   Codex   "... or try again at Jan 1st, 2030 12:00 AM."   "... Please try again in 2m30s."
 *   Claude  "You've hit your session limit · resets 3pm (America/New_York)"   "...|1893456000"
 *   Gemini  "Please retry in 32.5s."   "retryDelay": "32s"
 *   HTTP    "Retry-After: 30"   "resets_at": 1893456000   "resets_in_seconds": 9000
 * Wall-clock times without a date mean the next time the clock shows them, in the zone the CLI named
 * or else the zone it ran in (the console's own, unless told otherwise).
 */

const maxAheadMs = 31 * 24 * 3600 * 1000;

export interface ResetParseOptions {
  /** IANA zone to read wall-clock times in when the text names none. Defaults to the system zone. */
  timeZone?: string | undefined;
}

export function parseResetAt(text: string, observedAt: Date, options: ResetParseOptions = {}): Date | null {
  const now = observedAt.getTime();
  const candidates = [
    epochField(text),
    isoAfterKeyword(text),
    secondsField(text, now),
    retryAfterHeader(text, now),
    relativeDuration(text, now),
    wallClock(text, observedAt, options.timeZone),
  ];
  for (const candidate of candidates) {
    if (candidate === null) continue;
    const ms = candidate.getTime();
    // A "reset" more than a month out is a misread number, not a limit anyone waits for.
    if (Number.isFinite(ms) && ms - now <= maxAheadMs) return candidate;
  }
  return null;
}

/** `"resets_at": 1893456000`, `resetsAt=1893456000123`, Claude's old `limit reached|1893456000`. */
function epochField(text: string): Date | null {
  const match =
    text.match(/["']?(?:resets?_?at|resetsAt|reset_time|x-ratelimit-reset|ratelimit-reset|unified-reset)["']?\s*[:=]\s*["']?(\d{10}(?:\d{3})?)\b/i) ??
    text.match(/limit reached\|(\d{10})\b/i);
  if (!match?.[1]) return null;
  const value = Number(match[1]);
  return new Date(match[1].length === 13 ? value : value * 1000);
}

/** An ISO timestamp shortly after a reset/retry keyword (e.g. anthropic-ratelimit-requests-reset). */
function isoAfterKeyword(text: string): Date | null {
  const match = text.match(
    /(?:reset|retry|try again|available)[^\n]{0,40}?(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/i,
  );
  if (!match?.[1]) return null;
  const date = new Date(match[1]);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** `"resets_in_seconds": 9000`, `"retryDelay": "32s"` (google.rpc.RetryInfo). */
function secondsField(text: string, now: number): Date | null {
  const seconds =
    text.match(/["']?(?:resets?_in_seconds|retry_after_seconds|retry_after)["']?\s*[:=]\s*(\d+(?:\.\d+)?)/i)?.[1] ??
    text.match(/["']?retryDelay["']?\s*[:=]\s*["'](\d+(?:\.\d+)?)s["']/i)?.[1];
  return seconds === undefined ? null : new Date(now + Number(seconds) * 1000);
}

/** `Retry-After: 30` or `Retry-After: Wed, 01 Jan 2030 00:00:00 GMT`. */
function retryAfterHeader(text: string, now: number): Date | null {
  const seconds = text.match(/retry-after["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)(?![\d:])/i)?.[1];
  if (seconds !== undefined) return new Date(now + Number(seconds) * 1000);
  const httpDate = text.match(/retry-after["']?\s*[:=]\s*["']?([A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT)/i)?.[1];
  if (httpDate === undefined) return null;
  const date = new Date(httpDate);
  return Number.isNaN(date.getTime()) ? null : date;
}

const unitMs: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

// No \b after the unit: in "2m30s" the "m" is followed by a digit.
const durationPart = String.raw`\d+(?:\.\d+)?\s*(?:milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)(?![a-z])`;

/** `try again in 2m30s`, `Please retry in 32.5s`, `resets in 4 hours 12 minutes`, `retry after 500ms`. */
function relativeDuration(text: string, now: number): Date | null {
  const pattern = new RegExp(
    String.raw`\b(?:try again|retry|resets?|available again|wait)\s+(?:in|after)\s+((?:${durationPart}(?:,?\s*(?:and\s+)?)?)+)`,
    'i',
  );
  const match = text.match(pattern);
  if (!match?.[1]) return null;
  let total = 0;
  for (const part of match[1].matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const factor = unitMs[(part[2] ?? '').toLowerCase()];
    if (factor === undefined) return null;
    total += Number(part[1]) * factor;
  }
  return total > 0 ? new Date(now + total) : null;
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * `try again at 3:45 PM`, `try again at Jan 1st, 2030 12:00 AM`, `resets 3pm (America/New_York)`,
 * `resets Jan 5, 3pm (UTC)`, `resets at 15:30`.
 */
function wallClock(text: string, observedAt: Date, fallbackZone: string | undefined): Date | null {
  const match = text.match(
    /\b(?:try again at|resets?(?: at)?|available (?:again )?at)\s+(?:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{4}),?\s+)?)?(\d{1,2})(?::(\d{2}))?\s*([ap])?\.?\s*(m\b\.?)?(?:\s*\(([^)]+)\))?/i,
  );
  if (!match) return null;
  const [, monthName, dayText, yearText, hourText, minuteText, meridiem, meridiemM, zoneText] = match;
  if (meridiem !== undefined && meridiemM === undefined) return null; // "3a" is not a time
  if (meridiem === undefined && minuteText === undefined) return null; // a bare number is not a time
  let hour = Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (minute > 59) return null;
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem.toLowerCase() === 'p' ? 12 : 0);
  } else if (hour > 23) {
    return null;
  }

  const zone = validZone(zoneText?.trim()) ?? validZone(fallbackZone) ?? systemZone();
  const today = wallDate(observedAt, zone);
  if (monthName !== undefined && dayText !== undefined) {
    const month = months.indexOf(monthName.slice(0, 3).toLowerCase());
    const day = Number(dayText);
    let year = yearText === undefined ? today.year : Number(yearText);
    let candidate = zonedTimeToUtc(year, month, day, hour, minute, zone);
    // "Jan 5" seen on Dec 30 means next January.
    if (yearText === undefined && candidate.getTime() < observedAt.getTime() - 86_400_000) {
      year += 1;
      candidate = zonedTimeToUtc(year, month, day, hour, minute, zone);
    }
    return candidate;
  }
  let candidate = zonedTimeToUtc(today.year, today.month, today.day, hour, minute, zone);
  if (candidate.getTime() <= observedAt.getTime()) {
    candidate = zonedTimeToUtc(today.year, today.month, today.day + 1, hour, minute, zone);
  }
  return candidate;
}

function systemZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function validZone(zone: string | undefined): string | null {
  if (!zone) return null;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return null;
  }
}

function wallParts(instant: number, zone: string): Record<string, number> {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(instant));
  const values: Record<string, number> = {};
  for (const part of parts) if (part.type !== 'literal') values[part.type] = Number(part.value);
  return values;
}

function wallDate(date: Date, zone: string): { year: number; month: number; day: number } {
  const parts = wallParts(date.getTime(), zone);
  return { year: parts.year ?? 1970, month: (parts.month ?? 1) - 1, day: parts.day ?? 1 };
}

/** The zone's offset from UTC at an instant, in ms (positive east of Greenwich). */
function zoneOffset(instant: number, zone: string): number {
  const p = wallParts(instant, zone);
  const asUtc = Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant a clock in `zone` shows the given wall time (month 0-based; day may overflow). */
export function zonedTimeToUtc(year: number, month: number, day: number, hour: number, minute: number, zone: string): Date {
  const wall = Date.UTC(year, month, day, hour, minute);
  let instant = wall - zoneOffset(wall, zone);
  // Once more in case the first guess crossed a daylight-saving change.
  instant = wall - zoneOffset(instant, zone);
  return new Date(instant);
}
