/**
 * Runs on SSH hosts (issue 28): since when the host of a run that has not ended cannot be reached
 * (null while it answers). A run whose host is unreachable is shown as Unverifiable, not Running:
 * whether its agent still runs there is not known until the host answers.
 */
export const runHosts = `
ALTER TABLE runs ADD COLUMN host_unreachable_at INTEGER;
`;
