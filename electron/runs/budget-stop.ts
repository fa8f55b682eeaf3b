import type { Budget } from '../../shared/usage';
import { budgetRefusal, notRetriedSentence, spentBudget } from '../usage/budget-rule';
import type { ActiveRun, RunContext } from './run-context';
import type { RunNotices } from './run-notices';

/**
 * A run that crossed its budget while it ran (issue 14): the attempt it was in is let finish (cutting
 * an agent off mid-edit would waste what was spent), but no further attempt starts. Asked when an
 * attempt that would be retried ends, and again when a waiting retry's time comes (the budget may
 * have been spent by another run meanwhile).
 */

/** The spent budget that holds this run (its agent's, or its delivered connection's), or null. */
export function budgetStoppingRetry(context: RunContext, active: ActiveRun): Budget | null {
  const budgets = context.options.budgets;
  if (!budgets) return null;
  const holder = { agentId: active.agentId, connectionId: active.admission.connection?.id ?? null };
  return spentBudget(budgets.holding(holder), holder);
}

/**
 * Ends the run failed with the budget's failure (it says the run was not retried), notes it on the
 * timeline, and raises (or joins) the agent's "Budget reached" notice, which says so too.
 */
export function endOverBudget(context: RunContext, runNotices: RunNotices, active: ActiveRun, budget: Budget): void {
  const refusal = budgetRefusal(budget);
  const failure = { ...refusal, message: `${refusal.message} ${notRetriedSentence}` };
  context.note(active.runId, active.attemptId, 'budget_reached', { message: failure.message, budgetId: budget.id });
  context.log.info('run not retried: its budget is spent', { runId: active.runId, budgetId: budget.id });
  context.end(active.runId, 'failed', failure);
  const row = context.ledger.runs.row(active.runId);
  const agent = context.ledger.agents.get(active.agentId);
  const task = row ? context.ledger.tasks.get(row.task_id) : undefined;
  // The notice is raised once the run has ended failed: that is how it tells this run from a refused one.
  if (agent) runNotices.raiseOwnerNotice(active.runId, agent, { id: task?.id ?? null, title: task?.title ?? 'a task' }, refusal);
}
