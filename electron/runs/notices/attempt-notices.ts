import type { Ledger } from '../../ledger/ledger';
import type { RunEventBus } from '../../events/run-events';
import { fixedByPreparationReasons, fixedBySuccessCodes, type RunNotices } from './run-notices';

/**
 * The owner-action notices an attempt raises and resolves, as subscribers of its events: a failed
 * attempt that needs its owner (a CLI not found, a sign-in, a used-up quota, a failed project setup, a
 * connection gone unusable) raises or joins the agent's notice; an attempt that got further than
 * earlier ones resolves the notices about what stopped those (its setup succeeded, its CLI started,
 * it succeeded).
 */
export function subscribeAttemptNotices(lifecycle: RunEventBus, runNotices: RunNotices, ledger: Ledger): void {
  lifecycle.on('attemptEnded', ({ runId, agent, providerName, task, end, failure, ownerAction }) => {
    if (end.status === 'succeeded') {
      return runNotices.resolveFixedBy(agent.id, { codes: fixedBySuccessCodes }, `A later run of ${agent.name} succeeded.`);
    }
    if (!ownerAction || !failure) return;
    // The agent as it is now (renamed since admission, say); a deleted agent has no one to tell.
    const stored = ledger.agents.get(agent.id);
    if (!stored) return;
    // The console could not start the executable at all: the notice names the CLI.
    const title = failure.reason === 'executable_not_found' ? `${providerName} not found` : undefined;
    runNotices.raiseOwnerNotice(runId, stored, task, failure, title);
  });
  lifecycle.on('attemptProgressed', ({ agent, milestone }) => {
    if (milestone === 'agent_started') runNotices.resolveFixedBy(agent.id, { codes: ['spawn_failed'] }, `A later run of ${agent.name} found its CLI and started.`);
    else runNotices.resolveFixedBy(agent.id, { codes: ['setup_failed'] }, `A later run of ${agent.name} got through its project’s setup.`);
  });
  // A run that failed before any attempt began (a secret variable it could not read): its owner's notice.
  lifecycle.on('preparationFailed', ({ runId, agent, task, failure }) => {
    const stored = ledger.agents.get(agent.id);
    if (stored) runNotices.raiseOwnerNotice(runId, stored, task, failure);
  });
  // A later run of the agent got through its preparation: what stopped an earlier one there is gone.
  lifecycle.on('attemptStarted', ({ agent }) => runNotices.resolveFixedBy(agent.id, { reasons: fixedByPreparationReasons }, `A later run of ${agent.name} was prepared: its variables could be read.`));
}
