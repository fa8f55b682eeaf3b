import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

/**
 * Landing a run's work from its Changes: the dry run (the landing plan) and the actions that change
 * what the run holds. Each action refreshes the run (its landing state), its changes, its plans and
 * the run list (which shows the landing state too).
 */

/** The dry run for landing in `target` (undefined: the branch the run was based on). Changes nothing. */
export function useLandingPlan(runId: string, target: string | undefined, enabled = true) {
  const client = useOperatorClient();
  return useQuery({
    queryKey: queryKeys.landingPlan(runId, target),
    queryFn: () => client.getLandingPlan(target === undefined ? { runId } : { runId, target }),
    enabled,
    // Branches move outside the console: a plan is read again whenever it is shown anew.
    staleTime: 0,
  });
}

function useRefreshRun() {
  const queryClient = useQueryClient();
  return (runId: string) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.runDiff(runId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.landingPlans(runId) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.runsAll }),
    ]);
}

export function useCommitRunChanges() {
  const client = useOperatorClient();
  const refresh = useRefreshRun();
  return useMutation({
    mutationFn: (input: ChannelInput<'commitRunChanges'>) => client.commitRunChanges(input),
    onSuccess: (_result, input) => refresh(input.runId),
  });
}

export function useLandRun() {
  const client = useOperatorClient();
  const refresh = useRefreshRun();
  return useMutation({
    mutationFn: (input: ChannelInput<'landRun'>) => client.landRun(input),
    onSuccess: (result, input) => Promise.all([refresh(input.runId), ...result.discarded.map((runId) => refresh(runId))]),
  });
}

/** A follow-up turn on the run that names the conflicts: the run is running again. */
export function useResolveRunConflicts() {
  const client = useOperatorClient();
  const refresh = useRefreshRun();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ChannelInput<'resolveRunConflicts'>) => client.resolveRunConflicts(input),
    onSuccess: async (run) => {
      await Promise.all([refresh(run.id), queryClient.invalidateQueries({ queryKey: queryKeys.runEvents(run.id) }), queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll })]);
    },
  });
}

export function usePushRunBranch() {
  const client = useOperatorClient();
  const refresh = useRefreshRun();
  return useMutation({
    mutationFn: (runId: string) => client.pushRunBranch({ runId }),
    onSuccess: (_landing, runId) => refresh(runId),
  });
}

export function useCreatePullRequest() {
  const client = useOperatorClient();
  const refresh = useRefreshRun();
  return useMutation({
    mutationFn: (input: ChannelInput<'createPullRequest'>) => client.createPullRequest(input),
    onSuccess: (_result, input) => refresh(input.runId),
  });
}

export function useDiscardRun() {
  const client = useOperatorClient();
  const refresh = useRefreshRun();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => client.discardRun({ runId }),
    onSuccess: async (run) => {
      await Promise.all([refresh(run.id), queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll })]);
    },
  });
}
