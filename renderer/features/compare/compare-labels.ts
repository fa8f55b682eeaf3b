import { runStatuses, type RunStatus } from '../../../shared/entities';
import type { RunComparison } from '../../../shared/landing';
import { isActiveRunStatus } from '../../ui/run-status';

export function asRunStatus(status: string): RunStatus | null {
  return (runStatuses as readonly string[]).includes(status) ? (status as RunStatus) : null;
}

/** The run is still on its way: it cannot land yet, nor be discarded in the same step. */
export function isComparedRunActive(run: RunComparison): boolean {
  const status = asRunStatus(run.status);
  return status !== null && isActiveRunStatus(status);
}

/**
 * How a run is named in Compare: its agent's name, numbered when the same agent ran the task more
 * than once (`Codex writer`, `Codex writer #2`), so every checkbox and button has a name of its own.
 */
export function comparedRunNames(runs: RunComparison[]): Map<string, string> {
  const counts = new Map<string, number>();
  for (const run of runs) counts.set(run.agentId, (counts.get(run.agentId) ?? 0) + 1);
  const seen = new Map<string, number>();
  const names = new Map<string, string>();
  for (const run of runs) {
    const ordinal = (seen.get(run.agentId) ?? 0) + 1;
    seen.set(run.agentId, ordinal);
    names.set(run.runId, (counts.get(run.agentId) ?? 0) > 1 ? `${run.agentName} #${ordinal}` : run.agentName);
  }
  return names;
}

/** Land this one is offered for a run that ended with work still only in its own store. */
export function canLandComparedRun(run: RunComparison): boolean {
  return run.landing.state === 'not_landed' && run.landing.filesRemovedAt === null && !isComparedRunActive(run);
}
