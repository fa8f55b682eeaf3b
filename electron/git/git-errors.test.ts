import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OperatorError } from '../../shared/errors';
import { makeTempDir } from '../testing/temp-dir';
import { GitCommandError, runGit } from './git-command';
import { asGitFailure, classifyGitStderr, gitFailure } from './git-errors';
import { gitFailureReasons } from './git-failure-reasons';

const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function tempDir(prefix = 'oc-git-errors-'): string {
  const dir = makeTempDir(prefix);
  cleanups.push(dir.remove);
  return dir.path;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=Test', ...args], { cwd, stdio: 'pipe' });

function repoWithCommit(): string {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'README.md'), '# project\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** What real git says when the console's command fails there. */
async function gitError(cwd: string, args: string[], env?: Record<string, string>): Promise<GitCommandError> {
  const error = await runGit(args, { cwd, ...(env ? { env } : {}) }).then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(GitCommandError);
  return error as GitCommandError;
}

function asOperatorError(error: unknown, repository: string, revision?: string): OperatorError {
  const mapped = asGitFailure(error, { repository, ...(revision ? { revision } : {}) });
  expect(mapped).toBeInstanceOf(OperatorError);
  return mapped as OperatorError;
}

describe('git failures from real repositories', () => {
  it('a project with no commit yet: make a first commit', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    const error = asOperatorError(await gitError(dir, ['rev-parse', '--verify', '--end-of-options', 'HEAD^{commit}']), dir, 'HEAD');
    expect(error).toMatchObject({ code: 'git_failed', reason: 'no_commits' });
    expect(error.message).toBe(
      `The project ${dir} has no commit yet, and a run starts its worktree from one. Make a first commit there (for example \`git add -A && git commit -m "First commit"\`), then run the task again.`,
    );
  });

  it('a revision that is not there: choose one that exists', async () => {
    const dir = repoWithCommit();
    const error = asOperatorError(await gitError(dir, ['rev-parse', '--verify', '--end-of-options', 'no-such-branch^{commit}']), dir, 'no-such-branch');
    expect(error).toMatchObject({ code: 'git_failed', reason: 'unknown_revision' });
    expect(error.message).toContain('“no-such-branch” is not a commit of');
  });

  it('a folder that is not a repository (any more)', async () => {
    const dir = tempDir();
    const error = asOperatorError(await gitError(dir, ['rev-parse', '--git-common-dir'], { GIT_CEILING_DIRECTORIES: path.dirname(dir) }), dir);
    expect(error).toMatchObject({ code: 'git_failed', reason: 'not_a_repository' });
    expect(error.message).toContain(`${dir} is not a git repository any more`);
  });

  it('a stale lock file: finish the other git, or delete the lock', async () => {
    const dir = repoWithCommit();
    const lock = path.join(dir, '.git', 'index.lock');
    writeFileSync(lock, '');
    const error = asOperatorError(await gitError(dir, ['reset', '-q']), dir);
    expect(error).toMatchObject({ code: 'git_failed', reason: 'lock_file_exists' });
    expect(error.message).toBe(
      `Another git process holds the lock ${lock}, or one crashed and left it behind. Finish or close whatever is using git in that repository; if none is running, delete ${lock}, then run the task again.`,
    );
  });

  it.runIf(process.getuid?.() === 0)('a repository owned by another user: safe.directory, if it is trusted', async () => {
    const dir = repoWithCommit();
    execFileSync('chown', ['-R', '65534:65534', dir]);
    const error = asOperatorError(await gitError(dir, ['rev-parse', '--git-common-dir']), dir);
    expect(error).toMatchObject({ code: 'git_failed', reason: 'dubious_ownership' });
    expect(error.message).toContain(`git config --global --add safe.directory ${dir}`);
  });

  it('an object missing from the repository', async () => {
    const dir = repoWithCommit();
    const tree = git(dir, 'rev-parse', 'HEAD^{tree}').toString().trim();
    rmSync(path.join(dir, '.git', 'objects', tree.slice(0, 2), tree.slice(2)));
    const error = asOperatorError(await gitError(dir, ['ls-tree', 'HEAD']), dir);
    expect(error).toMatchObject({ code: 'git_failed', reason: 'object_missing' });
    expect(error.message).toContain('git fetch --unshallow');
  });

  it('a damaged object: git fsck', async () => {
    const dir = repoWithCommit();
    const commit = git(dir, 'rev-parse', 'HEAD').toString().trim();
    const file = path.join(dir, '.git', 'objects', commit.slice(0, 2), commit.slice(2));
    rmSync(file);
    writeFileSync(file, 'not a zlib stream');
    const error = asOperatorError(await gitError(dir, ['rev-parse', '--verify', '--end-of-options', 'HEAD^{commit}']), dir, 'HEAD');
    // Damage, not "no commit yet", though git also says it needed a single revision.
    expect(error).toMatchObject({ code: 'git_failed', reason: 'repository_corrupt' });
    expect(error.message).toContain('git fsck --full');
  });

  it('a configuration git cannot read, and a repository from a newer git', async () => {
    const broken = repoWithCommit();
    writeFileSync(path.join(broken, '.git', 'config'), '[core\n');
    const config = asOperatorError(await gitError(broken, ['rev-parse', '--git-common-dir']), broken);
    expect(config).toMatchObject({ code: 'git_failed', reason: 'bad_config' });
    expect(config.message).toContain('bad config line 1 in file .git/config');

    const newer = repoWithCommit();
    git(newer, 'config', 'core.repositoryformatversion', '1');
    git(newer, 'config', 'extensions.fromTheFuture', 'true');
    expect(asOperatorError(await gitError(newer, ['rev-parse', '--git-common-dir']), newer)).toMatchObject({ reason: 'unsupported_repository' });
  });

  it('git itself missing from the PATH', async () => {
    const dir = tempDir();
    const error = await gitError(dir, ['--version'], { PATH: path.join(dir, 'no-bin') });
    expect(asOperatorError(error, dir)).toMatchObject({ code: 'git_failed', reason: 'git_not_installed' });
  });
});

describe('the git error table', () => {
  it('knows what git says when the disk is full or a file may not be written', () => {
    expect(classifyGitStderr('error: unable to write file .git/objects/ab/cdef: No space left on device\nfatal: cannot store blob')).toBe('disk_full');
    expect(classifyGitStderr("error: insufficient permission for adding an object to repository database .git/objects")).toBe('permission_denied');
    expect(classifyGitStderr("fatal: cannot open '.git/FETCH_HEAD': Permission denied")).toBe('permission_denied');
    expect(classifyGitStderr('fatal: index file corrupt')).toBe('repository_corrupt');
    expect(classifyGitStderr('fatal: something nobody expected')).toBeNull();
  });

  it('turns what it does not know into git_failed with git’s own words, never internal', () => {
    const error = gitFailure('error: first\nfatal: second', { repository: '/p', doing: 'prepare the run’s worktree' });
    expect(error).toMatchObject({ code: 'git_failed', reason: 'git_error' });
    expect(error.message).toBe('git failed to prepare the run’s worktree in /p: first. Check that git works in that folder from a terminal (`git status`), then run the task again.');
    expect(gitFailure('', { repository: '/p' }, { timedOut: true })).toMatchObject({ reason: 'timed_out' });
    expect(gitFailureReasons).toContain(error.reason);
  });

  it('leaves errors that are not git’s alone', () => {
    const other = new Error('not git');
    expect(asGitFailure(other, { repository: '/p' })).toBe(other);
    const already = new OperatorError({ code: 'conflict', message: 'no' });
    expect(asGitFailure(already, { repository: '/p' })).toBe(already);
  });

  it('says what to do next in every message', () => {
    for (const stderr of ['fatal: not a git repository', 'fatal: Needed a single revision', "fatal: Unable to create '/p/.git/index.lock': File exists.", 'No space left on device']) {
      expect(gitFailure(stderr, { repository: '/p' }).message).toMatch(/run `git init`|then run the task again\.$/);
    }
  });
});
