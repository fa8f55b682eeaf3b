import type { Ledger } from '../../ledger/ledger';
import type { RunEventBus } from '../../events/run-events';
import type { RunNotices } from './run-notices';

/** "Budget reached" (or "cannot count"), as a subscriber: a run its budget stopped between attempts raises or joins the agent's notice about it. */
export function subscribeBudgetNotices(lifecycle: RunEventBus, runNotices: RunNotices, ledger: Ledger): void {
  lifecycle.on('budgetStopped', ({ runId, agent, task, refusal }) => {
    // The agent as it is now; a deleted agent has no one to tell.
    const stored = ledger.agents.get(agent.id);
    if (stored) runNotices.raiseOwnerNotice(runId, stored, task, refusal);
  });
}
