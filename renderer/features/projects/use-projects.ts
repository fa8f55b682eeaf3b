import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

export function useProjects() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.projects, queryFn: () => client.listProjects() });
}

export function useAddProject() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ChannelInput<'addProject'>) => client.addProject(input),
    // The projectsChanged event does this too; not waiting for it keeps the list in step with the form.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.projects }),
  });
}

export function useRemoveProject() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (projectId: string) => client.removeProject({ projectId }),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.projects }),
        queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.runsAll }),
      ]);
    },
  });
}

export function useDirectoryListing(path: string | undefined) {
  const client = useOperatorClient();
  return useQuery({
    queryKey: queryKeys.directory(path),
    queryFn: () => client.browseDirectory(path === undefined ? {} : { path }),
    staleTime: 0,
    retry: false,
    // The folder on screen stays while the next one loads, so the list does not flash empty.
    placeholderData: keepPreviousData,
  });
}
