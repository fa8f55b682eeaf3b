import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

/** A task's runs side by side; runsChanged (a run ended, landed, was discarded) reads it again. */
export function useTaskComparison(taskId: string) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.taskComparison(taskId), queryFn: () => client.compareTaskRuns({ taskId }) });
}

/**
 * The Land dialog's dry run for `target` (null: the run's base branch). The previous answer stays on
 * screen while another target is tried, so the form does not jump.
 */
export function useCompareLandingPlan(runId: string, target: string | null) {
  const client = useOperatorClient();
  return useQuery({
    queryKey: queryKeys.compareLandingPlan(runId, target),
    queryFn: () => client.getLandingPlan(target ? { runId, target } : { runId }),
    placeholderData: keepPreviousData,
    // A dry run answers for the project as it is now: asked again each time the dialog opens.
    staleTime: 0,
  });
}

export function useLandRun() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ChannelInput<'landRun'>) => client.landRun(input),
    onSuccess: async (result, input) => {
      await Promise.all([
        // Compare, the runs list and the disk usage are all under runs.
        queryClient.invalidateQueries({ queryKey: queryKeys.runsAll }),
        ...[input.runId, ...result.discarded].flatMap((runId) => [
          queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) }),
          queryClient.invalidateQueries({ queryKey: queryKeys.runDiff(runId) }),
        ]),
      ]);
    },
  });
}
