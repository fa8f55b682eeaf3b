import type { runChannels } from '../../shared/channels/runs';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function runHandlers({ runs, ledger, streams }: Pick<CoreServices, 'runs' | 'ledger' | 'streams'>): ChannelHandlers<typeof runChannels> {
  return {
    listRuns: (input) => ledger.runs.list(input),
    startRun: (input) => runs.start(input.taskId, input.agentId),
    getRun: (input) => runs.detail(input.runId),
    listRunEvents: (input) => runs.events(input.runId, input.afterId, input.limit),
    listRunNetwork: (input) => runs.network(input.runId),
    stopRun: (input) => runs.stop(input.runId),
    getRunDiff: (input) => runs.workspace.diff(input.runId),
    openRunFolder: (input) => runs.workspace.openFolder(input.runId),
    archiveRun: (input) => runs.archive(input.runId),
    deleteRun: (input) => runs.delete(input.runId),
    resumeRun: (input) => runs.resume(input.runId, input.prompt),
    fetchRunWorkAgain: (input) => runs.fetchWorkAgain(input.runId),
    sendRunInput: (input) => runs.sendInput(input.runId, input.data),
    resizeRun: (input) => runs.resize(input.runId, input.cols, input.rows),
    // A live output stream goes to the client that opened it, and ends when that client goes away.
    openRunOutput: (input, context) => streams.open(input.runId, input.from, context.client, input.until),
    ackRunOutput: (input, context) => streams.ack(input.subscriptionId, input.bytes, context.client),
    closeRunOutput: (input, context) => streams.closeFor(input.subscriptionId, context.client),
  };
}
