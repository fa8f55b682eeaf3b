import { constants as fsConstants, promises as fs } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '../../shared/errors';
import { asGitFailure } from '../git/git-errors';
import { isObjectName, readRunBranchTip } from '../task-root/run-branch-ref';
import { inspectWithin, unlinkWithin, UnsafePathError, writeFileWithin, type Owner } from '../platform/safe-path';
import type { RunFileTools, TaskRoot } from '../task-root/task-root-layout';
import { copyIndex, settleIndex } from '../task-root/task-view-diff';
import { openRunStoreGit } from './run-store-git';

/**
 * Commit: what the agent left uncommitted in its view becomes a commit on the run's branch, in the
 * run's own store, so that landing has one tip to bring into the project.
 *
 * The store is agent-written, so the commit is made by hardened git in the tool sandbox
 * (run-store-git.ts), never by git opening the store as a repository: the agent's hooks, config and
 * filters never run. It starts from a copy of the agent's index (the same one the Changes diff reads,
 * so what is committed is what the operator reviewed), adds the tracked changes, deletions and the
 * untracked files .gitignore does not exclude, and writes a tree and a commit whose only parent is
 * the branch's tip. The console then moves the branch (a loose ref file, written without following
 * any link) and puts the new index in place, so the view reads as clean.
 */

export interface CommitRunChangesInput {
  message: string;
  author: { name: string; email: string };
  now: Date;
}

export interface CommitRunChangesResult {
  commit: string;
  /** The files the commit changed against the branch's previous tip. */
  files: string[];
}

export async function commitRunChanges(taskRoot: TaskRoot, tools: RunFileTools, input: CommitRunChangesInput): Promise<CommitRunChangesResult> {
  const tip = await readRunBranchTip(taskRoot);
  const date = `${Math.floor(input.now.getTime() / 1000)} +0000`;
  const store = await openRunStoreGit(taskRoot, tools, {
    writeObjects: true,
    env: {
      GIT_AUTHOR_NAME: input.author.name,
      GIT_AUTHOR_EMAIL: input.author.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: input.author.name,
      GIT_COMMITTER_EMAIL: input.author.email,
      GIT_COMMITTER_DATE: date,
    },
  });
  const { git, repository } = store;
  let commit: string;
  let files: string[];
  try {
    await copyIndex(git, path.join(repository.adminDir, 'index'), store.tools, store.hiddenPaths);
    // No index to copy (missing, or not a regular file) or not one this git can read (damaged, split
    // by the agent): start from the branch's tip, so files it tracks despite .gitignore stay tracked.
    const index = await settleIndex(git, tip);
    // A tracked file the agent made a FIFO or a socket is named, not left to git to fail on.
    git.refuseUnreadableTracked(index.map((entry) => entry.path));
    await git.run(['add', '--update']);
    // Untracked files one by one, as the diff lists them: a folder holding a repository of its own
    // (listed with a trailing slash) is never entered, so no gitlink to a commit the project lacks.
    const untracked = (await git.run(['ls-files', '-z', '--others', '--exclude-standard'])).stdout
      .toString('utf8')
      .split('\0')
      .filter((entry) => entry && !entry.endsWith('/'));
    if (untracked.length > 0) {
      await git.run(['add', '--pathspec-from-file=-', '--pathspec-file-nul'], { stdin: Buffer.from(`${untracked.join('\0')}\0`) });
    }
    const tree = (await git.run(['write-tree'])).stdout.toString('utf8').trim();
    files = (await git.run(['diff-tree', '-r', '-z', '--name-only', '--no-renames', tip, tree])).stdout.toString('utf8').split('\0').filter(Boolean);
    if (files.length === 0) {
      throw new OperatorError({ code: 'conflict', message: 'There is nothing to commit: the run left no uncommitted changes in its folder.' });
    }
    commit = (await git.run(['commit-tree', tree, '-p', tip], { stdin: Buffer.from(input.message) })).stdout.toString('utf8').trim();
    if (!isObjectName(commit)) throw new Error(`git commit-tree answered ${JSON.stringify(commit)}, not a commit.`);
    // The branch must not have moved under us (a run resumed meanwhile): its commit would be lost.
    if ((await readRunBranchTip(taskRoot)) !== tip) {
      throw new OperatorError({ code: 'conflict', message: `The run's branch ${taskRoot.branch} moved while its changes were being committed; try again once the run is stopped.` });
    }
    await writeStoreFile(taskRoot, path.join(path.relative(taskRoot.root, repository.gitDir), 'refs', 'heads', ...taskRoot.branch!.split('/')), `${commit}\n`, store.owner);
    // The view is the branch's worktree again (the agent may have left it detached), with the index
    // the commit was written from, so `git status` there is clean.
    const adminRelative = path.relative(taskRoot.root, repository.adminDir);
    await writeStoreFile(taskRoot, path.join(adminRelative, 'HEAD'), `ref: refs/heads/${taskRoot.branch}\n`, store.owner);
    await placeIndex(taskRoot, adminRelative, git.indexFile, store.owner);
  } catch (error) {
    // git's failure (a timeout included) says what to do, as the Changes view's does; never internal.
    if (!(error instanceof UnsafePathError)) throw asGitFailure(error, { repository: taskRoot.view, doing: 'commit the run’s changes', retry: 'commit again' });
    throw new OperatorError({ code: 'conflict', message: `The run's store is not as the console made it (${error.message}), and the console will not write through it. Discard the run, or commit in its folder by hand.` });
  } finally {
    await git.dispose();
  }
  return { commit, files };
}

/**
 * Offers the landing target to the run for "Ask the agent to resolve": a ref in its store at the
 * target's commit, whose objects the store already sees through the project's objects it borrows.
 */
export async function offerTargetToRun(taskRoot: TaskRoot, commit: string, owner: Owner | null): Promise<void> {
  if (!isObjectName(commit)) throw new Error(`${commit} is not a commit name.`);
  if (!taskRoot.repository) throw new OperatorError({ code: 'conflict', message: 'This run has no store of its own to offer the target to.' });
  await writeStoreFile(taskRoot, path.join(path.relative(taskRoot.root, taskRoot.repository.gitDir), 'refs', 'operator-console', 'land-target'), `${commit}\n`, owner);
}

/** A file in the agent-written store: never through a link (a linked folder on the way is refused), a new inode, the sandbox user's. */
async function writeStoreFile(taskRoot: TaskRoot, relative: string, content: string, owner: Owner | null): Promise<void> {
  await writeFileWithin(taskRoot.root, relative, content, { mode: 0o644, owner, keepLinkedFolders: true });
}

/** The scratch index (written by hardened git, not the agent) replaces the view's, by a rename that never follows a link. */
async function placeIndex(taskRoot: TaskRoot, adminRelative: string, indexFile: string, owner: Owner | null): Promise<void> {
  const staged = path.join(adminRelative, 'index.operator-console');
  const { unsafe } = await inspectWithin(taskRoot.root, staged);
  if (unsafe) throw new UnsafePathError(unsafe, 'not a real folder');
  await unlinkWithin(taskRoot.root, staged);
  const stagedPath = path.join(taskRoot.root, staged);
  await fs.copyFile(indexFile, stagedPath, fsConstants.COPYFILE_EXCL);
  if (owner) await fs.lchown(stagedPath, owner.uid, owner.gid);
  await fs.rename(stagedPath, path.join(taskRoot.root, adminRelative, 'index'));
}
