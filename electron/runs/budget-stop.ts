import { budgetUnpriced } from '../../shared/usage';
import { budgetStopping, notRetriedSentence, type BudgetBlock } from '../usage/budget-rule';
import { unpricedRunModel } from '../usage/run-billing';
import type { ActiveRun, RunContext } from './run-context';

/**
 * A run that crossed its budget while it ran (issue 14): the attempt it was in is let finish (cutting
 * an agent off mid-edit would waste what was spent), but no further attempt starts. Asked when an
 * attempt that would be retried ends, and again when a waiting retry's time comes (the budget may
 * have been spent by another run meanwhile). The rule is admission's (budgetStopping): a money
 * budget that cannot count the run (a model with no price) stops it as a spent one does.
 */

/** The budget that stops this run's next attempt (its agent's, or its delivered connection's), or null. */
export function budgetStoppingRetry(context: RunContext, active: ActiveRun): BudgetBlock | null {
  const budgets = context.options.budgets;
  if (!budgets) return null;
  const holder = { agentId: active.agentId, connectionId: active.admission.connection?.id ?? null };
  const runUnpriced = unpricedRunModel(budgets.priceTable(), active.admission.connection, active.provider, active.admission.model);
  return budgetStopping(budgets.holding(holder), holder, runUnpriced);
}

/**
 * Ends the run failed with the budget's failure (it says the run was not retried), notes it on the
 * timeline, and tells the lifecycle bus: the agent's notice about that budget, which says so too, is
 * a subscriber (notices/budget-notice-reactions.ts).
 */
export function endOverBudget(context: RunContext, active: ActiveRun, block: BudgetBlock): void {
  const { budget, refusal } = block;
  const failure = { ...refusal, message: `${refusal.message} ${notRetriedSentence}` };
  context.note(active.runId, active.attemptId, refusal.reason === budgetUnpriced ? 'budget_unpriced' : 'budget_reached', { message: failure.message, budgetId: budget.id });
  context.log.info('run not retried: its budget is spent or cannot count it', { runId: active.runId, budgetId: budget.id, reason: refusal.reason });
  context.end(active.runId, 'failed', failure);
  const row = context.ledger.runs.row(active.runId);
  const task = row ? context.ledger.tasks.get(row.task_id) : undefined;
  // Told once the run has ended failed: that is how its notice tells this run from a refused one.
  context.lifecycle.emit('budgetStopped', {
    runId: active.runId,
    agent: { id: active.agentId, name: active.admission.agentName },
    task: { id: task?.id ?? null, title: task?.title ?? 'a task' },
    refusal,
  });
}
