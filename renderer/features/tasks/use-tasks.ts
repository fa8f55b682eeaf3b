import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChannelInput } from '../../../shared/contract';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

/** One project's tasks, or every project's when projectId is undefined (the command palette's). */
export function useTasks(projectId: string | undefined, includeArchived: boolean) {
  const client = useOperatorClient();
  return useQuery({
    queryKey: queryKeys.tasks(projectId, includeArchived),
    queryFn: () => client.listTasks({ ...(projectId ? { projectId } : {}), ...(includeArchived ? { includeArchived } : {}) }),
  });
}

/** Every task mutation refreshes the task lists; tasksChanged does too, but the form should not wait for it. */
function useTaskMutation<I, O>(mutationFn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll }),
  });
}

export function useCreateTask() {
  const client = useOperatorClient();
  return useTaskMutation((input: ChannelInput<'createTask'>) => client.createTask(input));
}

export function useUpdateTask() {
  const client = useOperatorClient();
  return useTaskMutation((input: ChannelInput<'updateTask'>) => client.updateTask(input));
}

export function useSetTaskArchived() {
  const client = useOperatorClient();
  return useTaskMutation((input: ChannelInput<'setTaskArchived'>) => client.setTaskArchived(input));
}

export function useImportTasks() {
  const client = useOperatorClient();
  return useTaskMutation((projectId: string) => client.importTasks({ projectId }));
}
