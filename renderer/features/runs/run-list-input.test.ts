import { describe, expect, it } from 'vitest';
import { channels } from '../../../shared/contract';
import { noRunFilters } from '../../state/ui-store';
import { hasRunFilters, runListInput } from './run-list-input';

describe('runListInput', () => {
  it('sends only the filters that are set, and passes the contract’s validation', () => {
    const input = runListInput({ status: 'failed', agentId: null, projectId: 'prj_1', landingState: 'not_landed' }, undefined);
    expect(input).toEqual({ limit: 50, status: 'failed', projectId: 'prj_1', landingState: 'not_landed' });
    expect(channels.listRuns.input.safeParse(input).success).toBe(true);
  });

  it('pages on with the cursor from the previous page', () => {
    const input = runListInput(noRunFilters, '1700000000000:run_9');
    expect(input).toEqual({ limit: 50, before: '1700000000000:run_9' });
    expect(channels.listRuns.input.safeParse(input).success).toBe(true);
  });

  it('knows when any filter is set', () => {
    expect(hasRunFilters(noRunFilters)).toBe(false);
    expect(hasRunFilters({ ...noRunFilters, agentId: 'agt_1' })).toBe(true);
    expect(hasRunFilters({ ...noRunFilters, landingState: 'landed' })).toBe(true);
  });
});
