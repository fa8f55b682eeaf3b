import { OperatorError } from '../../shared/errors';
import { GitCommandError } from './git-command';
import type { GitFailureReason } from './git-failure-reasons';
import { GitToolError } from './hardened-git';

/**
 * Git's failures as stable codes with a remedy, in the spirit of GitHub Desktop's table of git errors
 * (dugite's `GitError`): git's stderr is matched against known patterns, and the operator gets code
 * `git_failed`, a `reason` naming the case, and a message that says what to do. A failure no pattern
 * knows is still `git_failed` (reason `git_error`), with git's own first line, never "internal".
 *
 * The order matters: a damaged repository also makes `rev-parse` say "Needed a single revision", so
 * the damage is recognised before the missing commit.
 */

export interface GitFailureContext {
  /** The repository (or folder) git was working on, as the operator knows it: the project's path. */
  repository: string;
  /** What the console was doing, for the message: "prepare the run's worktree". */
  doing?: string | undefined;
  /** The revision the console asked for, when it asked for one. */
  revision?: string | undefined;
  /** What to do once it is fixed; default "run the task again". */
  retry?: string | undefined;
}

const again = (context: GitFailureContext) => context.retry ?? 'run the task again';

interface GitErrorPattern {
  reason: GitFailureReason;
  pattern: RegExp;
  remedy: (context: GitFailureContext, match: RegExpExecArray) => string;
}

const quote = (value: string) => `“${value}”`;

/** The table: first match wins. Each remedy is a whole sentence or two, naming the fix. */
export const gitErrorPatterns: readonly GitErrorPattern[] = [
  {
    reason: 'git_not_installed',
    pattern: /spawn git ENOENT|git: (?:command )?not found/i,
    remedy: (context) => `git is not installed, or not on the PATH the console was started with. Install git, restart the console, then ${again(context)}.`,
  },
  {
    reason: 'dubious_ownership',
    pattern: /detected dubious ownership in repository at '([^']+)'/i,
    remedy: (context, match) =>
      `git refuses to work in ${match[1] ?? context.repository} because it belongs to another user than the one the console runs as. ` +
      `If you trust this repository, run \`git config --global --add safe.directory ${match[1] ?? context.repository}\` (or change the folder's owner to your user), then ${again(context)}.`,
  },
  {
    reason: 'lock_file_exists',
    pattern: /Unable to create '([^']+\.lock)': File exists/i,
    remedy: (context, match) =>
      `Another git process holds the lock ${match[1]}, or one crashed and left it behind. Finish or close whatever is using git in that repository; ` +
      `if none is running, delete ${match[1]}, then ${again(context)}.`,
  },
  {
    reason: 'disk_full',
    pattern: /No space left on device|ENOSPC|disk quota exceeded/i,
    remedy: (context) =>
      `The disk is full: git could not write while working on ${context.repository} or the console’s data directory. Free some space (old runs can be deleted from their pages), then ${again(context)}.`,
  },
  {
    reason: 'permission_denied',
    pattern: /Permission denied|insufficient permission for adding an object|EACCES|Operation not permitted|Read-only file system/i,
    remedy: (context) =>
      `git was not allowed to read or write files of ${context.repository}. Check that the folder and its .git belong to your user and are writable (\`ls -la\` shows who owns them), then ${again(context)}.`,
  },
  {
    reason: 'repository_corrupt',
    pattern: /is corrupt|corrupt (?:loose )?object|index file corrupt|bad signature 0x|bad index file|inflate: data stream error|unable to unpack [0-9a-f]+ header|packfile .* (?:cannot be accessed|does not match)|broken link from/i,
    remedy: (context) =>
      `git reports damage in the repository of ${context.repository}. Run \`git fsck --full\` there to see what is damaged; restore it from a fresh clone (or a backup) if need be, then ${again(context)}.`,
  },
  {
    reason: 'object_missing',
    pattern: /unable to read (?:tree|blob|commit)? ?[0-9a-f]{7,}|missing (?:blob|tree|commit) [0-9a-f]{7,}|bad object \S+|not a (?:tree|commit|blob) object|did not receive expected object|reference is not a tree|Could not read [0-9a-f]{7,}|promisor remote/i,
    remedy: (context) =>
      `Objects are missing from the repository of ${context.repository} (a shallow or partial clone, or objects removed by hand). Fetch the full history there (\`git fetch --unshallow\`, or \`git fetch --refetch\` for a partial clone) and check it with \`git fsck\`, then ${again(context)}.`,
  },
  {
    reason: 'bad_config',
    pattern: /bad config (?:line \d+|variable|value)[^\n]*|fatal: bad numeric config value[^\n]*/i,
    remedy: (context, match) =>
      `A git configuration file has an error git cannot read past (${match[0].replace(/^fatal:\s*/, '').trim()}). Fix that line in the file it names, then ${again(context)}.`,
  },
  {
    reason: 'unsupported_repository',
    pattern: /unknown repository extension|Expected git repo version <= \d+|unknown repository format/i,
    remedy: (context) =>
      `The repository of ${context.repository} uses a format or extension this git does not know (it was made by a newer git). Update git to the version that made it, then ${again(context)}.`,
  },
  {
    reason: 'not_a_repository',
    pattern: /not a git repository/i,
    remedy: (context) =>
      `${context.repository} is not a git repository any more (its .git is gone or points nowhere). Restore it, or run \`git init\` there and make a first commit; or remove the project and add the folder again so runs copy it as a plain folder.`,
  },
  {
    reason: 'no_commits',
    pattern: /does not have any commits yet|Needed a single revision|ambiguous argument 'HEAD'|bad revision 'HEAD'|not a valid object name:? '?HEAD'?|unknown revision or path not in the working tree/i,
    remedy: (context) =>
      context.revision && context.revision !== 'HEAD'
        ? `${quote(context.revision)} is not a commit of ${context.repository}. Choose a branch, tag or commit that exists there, then ${again(context)}.`
        : `The project ${context.repository} has no commit yet, and a run starts its worktree from one. Make a first commit there (for example \`git add -A && git commit -m "First commit"\`), then ${again(context)}.`,
  },
];

/** The reason for git's stderr, or null when no pattern knows it. */
export function classifyGitStderr(stderr: string): GitFailureReason | null {
  return gitErrorPatterns.find((entry) => entry.pattern.test(stderr))?.reason ?? null;
}

function firstLine(stderr: string): string {
  const line = stderr.split('\n').map((part) => part.trim()).find(Boolean) ?? 'no output';
  return line.replace(/^(?:fatal|error):\s*/i, '').slice(0, 300);
}

/**
 * An OperatorError for git's stderr: `git_failed` with the case's reason and remedy. For the missing
 * commit of an explicit revision the reason is `unknown_revision`.
 */
export function gitFailure(stderr: string, context: GitFailureContext, options: { timedOut?: boolean; onRunFiles?: boolean } = {}): OperatorError {
  const doing = context.doing ? ` to ${context.doing}` : '';
  if (options.timedOut && options.onRunFiles) {
    // Hardened git runs no filter and reads no config of the run's, and what could make it wait (a
    // FIFO, a socket) was looked for before it ran and again once it was stopped, and not found.
    return new OperatorError({
      code: 'git_failed',
      reason: 'timed_out',
      message:
        `git did not finish in time${doing} in ${context.repository} and was stopped. Nothing there that git would wait on (a FIFO, a socket) was found: ` +
        `the run’s folder may hold a very great many files, or the disk is slow. Open the folder and look at what the agent left there, then ${again(context)}.`,
    });
  }
  if (options.timedOut) {
    return new OperatorError({
      code: 'git_failed',
      reason: 'timed_out',
      message: `git did not finish in time${doing} in ${context.repository} and was stopped. A very large repository, a slow disk or a git filter (LFS) waiting on the network can do this; try again, and check that git works there from a terminal.`,
    });
  }
  for (const entry of gitErrorPatterns) {
    const match = entry.pattern.exec(stderr);
    if (!match) continue;
    const reason: GitFailureReason = entry.reason === 'no_commits' && context.revision && context.revision !== 'HEAD' ? 'unknown_revision' : entry.reason;
    return new OperatorError({ code: 'git_failed', reason, message: entry.remedy(context, match) });
  }
  return new OperatorError({
    code: 'git_failed',
    reason: 'git_error',
    message: `git failed${doing} in ${context.repository}: ${firstLine(stderr)}. Check that git works in that folder from a terminal (\`git status\`), then ${again(context)}.`,
  });
}

/** For a caught error: git's (either kind) becomes an OperatorError; anything else is left as it is. */
export function asGitFailure(error: unknown, context: GitFailureContext): unknown {
  if (error instanceof GitCommandError) return gitFailure(error.stderr, context, { timedOut: error.timedOut });
  if (error instanceof GitToolError) return gitFailure(error.result.stderr, context, { timedOut: error.result.timedOut, onRunFiles: true });
  return error;
}
