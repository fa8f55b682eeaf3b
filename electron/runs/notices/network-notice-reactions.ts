import type { NetworkNotices } from './network-notices';
import type { RunEventBus } from '../../events/run-events';

/** "Network request blocked", as a subscriber: a request the run's egress proxy refused raises (or joins) its notice. */
export function subscribeNetworkNotices(lifecycle: RunEventBus, networkNotices: NetworkNotices): void {
  lifecycle.on('egressDecided', ({ runId, agent, task, decision, environmentId }) => {
    // A host that is no host at all cannot be allowed: the Network panel shows it, no notice offers it.
    if (decision.allowed || decision.invalidHost) return;
    networkNotices.blocked({ runId, agent, task, environmentId, host: decision.host, port: decision.port });
  });
}
