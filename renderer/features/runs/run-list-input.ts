import type { ChannelInput } from '../../../shared/contract';
import type { RunListFilters } from '../../state/ui-store';

export const runsPageSize = 50;

/** The listRuns request for one page: only the filters that are set, and the cursor when paging on. */
export function runListInput(filters: RunListFilters, before: string | undefined, limit = runsPageSize) {
  const input: NonNullable<ChannelInput<'listRuns'>> = { limit };
  if (filters.status) input.status = filters.status;
  if (filters.agentId) input.agentId = filters.agentId;
  if (filters.projectId) input.projectId = filters.projectId;
  if (filters.landingState) input.landingState = filters.landingState;
  if (before) input.before = before;
  return input;
}

export function hasRunFilters(filters: RunListFilters): boolean {
  return Boolean(filters.status || filters.agentId || filters.projectId || filters.landingState);
}
