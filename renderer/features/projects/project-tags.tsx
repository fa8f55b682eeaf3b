/** Whether a folder is a git repository, in words: runs use a worktree of a repository and a copy otherwise. */
export function GitTag({ isGitRepo, id }: { isGitRepo: boolean; id?: string }) {
  return isGitRepo ? (
    <span className="tag tag--git" id={id} title="Git repository: each run works in its own worktree">
      git
    </span>
  ) : (
    <span className="tag" id={id} title="Not a git repository: each run works in a copy">
      folder
    </span>
  );
}
