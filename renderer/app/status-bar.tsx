import { useQuery } from '@tanstack/react-query';
import { useOperatorClient } from './operator-context';
import { queryKeys } from './query-keys';
import { transportStateLabel } from './shell-labels';
import { useTransportState } from './use-core-sync';

/**
 * The transport's state, always in words; colour only reinforces it. While the console service hands
 * over to a newer version once its runs end, it says so too: which version runs them, that no new run
 * starts meanwhile, and how to switch at once instead.
 */
export function StatusBar() {
  const state = useTransportState();
  const client = useOperatorClient();
  const service = useQuery({ queryKey: queryKeys.serviceState, queryFn: () => client.getServiceState(), enabled: state === 'connected' });
  const handingOverTo = state === 'connected' ? (service.data?.handingOverTo ?? null) : null;
  return (
    <footer className={`status-bar status-bar--${state}${handingOverTo ? ' status-bar--handing-over' : ''}`} role="status" data-transport-state={state}>
      <span className="status-bar__indicator" aria-hidden="true" />
      <span className="status-bar__text">{transportStateLabel(state)}</span>
      {handingOverTo && service.data && (
        <span className="status-bar__handover">
          Version {service.data.consoleVersion} is finishing its runs and starts no new one; version {handingOverTo} takes over by itself when they end. To
          switch now instead, run <code>npm run serve -- --restart-now</code> (runs still going are stopped and can be resumed).
        </span>
      )}
    </footer>
  );
}
