import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput, ChannelOutput } from '../../../shared/contract';
import type { RunEvent } from '../../../shared/entities';
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
      landingState: filters.landingState ?? undefined,
    }),
    queryFn: ({ pageParam }) => client.listRuns(runListInput(filters, pageParam)),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: RunPage) => last.nextCursor ?? undefined,
  });
}

/** One run with its attempts, locators and what can be done with it now. runsChanged refreshes it. */
export function useRun(runId: string) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.run(runId), queryFn: () => client.getRun({ runId }) });
}

/** The run's Network panel; refetched with its timeline (the same events feed both). */
export function useRunNetwork(runId: string) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.runNetwork(runId), queryFn: () => client.listRunNetwork({ runId }) });
}

export interface RunTimeline {
  events: RunEvent[];
  /** The id of the newest entry held, the cursor for the next fetch. */
  lastId: number;
}

const timelinePageSize = 500;
/** A timeline is a summary beside the terminal; past this many entries only the newest are kept. */
export const maxTimelineEntries = 5000;

/**
 * A run's timeline, fetched incrementally: each refetch (on `runTimeline`) asks only for the entries
 * after the newest one already held, so a long run does not reread its whole history on every event.
 */
export function useRunTimeline(runId: string) {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  const queryKey = queryKeys.runEvents(runId);
  return useQuery({
    queryKey,
    staleTime: Infinity,
    queryFn: async (): Promise<RunTimeline> => {
      const previous = queryClient.getQueryData<RunTimeline>(queryKey);
      let events = previous?.events ?? [];
      let lastId = previous?.lastId ?? 0;
      for (let page = 0; page < 20; page += 1) {
        const result = await client.listRunEvents({ runId, afterId: lastId, limit: timelinePageSize });
        if (result.events.length === 0) break;
        events = events.concat(result.events);
        lastId = Math.max(lastId, ...result.events.map((event) => event.id));
        if (result.events.length < timelinePageSize) break;
      }
      if (events.length > maxTimelineEntries) events = events.slice(-maxTimelineEntries);
      return { events, lastId };
    },
  });
}

function useRunMutation<I>(mutationFn: (input: I) => Promise<ChannelOutput<'startRun'>>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async (run) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.runsAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.run(run.id) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.runDiff(run.id) }),
        // Each task shows its latest run's status.
        queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll }),
      ]);
    },
  });
}

export function useStartRun() {
  const client = useOperatorClient();
  return useRunMutation((input: ChannelInput<'startRun'>) => client.startRun(input));
}

/** Starts a task on several agents at once; the runs list and the tasks' latest runs change. */
export function useStartRuns() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ChannelInput<'startRuns'>) => client.startRuns(input),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.runsAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll }),
      ]);
    },
  });
}

export function useStopRun() {
  const client = useOperatorClient();
  return useRunMutation((runId: string) => client.stopRun({ runId }));
}

export function useResumeRun() {
  const client = useOperatorClient();
  return useRunMutation((input: ChannelInput<'resumeRun'>) => client.resumeRun(input));
}

/** While the agent works, its changes are read again this often (runsChanged covers the rest). */
export const runningDiffRefetchMs = 4000;

/**
 * The run's view against its base revision, read again while the agent works. A run with no working
 * folder (not started yet, or archived) answers not_found: a state to show, not a glitch to retry.
 */
export function useRunDiff(runId: string, running: boolean) {
  const client = useOperatorClient();
  return useQuery({
    queryKey: queryKeys.runDiff(runId),
    queryFn: () => client.getRunDiff({ runId }),
    staleTime: 0,
    refetchInterval: running ? runningDiffRefetchMs : false,
  });
}

export function useOpenRunFolder() {
  const client = useOperatorClient();
  return useMutation({ mutationFn: (runId: string) => client.openRunFolder({ runId }) });
}

/** Keeps the record, removes the worktree: the Changes section then says so. */
export function useArchiveRun() {
  const client = useOperatorClient();
  return useRunMutation((runId: string) => client.archiveRun({ runId }));
}

export function useDeleteRun() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => client.deleteRun({ runId }),
    // The run's own queries are left to expire: the page showing it navigates away.
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.runsAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll }),
      ]);
    },
  });
}
