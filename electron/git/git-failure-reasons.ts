/**
 * The cases git-errors.ts tells apart, as the `reason` of a `git_failed` error. A leaf of its own:
 * hardened git's readers (unreadable-run-files.ts) name a reason too, and git-errors.ts reads their
 * errors, so the list cannot live in either without an import cycle.
 */
export const gitFailureReasons = [
  'git_not_installed',
  'dubious_ownership',
  'not_a_repository',
  'lock_file_exists',
  'disk_full',
  'permission_denied',
  'repository_corrupt',
  'object_missing',
  'bad_config',
  'unsupported_repository',
  'no_commits',
  'unknown_revision',
  'timed_out',
  // A FIFO, socket or device where git reads a file of a run's (unreadable-run-files.ts).
  'unreadable_run_file',
  'git_error',
] as const;

export type GitFailureReason = (typeof gitFailureReasons)[number];
