import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { NotificationSettings } from '../../../shared/attention';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';

export function useNotificationSettings() {
  const client = useOperatorClient();
  return useQuery({ queryKey: queryKeys.notificationSettings, queryFn: () => client.getNotificationSettings() });
}

export function useSetNotificationSettings() {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: NotificationSettings) => client.setNotificationSettings(settings),
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.notificationSettings, saved),
  });
}
