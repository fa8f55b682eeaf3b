import { useQuery } from '@tanstack/react-query';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

export function useAgents() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.agents, queryFn: () => client.listAgents() });
}

export function useEnvironments() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.environments, queryFn: () => client.listEnvironments() });
}

export function useConnections() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.connections, queryFn: () => client.listConnections() });
}
