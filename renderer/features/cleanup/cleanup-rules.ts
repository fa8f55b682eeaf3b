import type { CleanupCandidate } from '../../../shared/landing';

/** How Clean up names a run: its task and agent. */
export function candidateName(candidate: CleanupCandidate): string {
  return `${candidate.taskTitle} · ${candidate.agentName}`;
}

/**
 * A run whose files go only when the operator names it: it holds work not landed anywhere, its work
 * was never brought back from its SSH host, or it could still be resumed. The core keeps it unless it is in `confirmedRunIds`.
 */
export function needsConfirmation(candidate: CleanupCandidate): boolean {
  return !candidate.freelyRemovable || candidate.resumable || candidate.workLeftOnHost !== null;
}

/** Landed and discarded runs that cannot be resumed are ticked from the start; no other run ever is. */
export function preselectedRunIds(candidates: CleanupCandidate[]): string[] {
  return candidates.filter((candidate) => !needsConfirmation(candidate)).map((candidate) => candidate.runId);
}

/** The checkbox that selects a run, naming what removing it loses. */
export function removalLabel(candidate: CleanupCandidate): string {
  const name = `“${candidateName(candidate)}”`;
  if (candidate.workLeftOnHost !== null) return `Discard the work of ${name} left on ${candidate.workLeftOnHost}, never brought back`;
  if (!candidate.freelyRemovable) return `Remove the unlanded work of ${name}`;
  if (candidate.resumable) return `Remove ${name}, which could still be resumed`;
  return `Remove ${name}`;
}

/** The cleanUpRuns request for the selected runs: the ones that need it are confirmed by name. */
export function cleanupRequest(candidates: CleanupCandidate[], selected: ReadonlySet<string>) {
  const chosen = candidates.filter((candidate) => selected.has(candidate.runId));
  const confirmed = chosen.filter(needsConfirmation).map((candidate) => candidate.runId);
  return {
    runIds: chosen.map((candidate) => candidate.runId),
    ...(confirmed.length > 0 ? { confirmedRunIds: confirmed } : {}),
  };
}
