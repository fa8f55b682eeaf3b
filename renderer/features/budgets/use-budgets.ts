import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

/** Every budget with what its current period has spent; budgetsChanged and usageChanged refresh it. */
export function useBudgets() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.budgets, queryFn: () => client.listBudgets() });
}

/**
 * budgetsChanged refreshes these too; not waiting for it keeps the list in step with the form. A
 * budget change may resolve a "Budget reached" notice and re-verifies agents: those are refreshed too.
 */
function useBudgetMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.budgets }),
        queryClient.invalidateQueries({ queryKey: queryKeys.noticesAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.agents }),
        queryClient.invalidateQueries({ queryKey: queryKeys.agentAll }),
      ]);
    },
  });
}

export function useSaveBudget() {
  const client = useOperatorClient();
  return useBudgetMutation((input: ChannelInput<'saveBudget'>) => client.saveBudget(input));
}

export function useDeleteBudget() {
  const client = useOperatorClient();
  return useBudgetMutation((budgetId: string) => client.deleteBudget({ budgetId }));
}
