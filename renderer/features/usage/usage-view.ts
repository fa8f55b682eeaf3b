import { usageGroupings, type UsageGrouping, type UsageQuery } from '../../../shared/usage';

/**
 * What the Usage page shows, as its address says it (`/usage?from=…&to=…&group=…&measure=…&project=…`),
 * so a view survives a reload and can be linked to. Days are local calendar days; the core counts
 * each attempt on the day it started in the console's time zone.
 */

export const usageMeasures = ['tokens', 'cost'] as const;
export type UsageMeasure = (typeof usageMeasures)[number];

export interface UsageView {
  from: string;
  to: string;
  groupBy: UsageGrouping;
  measure: UsageMeasure;
  projectId: string | null;
}

export const usagePresets = [
  { id: 'last-7-days', label: 'Last 7 days' },
  { id: 'last-30-days', label: 'Last 30 days' },
  { id: 'this-month', label: 'This month' },
] as const;
export type UsagePreset = (typeof usagePresets)[number]['id'];

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DD` of a date in local time. */
export function localDay(date: Date): string {
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** Whether the text is a day of the calendar (2026-02-30 is not). */
export function isCalendarDay(text: string): boolean {
  if (!dayPattern.test(text)) return false;
  const [year, month, day] = text.split('-').map(Number) as [number, number, number];
  return localDay(new Date(year, month - 1, day)) === text;
}

/** A preset's days, today included. */
export function presetRange(preset: UsagePreset, today: Date): { from: string; to: string } {
  const to = localDay(today);
  const daysBack = (count: number) => localDay(new Date(today.getFullYear(), today.getMonth(), today.getDate() - (count - 1)));
  switch (preset) {
    case 'last-7-days':
      return { from: daysBack(7), to };
    case 'last-30-days':
      return { from: daysBack(30), to };
    case 'this-month':
      return { from: localDay(new Date(today.getFullYear(), today.getMonth(), 1)), to };
  }
}

/** The preset a range is, if it is one (its button shows pressed). */
export function presetOf(range: { from: string; to: string }, today: Date): UsagePreset | null {
  return usagePresets.find((preset) => {
    const candidate = presetRange(preset.id, today);
    return candidate.from === range.from && candidate.to === range.to;
  })?.id ?? null;
}

/** What is wrong with a range the operator typed, in words; null when it can be shown. */
export function rangeProblem(range: { from: string; to: string }): { field: 'from' | 'to'; message: string } | null {
  if (!isCalendarDay(range.from)) return { field: 'from', message: 'Enter the first day, as a date.' };
  if (!isCalendarDay(range.to)) return { field: 'to', message: 'Enter the last day, as a date.' };
  if (range.from > range.to) return { field: 'from', message: 'The first day must not be after the last.' };
  return null;
}

/** The view an address asks for; anything missing or not understood is the default (the last 7 days, by agent, in tokens). */
export function usageViewFromSearch(search: string, today: Date): UsageView {
  const params = new URLSearchParams(search);
  const fallback = presetRange('last-7-days', today);
  const asked = { from: params.get('from') ?? '', to: params.get('to') ?? '' };
  const range = rangeProblem(asked) ? fallback : asked;
  const group = params.get('group');
  const measure = params.get('measure');
  return {
    ...range,
    groupBy: usageGroupings.find((grouping) => grouping === group) ?? 'agent',
    measure: usageMeasures.find((candidate) => candidate === measure) ?? 'tokens',
    projectId: params.get('project') || null,
  };
}

export function usageViewPath(view: UsageView): string {
  const params = new URLSearchParams({ from: view.from, to: view.to, group: view.groupBy, measure: view.measure });
  if (view.projectId) params.set('project', view.projectId);
  return `/usage?${params.toString()}`;
}

export function usageQuery(view: UsageView): UsageQuery {
  return { from: view.from, to: view.to, groupBy: view.groupBy, ...(view.projectId ? { projectId: view.projectId } : {}) };
}
