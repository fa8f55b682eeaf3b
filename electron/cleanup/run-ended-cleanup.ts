import type { RunEventBus } from '../events/run-events';
import type { CleanupService } from './cleanup-service';

/** Clean up hears every run's end: its task root is measured then, for the disk figures and the policy. */
export function subscribeCleanup(lifecycle: RunEventBus, cleanup: Pick<CleanupService, 'runEnded'>): () => void {
  return lifecycle.on('runEnded', ({ runId }) => cleanup.runEnded(runId));
}
