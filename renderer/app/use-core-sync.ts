import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import type { TransportState } from '../../shared/contract';
import { keyedThrottle } from './keyed-throttle';
import { useOperatorClient } from './operator-context';
import { queryKeys } from './query-keys';

/** A run's timeline is refetched at most this often while its CLI streams events. */
const timelineRefetchMs = 250;
/** The Usage page's report is read again at most this often while runs report usage. */
const usageReportRefetchMs = 1000;

/**
 * Subscribes once, at app start, to the core's pushed events and invalidates what they name. After a
 * reconnect every query is invalidated: events sent while the connection was down are lost.
 */
export function useCoreSync(): void {
  const client = useOperatorClient();
  const queryClient = useQueryClient();

  useEffect(() => {
    const refetchTimeline = keyedThrottle((runId) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.runEvents(runId) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.runNetwork(runId) });
    }, timelineRefetchMs);
    const refetchUsageReport = keyedThrottle(() => {
      void queryClient.invalidateQueries({ queryKey: [...queryKeys.usageAll, 'report'] });
    }, usageReportRefetchMs);
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
        // A refused run's detail shows its notice inline (resolved, ran again, ...).
        void queryClient.invalidateQueries({ queryKey: queryKeys.runAll });
      }),
      client.subscribe('agentsChanged', () => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.agents });
        void queryClient.invalidateQueries({ queryKey: queryKeys.agentAll });
        // An agent's picker lists the connection it is bound to, whatever its state.
        void queryClient.invalidateQueries({ queryKey: queryKeys.connections });
      }),
      client.subscribe('environmentsChanged', () => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.environments });
        // Runs show their environment's name; agents are re-verified against it.
        void queryClient.invalidateQueries({ queryKey: queryKeys.agents });
        void queryClient.invalidateQueries({ queryKey: queryKeys.agentAll });
        // A host lists the environments that name it.
        void queryClient.invalidateQueries({ queryKey: queryKeys.hosts });
      }),
      client.subscribe('hostsChanged', () => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.hosts });
      }),
      client.subscribe('connectionsChanged', () => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.connections });
        // A connection change re-verifies the agents that may use it.
        void queryClient.invalidateQueries({ queryKey: queryKeys.agents });
        void queryClient.invalidateQueries({ queryKey: queryKeys.agentAll });
      }),
      client.subscribe('runsChanged', (payload) => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.runsAll });
        // Each task shows its latest run's status.
        void queryClient.invalidateQueries({ queryKey: queryKeys.tasksAll });
        for (const runId of payload.runIds) {
          void queryClient.invalidateQueries({ queryKey: queryKeys.run(runId) });
          // A run that ended, was archived or was resumed has other changes to show. A read still in
          // flight may predate the change, and without data react-query would join it rather than
          // start another: cancel it first.
          const diffKey = queryKeys.runDiff(runId);
          void queryClient.cancelQueries({ queryKey: diffKey }).then(() => queryClient.invalidateQueries({ queryKey: diffKey }));
          // What the run holds and whether it lands cleanly change with it (a commit, a new turn, a landing).
          void queryClient.invalidateQueries({ queryKey: queryKeys.landingPlans(runId) });
        }
      }),
      // What a budget has spent grows with recorded usage and is priced by the price table.
      ...(['budgetsChanged', 'usageChanged', 'pricesChanged'] as const).map((event) =>
        client.subscribe(event, () => {
          void queryClient.invalidateQueries({ queryKey: queryKeys.budgets });
        }),
      ),
      // A CLI reports usage as it goes: a run's usage follows it, the Usage page's report at most once a second.
      client.subscribe('usageChanged', (payload) => {
        for (const runId of payload.runIds) void queryClient.invalidateQueries({ queryKey: queryKeys.runUsage(runId) });
        refetchUsageReport.call('report');
      }),
      // Every estimate is priced with the table.
      client.subscribe('serviceStateChanged', () => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.serviceState });
      }),
      client.subscribe('pricesChanged', () => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.priceTable });
        void queryClient.invalidateQueries({ queryKey: queryKeys.usageAll });
      }),
      // The run's Network panel is read from the same events as its timeline.
      client.subscribe('runTimeline', (payload) => refetchTimeline.call(payload.runId)),
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
      refetchTimeline.cancel();
      refetchUsageReport.cancel();
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
