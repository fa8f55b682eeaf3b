import { describe, expect, it } from 'vitest';
import { runStatuses } from '../../shared/entities';
import { isActiveRunStatus, runStatusLabel, runStatusTone } from './run-status';

describe('run status presentation', () => {
  it('gives every status a word of its own, so colour is never the only signal', () => {
    const labels = runStatuses.map(runStatusLabel);
    expect(new Set(labels).size).toBe(runStatuses.length);
    expect(labels).toEqual([
      'Queued',
      'Admitted',
      'Preparing',
      'Setting up',
      'Running',
      'Succeeded',
      'Failed',
      'Cancelled',
      'Refused',
      'Stranded',
    ]);
  });

  it('tells success, failure and refusal apart by tone', () => {
    expect(runStatusTone('succeeded')).toBe('success');
    expect(runStatusTone('failed')).toBe('danger');
    expect(runStatusTone('refused')).toBe('warning');
    expect(runStatusTone('running')).toBe('progress');
  });

  it('treats only runs without an outcome as active', () => {
    expect(runStatuses.filter(isActiveRunStatus)).toEqual(['queued', 'admitted', 'preparing', 'setting_up', 'running']);
  });
});
