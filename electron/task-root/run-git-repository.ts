import { constants as fsConstants, promises as fs } from 'node:fs';
import path from 'node:path';
import { asGitFailure } from '../git/git-errors';
import { runGit } from '../git/git-command';
import { openHardenedGit } from '../git/hardened-git';
import { withProjectRepository } from '../git/project-repository-lock';
import { readBranchCommit } from './run-branch-ref';
import { ensureFolderWithin, readRegularFile, writeFileWithin, type Owner } from '../platform/safe-path';
import { handToSandboxUser } from '../sandbox/sandbox-user';
import {
  kindAt,
  projectKeepRefPrefix,
  repositoryDirName,
  taskBranchPrefix,
  worktreeName,
  type PrepareTaskRootInput,
  type RunFileTools,
  type TaskRepository,
  type taskRootPaths,
} from './task-root-layout';
import { writeRecord, type TaskRootRecordV2 } from './task-root-record';

/**
 * A git project's task root: the run's own repository (`git`), a bare store borrowing the project's
 * objects read-only, whose one worktree is `view` (see task-root.ts). The project is the operator's,
 * so git runs there as the operator's git; the run's repository is the agent's, so it is only ever
 * read as data or through hardened git (git/hardened-git.ts).
 */

export async function prepareRunGitRepository(
  paths: ReturnType<typeof taskRootPaths>,
  projectPath: string,
  input: PrepareTaskRootInput,
  record: TaskRootRecordV2 | null,
): Promise<TaskRootRecordV2> {
  const branch = `${taskBranchPrefix}${input.runId}`;
  if (record?.baseRevision && input.baseRevision !== undefined) {
    const wanted = await resolveCommit(projectPath, input.baseRevision);
    if (wanted !== record.baseRevision) {
      throw new Error(`Task root ${paths.root} is pinned at ${record.baseRevision}; it cannot be prepared again at ${wanted}.`);
    }
  }
  if (record?.repository) {
    if ((await kindAt(paths.view)) !== 'missing') return record;
    // The view was deleted (the run's repository is still there): check its branch out again, so the
    // agent's commits survive; uncommitted edits are already gone.
    await restoreView(paths, record, input.owner ?? null, input.tools ?? null);
    return record;
  }

  // No record: whatever is there is debris of a preparation that stopped half-way. No agent ran in
  // it yet (a run starts only after the record is written), so it is plainly removed.
  const gitDir = path.join(paths.root, repositoryDirName);
  await fs.rm(paths.view, { recursive: true, force: true });
  await fs.rm(gitDir, { recursive: true, force: true });

  // The project is the operator's (a run can never write it), so git runs there as the operator's git.
  const commonDir = await fs.realpath(path.resolve(projectPath, (await runGit(['rev-parse', '--git-common-dir'], { cwd: projectPath })).stdout.trim()));
  const objectFormat = (await runGit(['rev-parse', '--show-object-format'], { cwd: projectPath })).stdout.trim() === 'sha256' ? 'sha256' : 'sha1';
  const borrowedObjects = await projectObjectFolders(commonDir);
  const baseRevision = await resolveCommit(projectPath, input.baseRevision ?? 'HEAD');
  const baseBranch = await branchNamed(projectPath, input.baseRevision ?? 'HEAD');
  const noHooks = ['-c', 'core.hooksPath=/dev/null'];

  await runGit(['init', '--quiet', '--bare', '--template=', `--object-format=${objectFormat}`, gitDir]);
  await fs.mkdir(path.join(gitDir, 'objects', 'info'), { recursive: true });
  await fs.writeFile(path.join(gitDir, 'objects', 'info', 'alternates'), `${borrowedObjects.join('\n')}\n`);
  await fs.mkdir(path.join(gitDir, 'hooks'), { recursive: true });
  await fs.writeFile(path.join(gitDir, 'config'), await repositoryConfig(projectPath, objectFormat));
  await runGit([...noHooks, 'update-ref', `refs/heads/${branch}`, baseRevision], { env: { GIT_DIR: gitDir } });
  // The checkout reads the project's committed files with the operator's own git settings (an LFS
  // smudge filter, say): trusted input into a fresh, empty folder.
  await runGit([...noHooks, 'worktree', 'add', '--quiet', paths.view, branch], { env: { GIT_DIR: gitDir } });
  const adminDir = path.join(gitDir, 'worktrees', worktreeName);
  if ((await readGitFileTarget(paths.view)) !== adminDir) throw new Error(`git made ${paths.view}'s worktree somewhere unexpected.`);
  await withProjectRepository(projectPath, () => runGit([...noHooks, 'update-ref', `${projectKeepRefPrefix}${input.runId}`, baseRevision], { cwd: projectPath }));
  await handToSandboxUser([paths.view, gitDir], input.owner ?? null);

  const prepared: TaskRootRecordV2 = {
    version: 2,
    kind: 'worktree',
    projectPath,
    baseRevision,
    branch,
    repository: { gitDir, adminDir, borrowedObjects, objectFormat },
    baseTree: null,
    baseBranch,
  };
  await writeRecord(paths.root, prepared);
  return prepared;
}

/** The run's git repository's config: the console's own, with the operator's identity for the agent's commits. */
async function repositoryConfig(projectPath: string, objectFormat: 'sha1' | 'sha256'): Promise<string> {
  const identity: string[] = [];
  for (const key of ['user.name', 'user.email']) {
    const value = (await runGit(['config', '--get', key], { cwd: projectPath, okExitCodes: [0, 1] })).stdout.trim();
    if (value) identity.push(`\t${key.split('.')[1]} = ${JSON.stringify(value)}`);
  }
  return [
    '# Written by Operator Console: the repository of one run. Read-only inside the run\'s sandbox.',
    '[core]',
    `\trepositoryformatversion = ${objectFormat === 'sha256' ? 1 : 0}`,
    '\tfilemode = true',
    '\tbare = true',
    ...(objectFormat === 'sha256' ? ['[extensions]', '\tobjectFormat = sha256'] : []),
    ...(identity.length ? ['[user]', ...identity] : []),
    '',
  ].join('\n');
}

/** The project's object folder, and any it borrows itself (its own alternates), resolved. */
async function projectObjectFolders(commonDir: string): Promise<string[]> {
  const objects = path.join(commonDir, 'objects');
  const folders = [objects];
  const alternates = await readRegularFile(path.join(objects, 'info', 'alternates'), 64 * 1024).catch(() => null);
  for (const line of alternates?.toString('utf8').split('\n') ?? []) {
    const entry = line.trim();
    if (!entry || entry.startsWith('#')) continue;
    const resolved = await fs.realpath(path.resolve(objects, entry)).catch(() => null);
    if (resolved && !folders.includes(resolved)) folders.push(resolved);
  }
  return folders;
}

/**
 * Checks the run's branch out again into a new, empty view, reading the run's repository (which the
 * agent wrote) with hardened git only.
 */
async function restoreView(paths: ReturnType<typeof taskRootPaths>, record: TaskRootRecordV2, owner: Owner | null, tools: RunFileTools | null): Promise<void> {
  const repository = record.repository!;
  // A branch ref the agent made a link or a FIFO is not followed: the view starts again from the base.
  const commit = (await readBranchCommit(repository.gitDir, record.branch!).catch(() => null)) ?? record.baseRevision!;
  await fs.mkdir(paths.view, { mode: 0o700 });
  await writeWorktreeLinks(paths.root, repository, owner);
  await handToSandboxUser([paths.view], owner);
  // Hardened git (it never runs a program of the run's) in the tool sandbox when there is one; it
  // writes only the new view, and the index into its scratch folder.
  const ownObjects = path.join(repository.gitDir, 'objects');
  const objectDirs = [ownObjects, ...repository.borrowedObjects];
  const git = await openHardenedGit({
    isolation: tools?.isolation ?? { kind: 'none' },
    operatorHome: tools?.operatorHome ?? '/',
    hiddenPaths: [path.dirname(path.dirname(paths.root)), record.projectPath],
    readOnly: objectDirs,
    writable: [paths.view],
    objectDirs,
    runObjectDirs: [ownObjects],
    workTree: paths.view,
    objectFormat: repository.objectFormat,
    user: owner,
  });
  try {
    await git.run(['read-tree', '--reset', '-u', commit]);
    await fs.copyFile(git.indexFile, path.join(repository.adminDir, 'index.restored'), fsConstants.COPYFILE_EXCL);
    await fs.rename(path.join(repository.adminDir, 'index.restored'), path.join(repository.adminDir, 'index'));
  } finally {
    await git.dispose();
  }
  await handToSandboxUser([paths.view, repository.adminDir], owner);
}

/**
 * The files tying `view` to the run's repository, as the console wrote them: rewritten before every
 * sandboxed launch (a run cannot change them, they are bound read-only, but a local run could have).
 */
export async function writeWorktreeLinks(root: string, repository: TaskRepository, owner: Owner | null): Promise<void> {
  const relativeAdmin = path.relative(root, repository.adminDir);
  await ensureFolderWithin(root, relativeAdmin, { owner });
  await writeFileWithin(root, path.join('view', '.git'), `gitdir: ${repository.adminDir}\n`, { mode: 0o644, owner });
  await writeFileWithin(root, path.join(relativeAdmin, 'commondir'), '../..\n', { mode: 0o644, owner });
  await writeFileWithin(root, path.join(relativeAdmin, 'gitdir'), `${path.join(root, 'view', '.git')}\n`, { mode: 0o644, owner });
}

async function resolveCommit(projectPath: string, revision: string): Promise<string> {
  try {
    const result = await runGit(['rev-parse', '--verify', '--end-of-options', `${revision}^{commit}`], { cwd: projectPath });
    return result.stdout.trim();
  } catch (error) {
    // An empty repository (an unborn HEAD) lands here: the operator is told to make a first commit.
    throw asGitFailure(error, { repository: projectPath, revision, doing: 'find the commit the run starts from' });
  }
}

/**
 * The project's local branch a run starts from, which landing offers as its target: HEAD's branch
 * (null when HEAD is detached), or the branch `revision` names; null for a tag, a commit or a remote
 * branch.
 */
async function branchNamed(projectPath: string, revision: string): Promise<string | null> {
  if (revision === 'HEAD') {
    const head = await runGit(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: projectPath, okExitCodes: [0, 1] });
    return head.stdout.trim() || null;
  }
  const name = revision.startsWith('refs/heads/') ? revision.slice('refs/heads/'.length) : revision;
  const local = await runGit(['show-ref', '--verify', '--quiet', `refs/heads/${name}`], { cwd: projectPath, okExitCodes: [0, 1] });
  return local.exitCode === 0 ? name : null;
}

/** Read right after git made the worktree, before any agent ran: the folder `view/.git` names. */
async function readGitFileTarget(view: string): Promise<string> {
  const content = (await readRegularFile(path.join(view, '.git'), 4096))?.toString('utf8') ?? '';
  const match = /^gitdir: (.+)$/m.exec(content);
  if (!match?.[1]) throw new Error(`${view}/.git does not name a git directory.`);
  return fs.realpath(path.resolve(view, match[1].trim()));
}
