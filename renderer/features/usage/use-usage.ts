import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PriceTable, UsageQuery } from '../../../shared/usage';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

/** The Usage page's report; while another range loads, the last one stays on screen. */
export function useUsageReport(query: UsageQuery | null) {
  const client = useOperatorClient();
  return useQuery({
    queryKey: query ? queryKeys.usageReport(query) : [...queryKeys.usageAll, 'report', 'none'],
    queryFn: () => client.getUsageReport(query!),
    enabled: query !== null,
    placeholderData: keepPreviousData,
  });
}

/** A run's usage per attempt, with its estimated cost (usageChanged and pricesChanged refresh it). */
export function useRunUsage(runId: string) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.runUsage(runId), queryFn: () => client.getRunUsage({ runId }) });
}

export function usePriceTable() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.priceTable, queryFn: () => client.getPriceTable() });
}

/** Saves the operator's prices (null: back to the shipped ones); every estimate is refetched. */
export function useSetPriceTable() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (table: PriceTable | null) => client.setPriceTable({ table }),
    onSuccess: async (state) => {
      queryClient.setQueryData(queryKeys.priceTable, state);
      // pricesChanged does this too; not waiting for it keeps the page in step with the save.
      await queryClient.invalidateQueries({ queryKey: queryKeys.usageAll });
    },
  });
}
