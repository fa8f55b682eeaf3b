import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import type { CleanupPolicy } from '../../../shared/landing';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

/**
 * The task roots' total size and the largest, as last measured, and the ledger's size now
 * (runsChanged reads it again). `watching`: read every half second meanwhile (space being given back).
 */
export function useDiskUsage(options: { watching?: boolean } = {}) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.diskUsage, queryFn: () => client.getDiskUsage(), refetchInterval: options.watching ? 500 : false });
}

/** Give back: the ledger's free space goes back to the disk; the answer replaces its figures. */
export function useReclaimLedgerSpace() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => client.reclaimLedgerSpace(),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.diskUsage });
    },
  });
}

/** Refresh: the core measures every task root again, and the answer replaces the sizes shown. */
export function useRefreshDiskUsage() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => client.getDiskUsage({ refresh: true }),
    onSuccess: async (usage) => {
      queryClient.setQueryData(queryKeys.diskUsage, usage);
      // Each run's size in the list was measured again too.
      await queryClient.invalidateQueries({ queryKey: queryKeys.runsAll, predicate: (query) => query.queryKey[1] !== 'disk-usage' });
    },
  });
}

/** Clean up's dry run: what could go and what each run holds. Removes nothing. */
export function useCleanupPlan() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.cleanupPlan, queryFn: () => client.planCleanup() });
}

export function useCleanUpRuns() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ChannelInput<'cleanUpRuns'>) => client.cleanUpRuns(input),
    onSuccess: async (result) => {
      await Promise.all([
        // The runs list, the disk usage, Compare and the plan itself all change.
        queryClient.invalidateQueries({ queryKey: queryKeys.runsAll }),
        ...result.removed.flatMap((runId) => [
          queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) }),
          queryClient.invalidateQueries({ queryKey: queryKeys.runDiff(runId) }),
        ]),
      ]);
    },
  });
}

export function useCleanupPolicy() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.cleanupPolicy, queryFn: () => client.getCleanupPolicy() });
}

export function useSetCleanupPolicy() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (policy: CleanupPolicy) => client.setCleanupPolicy(policy),
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.cleanupPolicy, saved),
  });
}
