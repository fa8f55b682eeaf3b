import { digest, stopReason } from '../run-context';
import { judgeAttempt } from './attempt-outcome';
import { budgetStoppingRetry, endOverBudget } from '../budget-stop';
import { need, type AttemptScope } from './attempt-scope';
import { outputLost } from './output-lost';

/** How much of an attempt's output the failure classifier reads. */
const classifierTailBytes = 64 * 1024;

/**
 * Step 7: what the attempt that ran to its end means for its run: cancelled (the operator stopped
 * it), succeeded, retried at a time (unless its budget is spent), or failed (an owner action's notice
 * is a subscriber of the attempt's end). Output the ledger could not store ends the run as it is. A
 * closing console leaves the run as it was: the next start finds it and strands it, with Resume.
 */
export function judge(scope: AttemptScope): Promise<void> {
  const { context, active, services } = scope;
  if (context.closing) return Promise.resolve();
  const { exit, endOffset, storageFailure } = need(scope.agentEnd, 'agent end');
  if (storageFailure) {
    outputLost(context, active, exit, endOffset);
    return Promise.resolve();
  }
  const attempt = need(scope.attempt, 'attempt');
  const task = need(scope.task, 'task');
  const finished = { exitCode: exit.exitCode, signal: exit.signal, endedAt: context.now() };
  if (stopReason(active) === 'operator') {
    attempt.finish({ ...finished, status: 'cancelled', failureCode: 'cancelled', retryAt: null });
    context.end(active.runId, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator.' });
    return Promise.resolve();
  }
  // What a setup command printed before the agent is not the agent's failure: the tail stops at it.
  const agentFrom = need(scope.agentFrom, 'agent output start');
  const tailBytes = scope.setupRan ? Math.min(classifierTailBytes, Math.max(0, endOffset - agentFrom)) : classifierTailBytes;
  const tail = context.ledger.output.tail(active.runId, tailBytes);
  const outcome = judgeAttempt({
    provider: active.provider,
    profile: active.profile,
    model: active.admission.model,
    agentId: active.agentId,
    attemptNumber: active.attemptNumber,
    exit,
    outputTail: new TextDecoder().decode(tail.bytes),
    events: active.attemptEvents,
    now: context.now(),
    closing: context.closing,
  });
  if (outcome.kind === 'succeeded') {
    attempt.finish({ ...finished, status: 'succeeded', failureCode: null, retryAt: null });
    context.ledger.runs.update(active.runId, {
      submissionJson: JSON.stringify({ readyForReview: outcome.readyForReview, artifactIdentity: artifactIdentity(task) }),
    });
    context.end(active.runId, 'succeeded', null);
    return Promise.resolve();
  }
  const { failure } = outcome;
  if (failure.quota) context.note(active.runId, attempt.id, 'quota_observed', { ...failure.quota });
  // A run that crossed its budget during this attempt is not given another one.
  const overBudget = outcome.kind === 'retry' ? budgetStoppingRetry(context, active) : null;
  const retryAt = outcome.kind === 'retry' && !overBudget ? outcome.retryAt : null;
  attempt.finish(
    { ...finished, status: 'failed', failureCode: failure.code, retryAt },
    outcome.kind === 'failed' ? { failure: outcome.shape, ownerAction: outcome.notifyOwner } : {},
  );
  if (overBudget) {
    endOverBudget(context, active, overBudget);
    return Promise.resolve();
  }
  if (outcome.kind === 'retry') {
    context.note(active.runId, attempt.id, 'retry_scheduled', {
      code: failure.code,
      nextAttempt: active.attemptNumber + 1,
      retryAt: new Date(outcome.retryAt).toISOString(),
      message: failure.message,
    });
    context.announce(active.runId);
    services.scheduleRetry(active, outcome.retryAt);
    return Promise.resolve();
  }
  context.end(active.runId, 'failed', outcome.shape);
  return Promise.resolve();
}

/** A stable identity for a task's artifacts: later runs of the same task share it. */
export function artifactIdentity(task: { id: string; planPath: string | null; reviewPath: string | null }): string {
  return digest({ kind: 'artifact-identity', taskId: task.id, planPath: task.planPath, reviewPath: task.reviewPath });
}
