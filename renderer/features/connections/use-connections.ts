import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

/** Where secrets are kept at rest: it does not change while the console runs. */
export function useVaultInfo() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.vaultInfo, queryFn: () => client.getVaultInfo(), staleTime: Infinity });
}

/** What the agent's picker lists: the connections it may use, and the one it is bound to. */
export function useConnectionsForAgent(agentId: string) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.connectionsForAgent(agentId), queryFn: () => client.listConnectionsForAgent({ agentId }) });
}

/**
 * connectionsChanged refreshes these too; not waiting for it keeps the list in step with the form.
 * A change can re-verify agents, so they are refreshed as well.
 */
function useConnectionMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.connections }),
        queryClient.invalidateQueries({ queryKey: queryKeys.agents }),
        queryClient.invalidateQueries({ queryKey: queryKeys.agentAll }),
      ]);
    },
  });
}

/**
 * Create and update take the key through `readSecret`, called once when the request is sent, rather
 * than as part of the mutation's input: the input is kept in the mutation cache, the key must not be.
 */
export function useCreateConnection(readSecret: () => string) {
  const client = useOperatorClient();
  return useConnectionMutation((input: Omit<ChannelInput<'createConnection'>, 'secret'>) =>
    client.createConnection({ ...input, secret: readSecret() }),
  );
}

export function useUpdateConnection(readSecret: () => string) {
  const client = useOperatorClient();
  return useConnectionMutation((input: Omit<ChannelInput<'updateConnection'>, 'secret'>) => {
    const secret = readSecret();
    return client.updateConnection(secret ? { ...input, secret } : input);
  });
}

export function useDeleteConnection() {
  const client = useOperatorClient();
  return useConnectionMutation((connectionId: string) => client.deleteConnection({ connectionId }));
}

export function useTestConnection() {
  const client = useOperatorClient();
  return useConnectionMutation((connectionId: string) => client.testConnection({ connectionId }));
}

export function useSetAgentConnection() {
  const client = useOperatorClient();
  return useConnectionMutation((input: ChannelInput<'setAgentConnection'>) => client.setAgentConnection(input));
}

export function useTestAgent() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (agentId: string) => client.testAgent({ agentId }),
    // The Test records the agent's verification.
    onSuccess: (_result, agentId) => queryClient.invalidateQueries({ queryKey: queryKeys.agent(agentId) }),
  });
}
