import type { OperatorErrorShape } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import type { LaunchProfile, ProviderEntry } from '../../providers/catalog';
import { failurePatternsFor } from '../../providers/definitions';
import type { TimelineEvent } from '../../providers/events/timeline-event';
import { classifyAttempt, retryDelayMs, type AttemptFailure } from '../../providers/failure-classifier';
import type { PtyExit } from '../../pty/pty-session';

/** What an attempt that ran to its end means for its run. */
export type AttemptOutcome =
  | { kind: 'succeeded'; readyForReview: boolean }
  /** Another attempt, at `retryAt` (epoch ms). */
  | { kind: 'retry'; failure: AttemptFailure; retryAt: number }
  /** The run fails with `shape`; `notifyOwner`: someone must change something (a notice says what). */
  | { kind: 'failed'; failure: AttemptFailure; shape: OperatorErrorShape; notifyOwner: boolean };

export interface AttemptJudgement {
  provider: ProviderEntry;
  profile: Pick<LaunchProfile, 'maxAttempts' | 'retryBackoffBaseMs'>;
  model: string;
  agentId: string;
  /** The attempt's number (1 for the first): the retry policy counts them. */
  attemptNumber: number;
  exit: PtyExit;
  /** The end of the attempt's output, for the classifier's patterns. */
  outputTail: string;
  events: readonly TimelineEvent[];
  now: number;
  /** No retry is scheduled while the console closes. */
  closing: boolean;
}

/**
 * Classifies an attempt that ran to its end and applies the retry policy. Exit 0 is not enough: some
 * CLIs (Pi) exit 0 when the model call failed and say so only in their JSON stream, so an attempt is a
 * success only when nothing fatal came after the CLI's last answer.
 */
export function judgeAttempt(input: AttemptJudgement): AttemptOutcome {
  const { exit } = input;
  const classified = classifyAttempt({
    providerId: input.provider.id,
    providerName: input.provider.displayName,
    model: input.model,
    exitCode: exit.exitCode,
    signal: exit.signal,
    outputTail: input.outputTail,
    events: [...input.events],
    cliPatterns: failurePatternsFor(input.provider.definition),
  });
  if (classified === null && exit.exitCode === 0 && exit.signal === null) {
    const fatal = input.events.some((event) => event.kind === 'error' && event.fatal);
    return { kind: 'succeeded', readyForReview: !fatal };
  }
  const failure: AttemptFailure = classified ?? {
    code: 'process_exit',
    retryable: true,
    ownerAction: false,
    message: `The CLI exited with code ${exit.exitCode ?? 'unknown'}.`,
    evidence: null,
    quota: null,
  };
  const delay = input.closing ? null : retryDelayMs(failure, input.attemptNumber, input.profile, input.now);
  if (delay !== null) return { kind: 'retry', failure, retryAt: input.now + delay };
  const shape: OperatorErrorShape = { code: failure.code, message: failure.message };
  // A CLI that could not be started is fixed at the agent's executable path; any other owner action on the agent's page.
  if (failure.ownerAction) shape.actionUrl = actionRoute({ kind: failure.code === 'spawn_failed' ? 'agent-executable-path' : 'agent', agentId: input.agentId });
  return { kind: 'failed', failure, shape, notifyOwner: failure.ownerAction || failure.code === 'quota_exhausted' };
}
