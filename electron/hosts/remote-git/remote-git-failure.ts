import { OperatorError } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import type { ToolResult } from '../../sandbox/tool-sandbox';
import { sshFailure, sshWords } from '../ssh-failure';

/**
 * The code round trip's refusals (code `git_failed`, `reason` one of these), each saying what to do
 * next. The host's words are quoted only through sshWords (cut short, control characters removed):
 * the host, and the run's repository on it, are not trusted to draw on the operator's screen.
 */
export const remoteGitFailureReasons = [
  /** The host has no git. */
  'remote_git_missing',
  /** The host has no bubblewrap, which the console's git there runs in. */
  'remote_sandbox_unavailable',
  /** The run's repository on the host is not one the console reads: a `.git` that is a link, a file, missing. */
  'remote_repository_unsafe',
  /** sendBaseRevision was asked for a repository that is already there. */
  'remote_repository_exists',
  /** The host's git refused the bundle of the base revision. */
  'remote_bundle_refused',
  /** The host's store does not hold the base revision after the bundle (a store damaged on the host). */
  'remote_base_missing',
  /** The run's repository has no HEAD commit to bring back (HEAD names none, or one its objects do not hold). */
  'remote_head_missing',
  /** What came back is not a pack that passes `index-pack --strict`, or its tip is not a commit in it. */
  'remote_pack_refused',
  /** What came back is larger than the console takes. */
  'remote_pack_too_large',
  /** The host took longer than the time limit; it was stopped there. */
  'remote_git_timed_out',
  /** Anything else git on the host said no to. */
  'remote_git_failed',
] as const;

export type RemoteGitFailureReason = (typeof remoteGitFailureReasons)[number];

export function remoteGitError(reason: RemoteGitFailureReason, message: string): OperatorError {
  return new OperatorError({ code: 'git_failed', reason, message, actionUrl: actionRoute({ kind: 'settings-hosts' }) });
}

const nextStep: Record<RemoteGitFailureReason, string> = {
  remote_git_missing: 'Install git on the host (Debian: apt install git), test the host in Settings → Hosts, then run the task again.',
  remote_sandbox_unavailable: 'Install bubblewrap on the host (Debian: apt install bubblewrap), test the host in Settings → Hosts, then run the task again.',
  remote_repository_unsafe: 'The console brought nothing back. Discard the run; its repository on the host was changed in a way the console does not read.',
  remote_repository_exists: 'Clean up the run’s task root on the host, then run the task again.',
  remote_bundle_refused: 'Check the project with `git fsck` and the host’s free disk, then run the task again.',
  remote_base_missing: 'Clean up the host’s task roots in Settings → Hosts (the console sends the whole base again), then run the task again.',
  remote_head_missing: 'The console brought nothing back. Discard the run, or ask the agent to restore its branch.',
  remote_pack_refused: 'Nothing was written to the run’s repository. Discard the run: its commits on the host are damaged or forged.',
  remote_pack_too_large: 'Nothing was written to the run’s repository. Look at what the agent committed on the host (large build output?).',
  remote_git_timed_out: 'Check that the host answers (`ssh <host> true` in a terminal) and is not overloaded, then try again.',
  remote_git_failed: 'Check the host’s free disk and git, test the host in Settings → Hosts, then try again.',
};

/** The script's own refusal line on stderr, if it made one. */
function scriptRefusal(stderr: string): { reason: RemoteGitFailureReason; words: string } | null {
  const match = /^operator-console-git: (\S+) (.*)$/m.exec(stderr);
  if (!match) return null;
  const reason = remoteGitFailureReasons.find((known) => known === match[1]) ?? 'remote_git_failed';
  return { reason, words: sshWords(match[2] ?? '') };
}

/** A failed remote git step as the operator reads it: the script's refusal, a timeout, or ssh's own failure. */
export function remoteGitFailure(host: string, doing: string, result: ToolResult, timeoutMs: number): OperatorError {
  if (result.timedOut) {
    return remoteGitError('remote_git_timed_out', `${host} did not ${doing} within ${Math.round(timeoutMs / 1000)} s and was stopped. ${nextStep.remote_git_timed_out.replace('<host>', host)}`);
  }
  const refusal = scriptRefusal(result.stderr);
  if (refusal) return remoteGitError(refusal.reason, `${host} could not ${doing}: ${refusal.words}. ${nextStep[refusal.reason]}`);
  // 255 is ssh's own failure (it never reached the script); anything else is git or the shell on the host.
  if (result.exitCode === 255 || result.exitCode === null) return sshFailure(host, result, { during: 'connect', timeoutMs });
  return remoteGitError('remote_git_failed', `${host} could not ${doing} (exit ${result.exitCode}: ${sshWords(result.stderr)}). ${nextStep.remote_git_failed}`);
}

export function remoteGitRefusal(reason: RemoteGitFailureReason, what: string): OperatorError {
  return remoteGitError(reason, `${what} ${nextStep[reason]}`);
}
