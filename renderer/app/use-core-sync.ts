import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import type { TransportState } from '../../shared/contract';
import { useOperatorClient } from './operator-context';
import { queryKeys } from './query-keys';

/**
 * Subscribes once, at app start, to the core's pushed events and invalidates what they name. After a
 * reconnect every query is invalidated: events sent while the connection was down are lost.
 */
export function useCoreSync(): void {
  const client = useOperatorClient();
  const queryClient = useQueryClient();

  useEffect(() => {
    const unsubscribers = [
      client.subscribe('projectsChanged', () => {
        // Removing a project removes its tasks and run history from the console too.
        void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
        void queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll });
        void queryClient.invalidateQueries({ queryKey: queryKeys.runsAll });
      }),
      client.subscribe('tasksChanged', () => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll });
      }),
      client.subscribe('noticesChanged', (payload) => {
        queryClient.setQueryData(queryKeys.noticesCount, { open: payload.open });
        void queryClient.invalidateQueries({ queryKey: queryKeys.noticesAll });
      }),
      client.subscribe('runsChanged', () => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.runsAll });
        // Each task shows its latest run's status.
        void queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll });
      }),
    ];

    let previous: TransportState = client.transportState();
    const stopWatching = client.onTransportState((state) => {
      // A request already in flight on the new connection is kept rather than sent twice.
      if (state === 'connected' && previous !== 'connected') void queryClient.invalidateQueries(undefined, { cancelRefetch: false });
      previous = state;
    });

    return () => {
      for (const unsubscribe of unsubscribers) unsubscribe();
      stopWatching();
    };
  }, [client, queryClient]);
}

export function useTransportState(): TransportState {
  const client = useOperatorClient();
  return useSyncExternalStore(
    (onChange) => client.onTransportState(onChange),
    () => client.transportState(),
  );
}
