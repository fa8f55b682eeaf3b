import type { landingChannels } from '../../shared/channels/landing';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

/** Landing a run's changes, comparing a task's runs, and giving the disk back (Cleanup). */
export function landingHandlers({ landing, cleanup }: Pick<CoreServices, 'landing' | 'cleanup'>): ChannelHandlers<typeof landingChannels> {
  return {
    getLandingPlan: (input) => landing.plan(input.runId, input.target),
    commitRunChanges: (input) => landing.commit(input.runId, input.message),
    landRun: (input) => landing.land(input),
    resolveRunConflicts: (input) => landing.resolveConflicts(input.runId, input.target),
    pushRunBranch: (input) => landing.push(input.runId),
    createPullRequest: (input) => landing.createPullRequest(input.runId, input.title, input.body),
    discardRun: (input) => landing.discard(input.runId),
    startRuns: (input) => landing.startMany(input.taskId, input.agentIds),
    isRecordedForgeAddress: (input) => ({ recorded: landing.isRecordedForgeAddress(input.url) }),
    compareTaskRuns: (input) => landing.compare(input.taskId),
    getDiskUsage: (input) => cleanup.diskUsage(input),
    planCleanup: () => cleanup.plan(),
    cleanUpRuns: (input) => cleanup.cleanUp(input),
    reclaimLedgerSpace: () => cleanup.reclaimLedgerSpace(),
    getCleanupPolicy: () => cleanup.policy(),
    setCleanupPolicy: (input) => cleanup.setPolicy(input),
  };
}
