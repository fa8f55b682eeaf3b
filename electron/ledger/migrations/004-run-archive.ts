/** A run the operator archived: its record stays, its worktree is cleaned up. */
export const runArchive = `
ALTER TABLE runs ADD COLUMN archived_at INTEGER;
`;
