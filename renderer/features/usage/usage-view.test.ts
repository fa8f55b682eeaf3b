import { describe, expect, it } from 'vitest';
import { isCalendarDay, presetOf, presetRange, rangeProblem, usageQuery, usageViewFromSearch, usageViewPath } from './usage-view';

// 2 March 2026, mid-morning local time.
const today = new Date(2026, 2, 2, 10, 30);

describe('the Usage page’s range', () => {
  it('has presets that end today and include it', () => {
    expect(presetRange('last-7-days', today)).toEqual({ from: '2026-02-24', to: '2026-03-02' });
    expect(presetRange('last-30-days', today)).toEqual({ from: '2026-02-01', to: '2026-03-02' });
    expect(presetRange('this-month', today)).toEqual({ from: '2026-03-01', to: '2026-03-02' });
    expect(presetOf({ from: '2026-02-24', to: '2026-03-02' }, today)).toBe('last-7-days');
    expect(presetOf({ from: '2026-02-23', to: '2026-03-02' }, today)).toBeNull();
  });

  it('says what is wrong with a range that cannot be shown', () => {
    expect(rangeProblem({ from: '2026-03-01', to: '2026-03-02' })).toBeNull();
    expect(rangeProblem({ from: '2026-03-03', to: '2026-03-02' })).toEqual({ field: 'from', message: 'The first day must not be after the last.' });
    expect(rangeProblem({ from: '', to: '2026-03-02' })).toEqual({ field: 'from', message: 'Enter the first day, as a date.' });
    expect(rangeProblem({ from: '2026-03-01', to: '2026-02-30' })).toEqual({ field: 'to', message: 'Enter the last day, as a date.' });
    expect(isCalendarDay('2026-02-28')).toBe(true);
    expect(isCalendarDay('2026-02-29')).toBe(false);
  });

  it('reads its view from the address and writes it back, falling back to the last 7 days by agent in tokens', () => {
    const view = usageViewFromSearch('from=2026-02-01&to=2026-02-28&group=connection&measure=cost&project=prj_1', today);
    expect(view).toEqual({ from: '2026-02-01', to: '2026-02-28', groupBy: 'connection', measure: 'cost', projectId: 'prj_1' });
    expect(usageViewFromSearch(usageViewPath(view).split('?')[1]!, today)).toEqual(view);
    expect(usageQuery(view)).toEqual({ from: '2026-02-01', to: '2026-02-28', groupBy: 'connection', projectId: 'prj_1' });
    expect(usageViewFromSearch('from=2026-03-05&to=2026-03-01&group=team&measure=euros', today)).toEqual({
      from: '2026-02-24',
      to: '2026-03-02',
      groupBy: 'agent',
      measure: 'tokens',
      projectId: null,
    });
    expect(usageQuery(usageViewFromSearch('', today))).toEqual({ from: '2026-02-24', to: '2026-03-02', groupBy: 'agent' });
  });
});
