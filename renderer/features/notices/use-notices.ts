import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys, type NoticeListStatus } from '../../app/query-keys';

export function useNotices(status: NoticeListStatus) {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.notices(status), queryFn: () => client.listNotices({ status }) });
}

/** noticesChanged refreshes these too; not waiting for it keeps the page in step with the click. */
export function useDismissNotice() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (noticeId: string) => client.dismissNotice({ noticeId }),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.noticesAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.runAll }),
      ]);
    },
  });
}

/** Run again, from a resolved notice: starts each refused task it stands for, once. */
export function useRunAgain() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (noticeId: string) => client.runAgain({ noticeId }),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.noticesAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.runsAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.runAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll }),
      ]);
    },
  });
}
