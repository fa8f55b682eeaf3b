import { OperatorError } from '../../shared/errors';
import { runGit } from '../git/git-command';
import { asGitFailure } from '../git/git-errors';
import { withProjectRepository } from '../git/project-repository-lock';
import { readRunBranchTip } from '../task-root/run-branch-ref';
import { assertRunId, projectImportedRefPrefix, type RunFileTools, type TaskRoot } from '../task-root/task-root-layout';
import { openRunStoreGit } from './run-store-git';

/**
 * Brings a run's commits into the project, so that the operator's own git can merge and push them.
 *
 * The crossing is data only. Inside the tool sandbox, hardened git packs the objects between the
 * run's base and its branch's tip from the run's store (and the project's objects it borrows); on the
 * host the project's git takes that pack with `index-pack --strict`, which checks every object (fsck)
 * as it stores it. No program of the run's runs and no config of the run's is read on either side.
 * The tip is then kept by a ref of the console's, `refs/operator-console/imported/<runId>`, so
 * nothing the landing needs is pruned, and the project's branches are untouched.
 */

/** A run's commits are source changes; a pack beyond this is refused rather than held in memory. */
const maxPackBytes = 1024 * 1024 * 1024;

export interface ImportedRun {
  tip: string;
  base: string;
  commitCount: number;
}

export async function importRunCommits(taskRoot: TaskRoot, tools: RunFileTools, runId: string, options: { maxPackBytes?: number } = {}): Promise<ImportedRun> {
  assertRunId(runId);
  const base = taskRoot.baseRevision;
  if (!base) throw new OperatorError({ code: 'conflict', message: 'This run has no base commit to land from.' });
  const tip = await readRunBranchTip(taskRoot);
  if (tip === base) return { tip, base, commitCount: 0 };
  const project = taskRoot.projectPath;
  const doing = 'bring the run’s commits into the project';
  const limit = options.maxPackBytes ?? maxPackBytes;

  const importedRef = `${projectImportedRefPrefix}${runId}`;
  // Brought in already as it is now (the dry run runs each time the Changes are looked at): nothing to copy.
  const already = await runGit(['rev-parse', '-q', '--verify', `${importedRef}^{commit}`], { cwd: project, okExitCodes: [0, 1] });
  if (already.exitCode === 0 && already.stdout.trim() === tip) {
    const count = Number((await runGit(['rev-list', '--count', `${base}..${tip}`], { cwd: project })).stdout.trim());
    return { tip, base, commitCount: count };
  }

  const store = await openRunStoreGit(taskRoot, tools);
  let pack: Buffer;
  try {
    // --revs reads "tip ^base" from stdin: exactly the objects the run added. Not --thin: the pack
    // must stand alone for index-pack without --fix-thin.
    const packed = await store.git
      .run(['pack-objects', '--stdout', '--revs', '--quiet'], { stdin: Buffer.from(`${tip}\n^${base}\n`), maxOutputBytes: limit, timeoutMs: 10 * 60_000 })
      .catch((error: unknown) => {
        throw asGitFailure(error, { repository: taskRoot.view, doing, retry: 'land again' });
      });
    if (packed.truncated) {
      throw new OperatorError({
        code: 'conflict',
        message: `The run's commits hold more than ${limit >= 1024 * 1024 ? `${Math.round(limit / 1024 / 1024)} MiB` : `${limit} bytes`} of new objects, more than the console brings into a project. Look at what the agent committed (large build output?) and land it by hand if it is meant.`,
      });
    }
    pack = packed.stdout;
  } finally {
    await store.git.dispose();
  }

  return withProjectRepository(project, () => storeInProject(project, pack, { runId, base, tip, importedRef, doing }));
}

/** The pack into the project's objects, checked, and the ref that keeps its tip. */
async function storeInProject(
  project: string,
  pack: Buffer,
  { runId, base, tip, importedRef, doing }: { runId: string; base: string; tip: string; importedRef: string; doing: string },
): Promise<ImportedRun> {
  const noHooks = ['-c', 'core.hooksPath=/dev/null'];
  try {
    await runGit([...noHooks, 'index-pack', '--stdin', '--strict'], { cwd: project, input: pack, timeoutMs: 10 * 60_000 });
  } catch (error) {
    throw asGitFailure(error, { repository: project, doing, retry: 'land again' });
  }
  const type = (await runGit(['cat-file', '-t', tip], { cwd: project, okExitCodes: [0, 128] })).stdout.trim();
  if (type !== 'commit') {
    throw new OperatorError({ code: 'conflict', message: `The run's branch points at ${tip}, which is not a commit; the console will not land it.` });
  }
  const descends = await runGit(['merge-base', '--is-ancestor', base, tip], { cwd: project, okExitCodes: [0, 1] });
  if (descends.exitCode !== 0) {
    throw new OperatorError({
      code: 'conflict',
      message: `The run's branch no longer descends from the commit the run started from (${base.slice(0, 12)}): the agent rewrote its history. The console lands only work built on the run's base.`,
    });
  }
  const commitCount = Number((await runGit(['rev-list', '--count', `${base}..${tip}`], { cwd: project })).stdout.trim());
  await runGit([...noHooks, 'update-ref', '-m', `operator-console: import run ${runId}`, importedRef, tip], { cwd: project });
  return { tip, base, commitCount };
}
