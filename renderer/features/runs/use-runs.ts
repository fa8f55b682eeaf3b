import { useInfiniteQuery, useQuery, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import type { ChannelOutput } from '../../../shared/contract';
import type { RunSummary } from '../../../shared/entities';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import type { RunListFilters } from '../../state/ui-store';
import { runListInput } from './run-list-input';

type RunPage = ChannelOutput<'listRuns'>;

/** Runs, newest first, a page at a time (keyset cursor from the core). */
export function useRunList(filters: RunListFilters) {
  const client = useOperatorClient();
  return useInfiniteQuery({
    queryKey: queryKeys.runs({
      status: filters.status ?? undefined,
      agentId: filters.agentId ?? undefined,
      projectId: filters.projectId ?? undefined,
    }),
    queryFn: ({ pageParam }) => client.listRuns(runListInput(filters, pageParam)),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: RunPage) => last.nextCursor ?? undefined,
  });
}

const lookupPageSize = 500;
const lookupMaxPages = 4;

/**
 * One run by id. There is no single-run channel yet, so this looks in the lists already loaded and
 * then pages through the history (bounded). It shares the `runs` key family, so runsChanged refreshes it.
 */
export function useRunLookup(runId: string) {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: queryKeys.runLookup(runId),
    queryFn: async (): Promise<RunSummary | null> => {
      let before: string | undefined;
      for (let page = 0; page < lookupMaxPages; page += 1) {
        const result = await client.listRuns(before ? { limit: lookupPageSize, before } : { limit: lookupPageSize });
        const found = result.runs.find((run) => run.id === runId);
        if (found) return found;
        if (!result.nextCursor) return null;
        before = result.nextCursor;
      }
      return null;
    },
    placeholderData: () => {
      for (const [, data] of queryClient.getQueriesData<InfiniteData<RunPage>>({ queryKey: queryKeys.runsAll })) {
        const found = data?.pages?.flatMap((page) => page.runs).find((run) => run.id === runId);
        if (found) return found;
      }
      return undefined;
    },
  });
}
