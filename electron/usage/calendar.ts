/**
 * Days and months in the console's time zone (the process's): what "today" and "this month" mean for
 * the Usage page and for budgets. An operator's day ends at their midnight, not UTC's.
 */

/** `YYYY-MM-DD` of the day `ms` falls in. */
export function dayOf(ms: number): string {
  const date = new Date(ms);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Midnight at the start of a `YYYY-MM-DD` day (ms). */
export function startOfDayNamed(day: string): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(year, month - 1, date).getTime();
}

export function startOfDay(ms: number): number {
  const date = new Date(ms);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

export function startOfNextDay(ms: number): number {
  const date = new Date(ms);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + 1).getTime();
}

export function startOfMonth(ms: number): number {
  const date = new Date(ms);
  return new Date(date.getFullYear(), date.getMonth(), 1).getTime();
}

export function startOfNextMonth(ms: number): number {
  const date = new Date(ms);
  return new Date(date.getFullYear(), date.getMonth() + 1, 1).getTime();
}

/** A budget's current period: [start, end) around `ms`. */
export function periodAround(period: 'day' | 'month', ms: number): { start: number; end: number } {
  return period === 'day' ? { start: startOfDay(ms), end: startOfNextDay(ms) } : { start: startOfMonth(ms), end: startOfNextMonth(ms) };
}

/** Every day from `from` to `to` inclusive (`YYYY-MM-DD`), oldest first. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let ms = startOfDayNamed(from); dayOf(ms) <= to; ms = startOfNextDay(ms)) {
    days.push(dayOf(ms));
    if (days.length > 3660) break;
  }
  return days;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
