import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

export { useEnvironments } from '../agents/use-agents';

/**
 * environmentsChanged refreshes these too; not waiting for it keeps the list in step with the form.
 * A change re-verifies the agents in it and may resolve its notices, so those are refreshed as well.
 */
function useEnvironmentMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.environments }),
        queryClient.invalidateQueries({ queryKey: queryKeys.agents }),
        queryClient.invalidateQueries({ queryKey: queryKeys.agentAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.noticesAll }),
        // A host lists the environments that name it.
        queryClient.invalidateQueries({ queryKey: queryKeys.hosts }),
      ]);
    },
  });
}

export function useCreateEnvironment() {
  const client = useOperatorClient();
  return useEnvironmentMutation((input: ChannelInput<'createEnvironment'>) => client.createEnvironment(input));
}

export function useUpdateEnvironment() {
  const client = useOperatorClient();
  return useEnvironmentMutation((input: ChannelInput<'updateEnvironment'>) => client.updateEnvironment(input));
}

export function useDeleteEnvironment() {
  const client = useOperatorClient();
  return useEnvironmentMutation((environmentId: string) => client.deleteEnvironment({ environmentId }));
}
