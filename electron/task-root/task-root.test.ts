import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTaskRoot, prepareTaskRoot } from './task-root';
import type { RunFileTools } from './task-root-layout';
import { prepareTaskRootMounts } from './task-root-mounts';
import { removeTaskRoot } from './task-root-removal';
import { diffTaskView } from './task-view-diff';
import { fixtureTools, git, makeOperatorFixture, type OperatorFixture } from '../sandbox/test-fixtures';

let fixture: OperatorFixture;
let tools: RunFileTools;

beforeEach(async () => {
  fixture = makeOperatorFixture('oc-task-root-');
  tools = await fixtureTools(fixture);
});

afterEach(() => fixture.cleanup());

function gitProject() {
  return { path: fixture.project, isGitRepo: true };
}

function sortedByPath<T extends { path: string }>(files: T[]): T[] {
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Loose objects in a repository's store (the project's by default). */
function looseObjects(objects = path.join(fixture.project, '.git', 'objects')): Set<string> {
  const found = new Set<string>();
  for (const folder of readdirSync(objects)) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue;
    for (const file of readdirSync(path.join(objects, folder))) found.add(folder + file);
  }
  return found;
}


describe('prepareTaskRoot for a git project', () => {
  it("makes the run's own repository, borrowing the project's objects, on its own branch at the current commit", async () => {
    const head = git(fixture.project, 'rev-parse', 'HEAD');
    const refsBefore = git(fixture.project, 'for-each-ref', '--format=%(refname)');
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a1', project: gitProject() });
    const root = path.join(fixture.dataDir, 'tasks', 'run_a1');
    expect(taskRoot).toMatchObject({
      root,
      view: path.join(root, 'view'),
      kind: 'worktree',
      baseRevision: head,
      branch: 'operator-console/run_a1',
      // Started from HEAD on main: landing offers main as its target.
      baseBranch: 'main',
      legacy: false,
      repository: { gitDir: path.join(root, 'git'), adminDir: path.join(root, 'git', 'worktrees', 'view'), objectFormat: 'sha1' },
    });
    for (const dir of ['tmp', 'cache', 'home']) expect(statSync(path.join(root, dir)).isDirectory()).toBe(true);
    expect(git(taskRoot.view, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(taskRoot.view, 'branch', '--show-current')).toBe('operator-console/run_a1');
    expect(readFileSync(path.join(taskRoot.view, 'README.md'), 'utf8')).toContain('The original README.');
    // The project gains a ref at the base (so a gc keeps what the run borrows) and nothing else: no
    // branch, no worktree registration, no object.
    expect(git(fixture.project, 'for-each-ref', '--format=%(refname)').split('\n').sort()).toEqual(
      [...refsBefore.split('\n'), 'refs/operator-console/runs/run_a1'].sort(),
    );
    expect(git(fixture.project, 'rev-parse', 'refs/operator-console/runs/run_a1')).toBe(head);
    expect(git(fixture.project, 'worktree', 'list', '--porcelain')).not.toContain(taskRoot.view);
    // The store holds no object of its own: it borrows the project's.
    expect(readFileSync(path.join(taskRoot.repository!.gitDir, 'objects', 'info', 'alternates'), 'utf8')).toBe(
      `${path.join(fixture.project, '.git', 'objects')}\n`,
    );
    expect(looseObjects(path.join(taskRoot.repository!.gitDir, 'objects')).size).toBe(0);
    expect(await openTaskRoot(fixture.dataDir, 'run_a1')).toEqual(taskRoot);
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
    // A commit is no branch to land into.
    expect(taskRoot.baseBranch).toBeNull();
    expect(existsSync(path.join(taskRoot.view, 'later.txt'))).toBe(false);
    await expect(
      prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a3', project: gitProject(), baseRevision: 'HEAD' }),
    ).rejects.toThrow(/pinned at/);
    await expect(
      prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a4', project: gitProject(), baseRevision: 'no-such-branch' }),
    ).rejects.toMatchObject({ code: 'git_failed', reason: 'unknown_revision', message: expect.stringMatching(/“no-such-branch” is not a commit of/) });
  });

  it("rebuilds a deleted view on the run's branch, keeping the agent's commits", async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a5', project: gitProject() });
    writeFileSync(path.join(taskRoot.view, 'committed.txt'), 'kept\n');
    git(taskRoot.view, 'add', '-A');
    git(taskRoot.view, 'commit', '--quiet', '-m', 'agent commit');
    // The run's repository now holds the agent's commit; the project does not.
    expect(() => git(fixture.project, 'cat-file', '-e', git(taskRoot.view, 'rev-parse', 'HEAD'))).toThrow();
    rmSync(taskRoot.view, { recursive: true, force: true });

    // Checked out again by hardened git in the tool sandbox, from the run's repository.
    const again = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a5', project: gitProject(), tools });
    expect(again.baseRevision).toBe(taskRoot.baseRevision);
    expect(readFileSync(path.join(again.view, 'committed.txt'), 'utf8')).toBe('kept\n');
    expect(git(again.view, 'log', '-1', '--format=%s')).toBe('agent commit');
    expect(git(again.view, 'status', '--porcelain')).toBe('');
  });

  it('records the branch the run is based on: a named local branch, none for a detached HEAD, none in an older record', async () => {
    git(fixture.project, 'branch', 'feature/x');
    const named = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_b1', project: gitProject(), baseRevision: 'feature/x' });
    expect(named.baseBranch).toBe('feature/x');
    git(fixture.project, 'checkout', '--quiet', '--detach');
    const detached = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_b2', project: gitProject() });
    expect(detached.baseBranch).toBeNull();
    // A record written before landing existed has no baseBranch: read as none.
    const recordFile = path.join(named.root, 'task-root.json');
    const { baseBranch: _dropped, ...older } = JSON.parse(readFileSync(recordFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(recordFile, JSON.stringify(older));
    expect((await openTaskRoot(fixture.dataDir, 'run_b1'))?.baseBranch).toBeNull();
  });

  it('refuses run ids that are not safe folder and branch names', async () => {
    for (const runId of ['../escape', 'a/b', '', '.hidden', 'x'.repeat(200)]) {
      await expect(prepareTaskRoot({ dataDir: fixture.dataDir, runId, project: gitProject() })).rejects.toThrow(/Run id/);
    }
  });

  it("mounts the run's repository writable, its config, hooks and worktree links read-only, and the project's objects read-only", async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a6', project: gitProject() });
    const gitDir = taskRoot.repository!.gitDir;
    const adminDir = taskRoot.repository!.adminDir;
    expect(adminDir).toBe(path.join(gitDir, 'worktrees', 'view'));
    const mounts = await prepareTaskRootMounts(taskRoot, null);
    expect(mounts.writableRoots).toEqual([taskRoot.view, taskRoot.tmp, taskRoot.cache, taskRoot.home, gitDir]);
    expect(mounts.readOnlyRebinds).toEqual([path.join(fixture.project, '.git', 'objects')]);
    expect(mounts.overlays.map((overlay) => [overlay.dest, overlay.writable ? 'rw' : 'ro'])).toEqual([
      [path.join(gitDir, 'config'), 'ro'],
      [path.join(gitDir, 'hooks'), 'ro'],
      [path.join(gitDir, 'worktrees'), 'ro'],
      [adminDir, 'rw'],
      [path.join(adminDir, 'commondir'), 'ro'],
      [path.join(adminDir, 'gitdir'), 'ro'],
      [path.join(taskRoot.view, '.git'), 'ro'],
    ]);
  });

  it('rewrites the worktree links before a launch, and refuses hooks it did not put there', async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_a7', project: gitProject() });
    const adminDir = taskRoot.repository!.adminDir;
    // What a local run (the operator's rights, no sandbox) could have done.
    writeFileSync(path.join(taskRoot.view, '.git'), 'gitdir: /somewhere/else\n');
    rmSync(path.join(adminDir, 'commondir'));
    symlinkSync('/etc/passwd', path.join(adminDir, 'commondir'));
    await prepareTaskRootMounts(taskRoot, null);
    expect(readFileSync(path.join(taskRoot.view, '.git'), 'utf8')).toBe(`gitdir: ${adminDir}\n`);
    expect(lstatSync(path.join(adminDir, 'commondir')).isSymbolicLink()).toBe(false);
    expect(readFileSync(path.join(adminDir, 'commondir'), 'utf8')).toBe('../..\n');

    writeFileSync(path.join(taskRoot.repository!.gitDir, 'hooks', 'pre-commit'), '#!/bin/sh\n');
    await expect(prepareTaskRootMounts(taskRoot, null)).rejects.toThrow(/pre-commit/);
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
    const runObjectsBefore = looseObjects(path.join(taskRoot.repository!.gitDir, 'objects'));
    const diff = await diffTaskView(taskRoot, tools);

    // With the lines each added and removed (the Compare view's counts).
    expect(sortedByPath(diff.files)).toEqual([
      { path: '.gitignore', status: 'added', additions: 1, deletions: 0 },
      { path: 'README.md', status: 'modified', additions: 1, deletions: 1 },
      { path: 'committed.txt', status: 'added', additions: 1, deletions: 0 },
      { path: 'new-folder/untracked.txt', status: 'added', additions: 1, deletions: 0 },
      { path: 'renamed-notes.txt', status: 'renamed', oldPath: 'notes.txt', additions: 0, deletions: 0 },
      { path: 'src/app.txt', status: 'deleted', additions: 0, deletions: 3 },
    ]);
    expect(diff.truncated).toBe(false);
    expect(diff.unifiedDiff).toContain('diff --git a/README.md b/README.md');
    expect(diff.unifiedDiff).toContain('+Changed by the agent.');
    expect(diff.unifiedDiff).toContain('+never added');
    expect(diff.unifiedDiff).toContain('-line two');
    expect(diff.unifiedDiff).toContain('rename from notes.txt');
    expect(diff.unifiedDiff).not.toContain('b/ignored.log');
    // The agent's index is untouched (no intent-to-add entries) and nothing was written to either store.
    expect(git(view, 'status', '--porcelain')).toBe(statusBefore);
    expect(looseObjects()).toEqual(objectsBefore);
    expect(looseObjects(path.join(taskRoot.repository!.gitDir, 'objects'))).toEqual(runObjectsBefore);
  });

  it('is empty for an untouched view', async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_d2', project: gitProject() });
    expect(await diffTaskView(taskRoot, tools)).toEqual({ files: [], unifiedDiff: '', truncated: false, nestedRepositories: [] });
  });

  // Both layers on their own: the hardened git alone (what a local run gets where there is no OS
  // sandbox) and inside the tool sandbox.
  it.each(['hardened git alone', 'hardened git in the tool sandbox'])("never reads the run's repository as a repository, so no program the agent named runs (%s)", async (layers) => {
    const isolated = layers === 'hardened git alone' ? { ...tools, isolation: { kind: 'none' as const } } : tools;
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_d3', project: gitProject() });
    const marker = path.join(fixture.base, 'host-ran-agent-program');
    const program = `sh -c 'touch ${marker}; cat'`;
    const { gitDir, adminDir } = taskRoot.repository!;
    // Everything a local run could rewrite: the repository's config and the worktree's links, pointed
    // at an agent-made repository with a filter, a textconv, an external diff and an fsmonitor...
    const evil = path.join(taskRoot.view, '.evil-common');
    git(taskRoot.view, 'init', '--quiet', '--bare', evil);
    writeFileSync(path.join(evil, 'objects', 'info', 'alternates'), `${path.join(fixture.project, '.git', 'objects')}\n`);
    for (const config of [path.join(evil, 'config'), path.join(gitDir, 'config')]) {
      writeFileSync(
        config,
        `[core]\n\tfsmonitor = ${program}\n[filter "evil"]\n\tclean = ${program}\n\tsmudge = ${program}\n[diff "evil"]\n\ttextconv = ${program}\n[diff]\n\texternal = ${program}\n`,
      );
    }
    writeFileSync(path.join(adminDir, 'commondir'), `${evil}\n`);
    writeFileSync(path.join(taskRoot.view, '.gitattributes'), '* filter=evil diff=evil\n');
    writeFileSync(path.join(taskRoot.view, 'README.md'), 'changed\n');
    // ...and a nested repository of its own, with a tracked file given a future mtime, so that git
    // would have to look inside it (and run its fsmonitor and filter) to know whether it changed.
    const nested = path.join(taskRoot.view, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    git(nested, 'init', '--quiet');
    writeFileSync(path.join(nested, 'code.txt'), 'nested\n');
    git(nested, 'add', 'code.txt');
    git(nested, 'commit', '--quiet', '-m', 'nested');
    git(nested, 'config', 'core.fsmonitor', program);
    git(nested, 'config', 'filter.evil.clean', program);
    writeFileSync(path.join(nested, '.gitattributes'), '* filter=evil\n');
    utimesSync(path.join(nested, 'code.txt'), new Date('2099-01-01'), new Date('2099-01-01'));
    // The agent's own index records it as a gitlink (a submodule without .gitmodules).
    git(taskRoot.view, 'add', 'vendor/lib');

    const diff = await diffTaskView(taskRoot, isolated);
    expect(existsSync(marker)).toBe(false);
    expect(diff.files).toContainEqual(expect.objectContaining({ path: 'README.md', status: 'modified' }));
    expect(diff.nestedRepositories).toEqual(['vendor/lib']);
    expect(diff.unifiedDiff).not.toContain('nested');
  });

  it('cuts a huge unified diff but keeps the whole file list', async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_d4', project: gitProject() });
    writeFileSync(path.join(taskRoot.view, 'big.txt'), 'x\n'.repeat(10_000));
    const diff = await diffTaskView(taskRoot, tools, { maxDiffBytes: 1_000 });
    expect(diff.truncated).toBe(true);
    expect(Buffer.byteLength(diff.unifiedDiff)).toBeLessThanOrEqual(1_000);
    expect(diff.files).toEqual([expect.objectContaining({ path: 'big.txt', status: 'added' })]);
  });
});

describe('removeTaskRoot', () => {
  it("removes the task root, the run's repository and the project's keep-ref, and nothing of the project", async () => {
    const location = { dataDir: fixture.dataDir, runId: 'run_r1', project: gitProject() };
    const taskRoot = await prepareTaskRoot(location);
    writeFileSync(path.join(taskRoot.view, 'dirty.txt'), 'uncommitted\n');
    const projectFiles = git(fixture.project, 'ls-files');

    await removeTaskRoot(location, tools);
    expect(existsSync(taskRoot.root)).toBe(false);
    expect(git(fixture.project, 'for-each-ref', 'refs/operator-console')).toBe('');
    expect(git(fixture.project, 'ls-files')).toBe(projectFiles);
    expect(git(fixture.project, 'status', '--porcelain')).toBe('');
    // Removing again is not an error, and the run id can be prepared afresh.
    await removeTaskRoot(location, tools);
    expect((await prepareTaskRoot(location)).branch).toBe('operator-console/run_r1');
  });

  it('empties what the agent made unwritable, and never follows its links out of the task root', async () => {
    const location = { dataDir: fixture.dataDir, runId: 'run_r2', project: gitProject() };
    const taskRoot = await prepareTaskRoot(location);
    const outside = path.join(fixture.base, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'keep.txt'), 'not the run\'s\n');
    symlinkSync(outside, path.join(taskRoot.view, 'link-to-outside'));
    symlinkSync(path.join(outside, 'keep.txt'), path.join(taskRoot.cache, 'file-link'));
    // What a local run (the operator's rights) could do: a link in place of a whole writable root.
    rmSync(taskRoot.home, { recursive: true });
    symlinkSync(outside, taskRoot.home);
    mkdirSync(path.join(taskRoot.tmp, 'locked', 'deep'), { recursive: true });
    writeFileSync(path.join(taskRoot.tmp, 'locked', 'deep', 'f'), 'x');
    chmodSync(path.join(taskRoot.tmp, 'locked', 'deep'), 0o500);
    chmodSync(path.join(taskRoot.tmp, 'locked'), 0o500);

    await removeTaskRoot(location, tools);
    expect(existsSync(taskRoot.root)).toBe(false);
    expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('not the run\'s\n');
  });

  it('diffs and removes a task root made by an earlier console (a worktree inside the project), and never launches into it', async () => {
    const location = { dataDir: fixture.dataDir, runId: 'run_r3', project: gitProject() };
    const { root, view } = legacyTaskRoot('run_r3');
    // Its sandbox ran as root: what its agent wrote is root's, some of it for root's eyes only.
    writeFileSync(path.join(view, 'README.md'), 'changed in the old layout\n');
    writeFileSync(path.join(view, 'private.txt'), 'root only\n', { mode: 0o600 });
    const taskRoot = (await openTaskRoot(fixture.dataDir, 'run_r3'))!;
    expect(taskRoot.legacy).toBe(true);
    const sandboxedTools = await fixtureTools(fixture, { sandboxed: true });
    expect(sortedByPath((await diffTaskView(taskRoot, sandboxedTools)).files)).toEqual([
      { path: 'README.md', status: 'modified', additions: 1, deletions: 3 },
      { path: 'private.txt', status: 'added', additions: 1, deletions: 0 },
    ]);
    await expect(prepareTaskRoot(location)).rejects.toThrow(/earlier version of the console/);

    await removeTaskRoot(location, sandboxedTools);
    expect(existsSync(root)).toBe(false);
    expect(existsSync(path.join(fixture.project, '.git', 'worktrees', 'view'))).toBe(false);
    expect(git(fixture.project, 'worktree', 'list', '--porcelain')).not.toContain(view);
    expect(git(fixture.project, 'branch', '--list', 'operator-console/*')).toBe('');
  });
});

/** A task root as consoles before the run's own repository made them: a worktree of the project. */
function legacyTaskRoot(runId: string) {
  const root = path.join(fixture.dataDir, 'tasks', runId);
  const view = path.join(root, 'view');
  for (const dir of ['tmp', 'cache', 'home']) mkdirSync(path.join(root, dir), { recursive: true });
  const base = git(fixture.project, 'rev-parse', 'HEAD');
  git(fixture.project, 'worktree', 'add', '--quiet', '-b', `operator-console/${runId}`, view, base);
  const worktreeAdminDir = path.join(fixture.project, '.git', 'worktrees', 'view');
  const record = {
    version: 1,
    kind: 'worktree',
    projectPath: fixture.project,
    baseRevision: base,
    branch: `operator-console/${runId}`,
    git: { commonDir: path.join(fixture.project, '.git'), worktreeAdminDir },
    baseTree: null,
  };
  writeFileSync(path.join(root, 'task-root.json'), JSON.stringify(record));
  return { root, view };
}

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
    expect(taskRoot).toMatchObject({ kind: 'copy', baseRevision: null, branch: null, repository: null });
    expect(readFileSync(path.join(taskRoot.view, 'docs', 'b.txt'), 'utf8')).toBe('beta\n');

    writeFileSync(path.join(taskRoot.view, 'a.txt'), 'alpha changed\n');
    writeFileSync(path.join(taskRoot.view, 'new.txt'), 'new\n');
    unlinkSync(path.join(taskRoot.view, 'gone.txt'));
    // The operator edits the original meanwhile: that is not the agent's work.
    writeFileSync(path.join(project.path, 'docs', 'b.txt'), 'operator edit\n');

    const again = await prepareTaskRoot(location);
    expect(again).toEqual(taskRoot);
    expect(readFileSync(path.join(again.view, 'a.txt'), 'utf8')).toBe('alpha changed\n');

    const diff = await diffTaskView(taskRoot, tools);
    expect(sortedByPath(diff.files)).toEqual([
      { path: 'a.txt', status: 'modified', additions: 1, deletions: 1 },
      { path: 'gone.txt', status: 'deleted', additions: 0, deletions: 1 },
      { path: 'new.txt', status: 'added', additions: 1, deletions: 0 },
    ]);
    expect(diff.unifiedDiff).toContain('+alpha changed');
    expect(diff.unifiedDiff).not.toContain('operator edit');

    await removeTaskRoot(location, tools);
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
    expect((await diffTaskView(taskRoot, tools)).files).toEqual([]);
  });
});
