import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import type { VariableLayer } from '../../../shared/entities';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

/** A project's setup: the files copied into each run and the setup command. */
export function useProjectSetup(projectId: string) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.projectSetup(projectId), queryFn: () => client.getProjectSetup({ projectId }) });
}

export function useUpdateProjectSetup() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ChannelInput<'updateProjectSetup'>) => client.updateProjectSetup(input),
    onSuccess: (setup) => queryClient.setQueryData(queryKeys.projectSetup(setup.projectId), setup),
  });
}

/** The variables the console sets itself: a layer naming one is refused, and the editor says so first. */
export function useConsoleVariables() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.consoleVariables, queryFn: () => client.listConsoleVariables(), staleTime: Infinity });
}

export function useLayerVariables(layer: VariableLayer, ownerId: string) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.layerVariables(layer, ownerId), queryFn: () => client.listLayerVariables({ layer, ownerId }) });
}

export function useSetLayerVariables(layer: VariableLayer, ownerId: string) {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variables: ChannelInput<'setLayerVariables'>['variables']) => client.setLayerVariables({ layer, ownerId, variables }),
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.layerVariables(layer, ownerId), saved),
  });
}
