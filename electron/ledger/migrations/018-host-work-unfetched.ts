/**
 * Runs on SSH hosts (issue 28): since when a run's work is on its host only, because bringing it back
 * failed (null once it came back, and for every other run). Nothing removes the run's task root on the
 * host meanwhile unless the operator says to discard that work (cleanup-service.ts, run-workspace.ts).
 */
export const hostWorkUnfetched = `
ALTER TABLE runs ADD COLUMN host_work_unfetched_at INTEGER;
`;
