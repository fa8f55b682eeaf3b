/** Formatting shared by the pages. Pure, so it is tested without a DOM. */

const pad2 = (value: number) => String(value).padStart(2, '0');

/** A compact duration: `0s`, `42s`, `3m 07s`, `2h 05m`, `3d 4h`. Negative values count as zero. */
export function formatDuration(milliseconds: number): string {
  const totalSeconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (totalSeconds < 60) return `${totalSeconds}s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  if (totalMinutes < 60) return `${totalMinutes}m ${pad2(totalSeconds % 60)}s`;
  const totalHours = Math.floor(totalMinutes / 60);
  if (totalHours < 24) return `${totalHours}h ${pad2(totalMinutes % 60)}m`;
  return `${Math.floor(totalHours / 24)}d ${totalHours % 24}h`;
}

/**
 * How long a run has taken: from its start to its end, or to `now` while it is still going. A run that
 * never started (queued, refused) has no duration.
 */
export function runDurationMs(
  run: { startedAt: string | null; endedAt: string | null },
  now: number,
): number | null {
  if (!run.startedAt) return null;
  const started = Date.parse(run.startedAt);
  const ended = run.endedAt ? Date.parse(run.endedAt) : now;
  if (Number.isNaN(started) || Number.isNaN(ended)) return null;
  return Math.max(0, ended - started);
}

/**
 * A timestamp for a dense list: the time alone when it is today, the date and time otherwise, the year
 * too when it is not this year. `timeZone` is for tests; the app uses the operator's own.
 */
export function formatTimestamp(iso: string, now: number, locale?: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const zone = timeZone ? { timeZone } : {};
  const dayOf = (value: Date) =>
    new Intl.DateTimeFormat('en-CA', { ...zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(value);
  const yearOf = (value: Date) => new Intl.DateTimeFormat('en-CA', { ...zone, year: 'numeric' }).format(value);
  const today = new Date(now);
  const time: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
  if (dayOf(date) === dayOf(today)) return new Intl.DateTimeFormat(locale, { ...zone, ...time }).format(date);
  const sameYear = yearOf(date) === yearOf(today);
  return new Intl.DateTimeFormat(locale, {
    ...zone,
    ...time,
    month: 'short',
    day: 'numeric',
    ...(sameYear ? {} : { year: 'numeric' }),
  }).format(date);
}

/** The full date and time, for a tooltip or a detail page. */
export function formatFullTimestamp(iso: string, locale?: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, {
    ...(timeZone ? { timeZone } : {}),
    dateStyle: 'medium',
    timeStyle: 'medium',
  }).format(date);
}

/** `1 task`, `2 tasks`. */
export function pluralize(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

const byteUnits = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/**
 * A size on disk in the largest decimal unit under 1000 (`512 bytes`, `12 kB`, `1.3 GB`): Intl names
 * the units, so only the choice of unit is done here.
 */
export function formatBytes(bytes: number, locale?: string): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1000 && unit < byteUnits.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: byteUnits[unit],
    // "512 bytes" rather than "512 byte"; the larger units read best short (kB, MB, GB).
    unitDisplay: unit === 0 ? 'long' : 'short',
    maximumFractionDigits: value < 10 && unit > 0 ? 1 : 0,
  }).format(value);
}
