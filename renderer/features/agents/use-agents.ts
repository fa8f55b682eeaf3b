import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

export function useAgents() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.agents, queryFn: () => client.listAgents() });
}

export function useAgent(agentId: string) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.agent(agentId), queryFn: () => client.getAgent({ agentId }) });
}

/** The installed CLI's own `--version`, read by the core (bounded, confined, no secrets). */
export function useAgentCliVersion(agentId: string) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.agentCliVersion(agentId), queryFn: () => client.getAgentCliVersion({ agentId }), staleTime: 60_000 });
}

export function useEnvironments() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.environments, queryFn: () => client.listEnvironments() });
}

export function useConnections() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.connections, queryFn: () => client.listConnections() });
}

/** agentsChanged refreshes these too; not waiting for it keeps the page in step with the form. */
function useAgentMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.agents }),
        queryClient.invalidateQueries({ queryKey: queryKeys.agentAll }),
        // A new agent bound at creation can be added to its connection's chosen agents.
        queryClient.invalidateQueries({ queryKey: queryKeys.connections }),
      ]);
    },
  });
}

/**
 * New agent's preview: what admission would say of a first run of the unsaved agent. Asked once the
 * fields settle (the caller debounces), never while they are invalid; keeps the last answer meanwhile.
 */
export function useAgentDraftCheck(draft: ChannelInput<'checkAgentDraft'> | null) {
  const client = useOperatorClient();
  return useQuery({
    queryKey: queryKeys.agentDraft(draft),
    queryFn: () => client.checkAgentDraft(draft!),
    enabled: draft !== null,
    placeholderData: (previous) => previous,
    staleTime: 0,
  });
}

export function useCreateAgent() {
  const client = useOperatorClient();
  return useAgentMutation((input: ChannelInput<'createAgent'>) => client.createAgent(input));
}

export function useUpdateAgent() {
  const client = useOperatorClient();
  return useAgentMutation((input: ChannelInput<'updateAgent'>) => client.updateAgent(input));
}

export function useDeleteAgent() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (agentId: string) => client.deleteAgent({ agentId }),
    onSuccess: async ({ agentId }) => {
      // Refetching the deleted agent would only answer not_found on the page being left.
      queryClient.removeQueries({ queryKey: queryKeys.agent(agentId) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.agents });
    },
  });
}
