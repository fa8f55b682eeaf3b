import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

export function useHosts() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.hosts, queryFn: () => client.listHosts() });
}

/** hostsChanged refreshes the list too; not waiting for it keeps the list in step with the action. */
function useHostMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.hosts }),
  });
}

export function useAddHost() {
  const client = useOperatorClient();
  return useHostMutation((name: string) => client.addHost({ name }));
}

export function useRemoveHost() {
  const client = useOperatorClient();
  return useHostMutation((hostId: string) => client.removeHost({ hostId }));
}

export function useTestHost() {
  const client = useOperatorClient();
  return useHostMutation((hostId: string) => client.testHost({ hostId }));
}

export function useTrustHostKey() {
  const client = useOperatorClient();
  return useHostMutation((input: { hostId: string; fingerprint: string }) => client.trustHostKey(input));
}
