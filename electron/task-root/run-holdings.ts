import { asGitFailure } from '../git/git-errors';
import type { HardenedGit } from '../git/hardened-git';
import { readBranchCommit } from './run-branch-ref';
import type { RunFileTools, TaskRoot } from './task-root-layout';
import type { TaskRootRecord } from './task-root-record';
import { openViewQuestion, viewDiffArgs } from './task-view-diff';

/** What a run holds that the project does not have: what removing its task root would lose. */
export interface RunHoldingsRead {
  /** The commit the run's branch points at, read as data; null for a copy, or a branch that is gone or not a commit. */
  tip: string | null;
  /** Files in the view that differ from the tip's tree (from the base for a copy), untracked ones included, ignored ones not. */
  uncommittedFiles: string[];
  /** The newest of the run's commits that are not landed, newest first, at most `maxCommits`. */
  unlandedCommits: Array<{ sha: string; subject: string }>;
  /** How many commits are not landed, all of them (the list above may be cut). */
  unlandedCommitCount: number;
  /** The tip has the run's base in its history (false when the agent reset its branch elsewhere, or it is gone). */
  descendsFromBase: boolean;
}

const defaultMaxCommits = 200;

/**
 * Reads what a run holds: its uncommitted files and its commits not landed yet (after `landedRunTip`,
 * the run's own tip that landed, else after its base). The branch tip is read as data
 * (readBranchCommit, run-branch-ref.ts); everything else is hardened git in the tool sandbox on a copy of the agent's
 * index (task-view-diff.ts), so nothing the run wrote can run a program, hang the console or be
 * changed by the question.
 */
export async function readRunHoldings(
  taskRoot: TaskRoot,
  tools: RunFileTools,
  options: { landedRunTip: string | null; maxCommits?: number },
): Promise<RunHoldingsRead> {
  const question = await openViewQuestion(taskRoot, tools);
  const { git, record, base } = question;
  try {
    const tip = await branchTip(git, record);
    const changed = await git.run([...viewDiffArgs, '--no-renames', '--name-only', '-z', tip ?? base, '--']);
    const uncommittedFiles = changed.stdout.toString('utf8').split('\0').filter(Boolean).sort();
    if (!tip) return { tip: null, uncommittedFiles, unlandedCommits: [], unlandedCommitCount: 0, descendsFromBase: record.kind === 'copy' };

    // A landed tip the store no longer has (or never had) counts for nothing: from the base then.
    const landed = options.landedRunTip && (await isCommit(git, options.landedRunTip)) ? options.landedRunTip : null;
    const range = ['--end-of-options', tip, `^${landed ?? base}`];
    const count = Number((await git.run(['rev-list', '--count', ...range, '--'])).stdout.toString('utf8').trim());
    const maxCommits = options.maxCommits ?? defaultMaxCommits;
    const log = await git.run(['log', '-z', '--no-color', '--no-decorate', '--format=%H%x09%s', `--max-count=${maxCommits}`, ...range, '--']);
    const unlandedCommits = log.stdout
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((entry) => {
        const tab = entry.indexOf('\t');
        return tab < 0 ? { sha: entry, subject: '' } : { sha: entry.slice(0, tab), subject: entry.slice(tab + 1) };
      });
    const ancestor = await git.run(['merge-base', '--is-ancestor', base, tip], { okExitCodes: [0, 1] });
    return { tip, uncommittedFiles, unlandedCommits, unlandedCommitCount: Number.isFinite(count) ? count : unlandedCommits.length, descendsFromBase: ancestor.exitCode === 0 };
  } catch (error) {
    // Landing asks this first: git's failure (a timeout included) says what to do there too, never internal.
    throw asGitFailure(error, { repository: taskRoot.view, doing: 'read what the run holds', retry: 'try again' });
  } finally {
    await git.dispose();
  }
}

/** The run's branch tip, if it names a commit the store holds. */
async function branchTip(git: HardenedGit, record: TaskRootRecord): Promise<string | null> {
  if (record.kind !== 'worktree' || !record.branch) return null;
  // A task root made by an earlier console keeps its branch in the project's own repository.
  const gitDir = record.version === 2 ? record.repository?.gitDir : record.git?.commonDir;
  if (!gitDir) return null;
  // A ref the agent turned into a link or a FIFO names no tip: its work then counts as uncommitted, never lost.
  const tip = await readBranchCommit(gitDir, record.branch).catch(() => null);
  return tip && (await isCommit(git, tip)) ? tip : null;
}

async function isCommit(git: HardenedGit, sha: string): Promise<boolean> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) return false;
  const result = await git.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${sha}^{commit}`], { okExitCodes: [0, 1, 128] });
  return result.exitCode === 0;
}
