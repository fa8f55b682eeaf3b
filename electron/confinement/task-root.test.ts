import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffTaskView, gitProtectionFor, prepareTaskRoot, removeTaskRoot } from './task-root';
import { git, makeOperatorFixture, type OperatorFixture } from './test-fixtures';

let fixture: OperatorFixture;

beforeEach(() => {
  fixture = makeOperatorFixture('oc-task-root-');
});

afterEach(() => fixture.cleanup());

function gitProject() {
  return { path: fixture.project, isGitRepo: true };
}

function sortedByPath<T extends { path: string }>(files: T[]): T[] {
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Loose objects in the project's store. */
function looseObjects(): Set<string> {
  const objects = path.join(fixture.project, '.git', 'objects');
  const found = new Set<string>();
  for (const folder of readdirSync(objects)) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue;
    for (const file of readdirSync(path.join(objects, folder))) found.add(folder + file);
  }
  return found;
}

// Intent-to-add entries name git's empty blob, which git writes once per repository.
const emptyBlob = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

describe('prepareTaskRoot for a git project', () => {
  it('makes a worktree on its own branch at the current commit, and records it', async () => {
    const head = git(fixture.project, 'rev-parse', 'HEAD');
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a1', project: gitProject() });

    const root = path.join(fixture.dataDir, 'tasks', 'run_a1');
    expect(taskRoot).toMatchObject({
      root,
      view: path.join(root, 'view'),
      tmp: path.join(root, 'tmp'),
      cache: path.join(root, 'cache'),
      home: path.join(root, 'home'),
      baseRevision: head,
      branch: 'operator-console/run_a1',
      kind: 'worktree',
      projectPath: fixture.project,
    });
    for (const dir of [taskRoot.view, taskRoot.tmp, taskRoot.cache, taskRoot.home]) expect(statSync(dir).isDirectory()).toBe(true);
    expect(git(taskRoot.view, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(taskRoot.view, 'branch', '--show-current')).toBe('operator-console/run_a1');
    expect(readFileSync(path.join(taskRoot.view, 'README.md'), 'utf8')).toContain('The original README.');
  });

  it('is idempotent: a second preparation gives the same task root, pinned at the same base', async () => {
    const first = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a2', project: gitProject() });
    writeFileSync(path.join(first.view, 'work-in-progress.txt'), 'agent work\n');
    // The operator moves on in the project meanwhile.
    writeFileSync(path.join(fixture.project, 'later.txt'), 'later\n');
    git(fixture.project, 'add', '-A');
    git(fixture.project, 'commit', '--quiet', '-m', 'later');

    const second = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a2', project: gitProject() });
    expect(second).toEqual(first);
    expect(readFileSync(path.join(second.view, 'work-in-progress.txt'), 'utf8')).toBe('agent work\n');
    expect(git(second.view, 'rev-parse', 'HEAD')).toBe(first.baseRevision);
  });

  it('pins an explicit base revision and refuses to move it on a later preparation', async () => {
    const initial = git(fixture.project, 'rev-parse', 'HEAD');
    writeFileSync(path.join(fixture.project, 'later.txt'), 'later\n');
    git(fixture.project, 'add', '-A');
    git(fixture.project, 'commit', '--quiet', '-m', 'later');

    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a3', project: gitProject(), baseRevision: 'HEAD~1' });
    expect(taskRoot.baseRevision).toBe(initial);
    expect(existsSync(path.join(taskRoot.view, 'later.txt'))).toBe(false);
    await expect(
      prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a3', project: gitProject(), baseRevision: 'HEAD' }),
    ).rejects.toThrow(/pinned at/);
    await expect(
      prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a4', project: gitProject(), baseRevision: 'no-such-branch' }),
    ).rejects.toThrow(/not a commit/);
  });

  it("rebuilds a deleted view on the run's branch, keeping the agent's commits", async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a5', project: gitProject() });
    writeFileSync(path.join(taskRoot.view, 'committed.txt'), 'kept\n');
    git(taskRoot.view, 'add', '-A');
    git(taskRoot.view, 'commit', '--quiet', '-m', 'agent commit');
    rmSync(taskRoot.view, { recursive: true, force: true });

    const again = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a5', project: gitProject() });
    expect(again.baseRevision).toBe(taskRoot.baseRevision);
    expect(readFileSync(path.join(again.view, 'committed.txt'), 'utf8')).toBe('kept\n');
  });

  it('refuses run ids that are not safe folder and branch names', async () => {
    for (const runId of ['../escape', 'a/b', '', '.hidden', 'x'.repeat(200)]) {
      await expect(prepareTaskRoot({ dataDir: fixture.dataDir, runId, project: gitProject() })).rejects.toThrow(/Run id/);
    }
  });

  it('names the git paths a sandboxed commit needs', async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a6', project: gitProject() });
    const gitDir = path.join(fixture.project, '.git');
    const protection = await gitProtectionFor(taskRoot);
    expect(protection).toEqual({
      commonDir: gitDir,
      objectStore: path.join(gitDir, 'objects'),
      worktreeAdminDir: taskRoot.git!.worktreeAdminDir,
      branchRefDirs: [path.join(gitDir, 'refs', 'heads', 'operator-console'), path.join(gitDir, 'logs', 'refs', 'heads', 'operator-console')],
      hooksDir: path.join(gitDir, 'hooks'),
      configFile: path.join(gitDir, 'config'),
      lockedFiles: [
        path.join(taskRoot.view, '.git'),
        path.join(taskRoot.git!.worktreeAdminDir, 'commondir'),
        path.join(taskRoot.git!.worktreeAdminDir, 'gitdir'),
      ],
    });
    expect(path.dirname(taskRoot.git!.worktreeAdminDir)).toBe(path.join(gitDir, 'worktrees'));
  });
});

describe('diffTaskView', () => {
  it('lists added (untracked too), modified, deleted, renamed and committed changes against the base', async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_d1', project: gitProject() });
    const { view } = taskRoot;
    // Committed on the run's branch.
    writeFileSync(path.join(view, 'committed.txt'), 'from a commit\n');
    git(view, 'add', 'committed.txt');
    git(view, 'commit', '--quiet', '-m', 'agent commit');
    // Left in the working tree.
    writeFileSync(path.join(view, 'README.md'), '# Project\n\nChanged by the agent.\n');
    unlinkSync(path.join(view, 'src', 'app.txt'));
    renameSync(path.join(view, 'notes.txt'), path.join(view, 'renamed-notes.txt'));
    mkdirSync(path.join(view, 'new-folder'));
    writeFileSync(path.join(view, 'new-folder', 'untracked.txt'), 'never added\n');
    writeFileSync(path.join(view, '.gitignore'), 'ignored.log\n');
    writeFileSync(path.join(view, 'ignored.log'), 'ignored\n');

    const statusBefore = git(view, 'status', '--porcelain');
    const objectsBefore = looseObjects();
    const diff = await diffTaskView(taskRoot);

    expect(sortedByPath(diff.files)).toEqual([
      { path: '.gitignore', status: 'added' },
      { path: 'README.md', status: 'modified' },
      { path: 'committed.txt', status: 'added' },
      { path: 'new-folder/untracked.txt', status: 'added' },
      { path: 'renamed-notes.txt', status: 'renamed', oldPath: 'notes.txt' },
      { path: 'src/app.txt', status: 'deleted' },
    ]);
    expect(diff.truncated).toBe(false);
    expect(diff.unifiedDiff).toContain('diff --git a/README.md b/README.md');
    expect(diff.unifiedDiff).toContain('+Changed by the agent.');
    expect(diff.unifiedDiff).toContain('+never added');
    expect(diff.unifiedDiff).toContain('-line two');
    expect(diff.unifiedDiff).toContain('rename from notes.txt');
    expect(diff.unifiedDiff).not.toContain('b/ignored.log');
    // The agent's index is untouched (no intent-to-add entries) and nothing was written to the store.
    expect(git(view, 'status', '--porcelain')).toBe(statusBefore);
    expect([...looseObjects()].filter((id) => !objectsBefore.has(id) && id !== emptyBlob)).toEqual([]);
  });

  it('is empty for an untouched view', async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_d2', project: gitProject() });
    expect(await diffTaskView(taskRoot)).toEqual({ files: [], unifiedDiff: '', truncated: false });
  });

  it("trusts the recorded git paths, not files the agent can rewrite, so the host never runs the agent's filters", async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_d3', project: gitProject() });
    const marker = path.join(fixture.base, 'host-ran-agent-filter');
    // An agent-made repository that borrows the real objects and defines a clean filter...
    const evil = path.join(taskRoot.view, '.evil-common');
    git(taskRoot.view, 'init', '--quiet', '--bare', evil);
    writeFileSync(path.join(evil, 'objects', 'info', 'alternates'), `${path.join(fixture.project, '.git', 'objects')}\n`);
    git(evil, 'config', 'filter.evil.clean', `sh -c 'touch ${marker}; cat'`);
    writeFileSync(path.join(taskRoot.view, '.gitattributes'), '* filter=evil\n');
    writeFileSync(path.join(taskRoot.view, 'README.md'), 'changed\n');
    // ...and the worktree's admin folder (writable in the sandbox, for commits) pointed at it.
    writeFileSync(path.join(taskRoot.git!.worktreeAdminDir, 'commondir'), `${evil}\n`);

    const diff = await diffTaskView(taskRoot);
    expect(existsSync(marker)).toBe(false);
    expect(diff.files).toContainEqual({ path: 'README.md', status: 'modified' });
  });

  it('cuts a huge unified diff but keeps the whole file list', async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_d4', project: gitProject() });
    writeFileSync(path.join(taskRoot.view, 'big.txt'), 'x\n'.repeat(10_000));
    const diff = await diffTaskView(taskRoot, { maxDiffBytes: 1_000 });
    expect(diff.truncated).toBe(true);
    expect(Buffer.byteLength(diff.unifiedDiff)).toBeLessThanOrEqual(1_000);
    expect(diff.files).toEqual([{ path: 'big.txt', status: 'added' }]);
  });
});

describe('removeTaskRoot', () => {
  it('removes the worktree, its registration, its branch and the folder', async () => {
    const location = { dataDir: fixture.dataDir, runId: 'run_r1', project: gitProject() };
    const taskRoot = await prepareTaskRoot(location);
    writeFileSync(path.join(taskRoot.view, 'dirty.txt'), 'uncommitted\n');

    await removeTaskRoot(location);
    expect(existsSync(taskRoot.root)).toBe(false);
    expect(existsSync(taskRoot.git!.worktreeAdminDir)).toBe(false);
    expect(git(fixture.project, 'worktree', 'list', '--porcelain')).not.toContain(taskRoot.view);
    expect(git(fixture.project, 'branch', '--list', 'operator-console/*')).toBe('');
    // Removing again is not an error, and the run id can be prepared afresh.
    await removeTaskRoot(location);
    expect((await prepareTaskRoot(location)).branch).toBe('operator-console/run_r1');
  });
});

describe('a plain directory', () => {
  function plainProject() {
    const dir = path.join(fixture.home, 'src', 'plain');
    mkdirSync(path.join(dir, 'docs'), { recursive: true });
    writeFileSync(path.join(dir, 'a.txt'), 'alpha\n');
    writeFileSync(path.join(dir, 'docs', 'b.txt'), 'beta\n');
    writeFileSync(path.join(dir, 'gone.txt'), 'to be deleted\n');
    return { path: dir, isGitRepo: false };
  }

  it('is copied once, diffed against the copy as it was made, and removed', async () => {
    const project = plainProject();
    const location = { dataDir: fixture.dataDir, runId: 'run_c1', project };
    const taskRoot = await prepareTaskRoot(location);
    expect(taskRoot).toMatchObject({ kind: 'copy', baseRevision: null, branch: null, git: null });
    expect(readFileSync(path.join(taskRoot.view, 'docs', 'b.txt'), 'utf8')).toBe('beta\n');

    writeFileSync(path.join(taskRoot.view, 'a.txt'), 'alpha changed\n');
    writeFileSync(path.join(taskRoot.view, 'new.txt'), 'new\n');
    unlinkSync(path.join(taskRoot.view, 'gone.txt'));
    // The operator edits the original meanwhile: that is not the agent's work.
    writeFileSync(path.join(project.path, 'docs', 'b.txt'), 'operator edit\n');

    const again = await prepareTaskRoot(location);
    expect(again).toEqual(taskRoot);
    expect(readFileSync(path.join(again.view, 'a.txt'), 'utf8')).toBe('alpha changed\n');

    const diff = await diffTaskView(taskRoot);
    expect(sortedByPath(diff.files)).toEqual([
      { path: 'a.txt', status: 'modified' },
      { path: 'gone.txt', status: 'deleted' },
      { path: 'new.txt', status: 'added' },
    ]);
    expect(diff.unifiedDiff).toContain('+alpha changed');
    expect(diff.unifiedDiff).not.toContain('operator edit');

    await removeTaskRoot(location);
    expect(existsSync(taskRoot.root)).toBe(false);
    expect(existsSync(project.path)).toBe(true);
  });

  it('restores a deleted view from the base snapshot, not from the changed original', async () => {
    const project = plainProject();
    const location = { dataDir: fixture.dataDir, runId: 'run_c2', project };
    const taskRoot = await prepareTaskRoot(location);
    writeFileSync(path.join(project.path, 'a.txt'), 'operator edit\n');
    rmSync(taskRoot.view, { recursive: true, force: true });

    await prepareTaskRoot(location);
    expect(readFileSync(path.join(taskRoot.view, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect((await diffTaskView(taskRoot)).files).toEqual([]);
  });
});
