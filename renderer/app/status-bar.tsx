import { transportStateLabel } from './shell-labels';
import { useTransportState } from './use-core-sync';

/** The transport's state, always in words; colour only reinforces it. */
export function StatusBar() {
  const state = useTransportState();
  return (
    <footer className={`status-bar status-bar--${state}`} role="status" data-transport-state={state}>
      <span className="status-bar__indicator" aria-hidden="true" />
      <span className="status-bar__text">{transportStateLabel(state)}</span>
    </footer>
  );
}
