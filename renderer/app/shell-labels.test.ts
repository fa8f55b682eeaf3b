import { describe, expect, it } from 'vitest';
import { isPathWithin, openNoticesLabel, transportStateLabel } from './shell-labels';

describe('shell labels', () => {
  it('marks a section active on its own pages only', () => {
    expect(isPathWithin('/runs', '/runs')).toBe(true);
    expect(isPathWithin('/runs/run_1', '/runs')).toBe(true);
    expect(isPathWithin('/runsxyz', '/runs')).toBe(false);
    expect(isPathWithin('/settings/projects', '/settings')).toBe(true);
  });

  it('counts open notices in words', () => {
    expect(openNoticesLabel(1)).toBe('1 open notice');
    expect(openNoticesLabel(3)).toBe('3 open notices');
  });

  it('says when the connection is lost, not just with a colour', () => {
    expect(transportStateLabel('connected')).toBe('Connected');
    expect(transportStateLabel('reconnecting')).toBe('Connection lost — reconnecting…');
    expect(transportStateLabel('refused')).toBe('The console was restarted — open its new address');
  });
});
