import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../sandbox/test-fixtures';
import type { TaskRoot } from '../task-root/task-root-layout';
import { agentCommits, makeLandingFixture, operatorCommits, operatorIdentity, prepareRun, type LandingFixture } from './landing-test-fixtures';
import {
  forgetRunInProject,
  landInProject,
  LandingRefusal,
  planLanding,
  projectBranches,
  projectIdentity,
  projectRemote,
  pushRunBranch,
  withoutCredentials,
} from './project-landing';
import { importRunCommits } from './run-import';

let fixture: LandingFixture;

beforeEach(async () => {
  fixture = await makeLandingFixture('oc-land-project-');
});

afterEach(() => fixture.cleanup());

/** A run whose agent committed `files`, imported into the project. */
async function importedRun(runId: string, files: Record<string, string>): Promise<{ taskRoot: TaskRoot; tip: string }> {
  const taskRoot = await prepareRun(fixture, runId);
  await agentCommits(taskRoot, files, `agent: ${Object.keys(files).join(', ')}`);
  const imported = await importRunCommits(taskRoot, fixture.tools, runId);
  return { taskRoot, tip: imported.tip };
}

const read = (file: string) => readFileSync(path.join(fixture.project, file), 'utf8');
const land = (runId: string, tip: string, strategy: 'fast-forward' | 'merge' | 'squash', target = 'main') =>
  landInProject(fixture.project, { runId, tip, target, strategy, message: `Land ${runId}`, identity: operatorIdentity });

describe('importRunCommits', () => {
  it("brings the run's commits into the project under a console ref, and nothing else", async () => {
    const taskRoot = await prepareRun(fixture, 'run_i1');
    const base = taskRoot.baseRevision!;
    expect(await importRunCommits(taskRoot, fixture.tools, 'run_i1')).toEqual({ tip: base, base, commitCount: 0 });
    expect(git(fixture.project, 'for-each-ref', 'refs/operator-console/imported/')).toBe('');

    await agentCommits(taskRoot, { 'one.txt': '1\n' }, 'one');
    const tip = await agentCommits(taskRoot, { 'two.txt': '2\n' }, 'two');
    expect(() => git(fixture.project, 'cat-file', '-e', tip)).toThrow();
    const branchesBefore = git(fixture.project, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/');

    expect(await importRunCommits(taskRoot, fixture.tools, 'run_i1')).toEqual({ tip, base, commitCount: 2 });
    expect(git(fixture.project, 'rev-parse', 'refs/operator-console/imported/run_i1')).toBe(tip);
    expect(git(fixture.project, 'show', `${tip}:two.txt`)).toBe('2');
    expect(git(fixture.project, 'fsck', '--strict', '--no-dangling')).toBe('');
    expect(git(fixture.project, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/')).toBe(branchesBefore);

    await forgetRunInProject(fixture.project, 'run_i1');
    expect(git(fixture.project, 'for-each-ref', 'refs/operator-console/imported/')).toBe('');
  });

  it('refuses a branch the agent rewrote so it no longer descends from the base', async () => {
    const taskRoot = await prepareRun(fixture, 'run_i2');
    git(taskRoot.view, 'checkout', '--quiet', '--orphan', 'elsewhere');
    writeFileSync(path.join(taskRoot.view, 'x.txt'), 'x\n');
    git(taskRoot.view, 'add', '-A');
    git(taskRoot.view, 'commit', '--quiet', '-m', 'unrelated');
    git(taskRoot.view, 'branch', '-f', 'operator-console/run_i2', 'HEAD');
    await expect(importRunCommits(taskRoot, fixture.tools, 'run_i2')).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/no longer descends/) });
    expect(git(fixture.project, 'for-each-ref', 'refs/operator-console/imported/')).toBe('');
  });

  it('refuses a pack beyond the limit, with a clear message', async () => {
    const taskRoot = await prepareRun(fixture, 'run_i3');
    await agentCommits(taskRoot, { 'big.txt': `${'random '.repeat(1000)}${Math.random()}\n`.repeat(50) }, 'big');
    await expect(importRunCommits(taskRoot, fixture.tools, 'run_i3', { maxPackBytes: 100 })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/more than 100 bytes of new objects/),
    });
  });
});

describe('planLanding and landInProject', () => {
  it('fast-forwards a checked-out, clean target and updates its working copy', async () => {
    const { tip } = await importedRun('run_l1', { 'feature.txt': 'feature\n' });
    const plan = await planLanding(fixture.project, { tip, target: 'main' });
    expect(plan).toMatchObject({ fastForward: true, clean: true, conflicts: [], touchedFiles: ['feature.txt'], checkout: { path: fixture.project, blockingFiles: [] }, alreadyLanded: false });

    expect(await land('run_l1', tip, 'fast-forward')).toEqual({ commit: tip, workingCopyUpdated: true, worktreePath: fixture.project });
    expect(git(fixture.project, 'rev-parse', 'main')).toBe(tip);
    expect(read('feature.txt')).toBe('feature\n');
    expect(git(fixture.project, 'status', '--porcelain')).toBe('');
    expect((await planLanding(fixture.project, { tip, target: 'main' })).alreadyLanded).toBe(true);
    await expect(land('run_l1', tip, 'merge')).rejects.toMatchObject({ reason: 'nothing_to_land' });
  });

  it('merges with a two-parent commit, and squashes into one commit, as the operator', async () => {
    const { tip } = await importedRun('run_l2', { 'feature.txt': 'feature\n' });
    const operatorTip = operatorCommits(fixture.project, { 'operator.txt': 'operator\n' }, 'operator work');
    await expect(land('run_l2', tip, 'fast-forward')).rejects.toMatchObject({ code: 'conflict', reason: 'not_fast_forward' });
    expect(git(fixture.project, 'rev-parse', 'main')).toBe(operatorTip);

    const merged = await land('run_l2', tip, 'merge');
    expect(git(fixture.project, 'rev-parse', 'main')).toBe(merged.commit);
    expect(git(fixture.project, 'log', '-1', '--format=%P|%an <%ae>|%cn|%s', 'main')).toBe(`${operatorTip} ${tip}|Ada Operator <ada@example.invalid>|Ada Operator|Land run_l2`);
    expect(read('feature.txt')).toBe('feature\n');
    expect(read('operator.txt')).toBe('operator\n');

    const second = await importedRun('run_l3', { 'other.txt': 'other\n' });
    const before = git(fixture.project, 'rev-parse', 'main');
    const squashed = await land('run_l3', second.tip, 'squash');
    expect(git(fixture.project, 'log', '-1', '--format=%P|%an|%s', 'main')).toBe(`${before}|Ada Operator|Land run_l3`);
    expect(git(fixture.project, 'diff', '--name-only', `${before}`, squashed.commit)).toBe('other.txt');
    expect(git(fixture.project, 'status', '--porcelain')).toBe('');
  });

  it('finds a conflict in the dry run and refuses before anything changes', async () => {
    const { tip } = await importedRun('run_l4', { 'notes.txt': 'the agent rewrote this\n' });
    const operatorTip = operatorCommits(fixture.project, { 'notes.txt': 'the operator rewrote this\n' }, 'operator notes');
    const plan = await planLanding(fixture.project, { tip, target: 'main' });
    expect(plan).toMatchObject({ fastForward: false, clean: false, conflicts: ['notes.txt'] });

    const refused = await land('run_l4', tip, 'merge').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LandingRefusal);
    expect(refused).toMatchObject({ code: 'conflict', reason: 'landing_conflicts', files: ['notes.txt'], message: expect.stringContaining('notes.txt') });
    expect(git(fixture.project, 'rev-parse', 'main')).toBe(operatorTip);
    expect(read('notes.txt')).toBe('the operator rewrote this\n');
    expect(git(fixture.project, 'status', '--porcelain')).toBe('');
  });

  it("refuses when the operator's checkout has uncommitted changes in touched files, and keeps untouched ones when it updates", async () => {
    const { tip } = await importedRun('run_l5', { 'README.md': '# Project\n\nThe agent’s README.\n' });
    writeFileSync(path.join(fixture.project, 'README.md'), 'operator is editing this\n');
    writeFileSync(path.join(fixture.project, 'scratch.txt'), 'untracked, untouched\n');
    const head = git(fixture.project, 'rev-parse', 'main');

    const plan = await planLanding(fixture.project, { tip, target: 'main' });
    expect(plan.checkout).toEqual({ path: fixture.project, blockingFiles: ['README.md'] });
    await expect(land('run_l5', tip, 'fast-forward')).rejects.toMatchObject({ reason: 'checkout_dirty', files: ['README.md'], message: expect.stringContaining('README.md') });
    expect(git(fixture.project, 'rev-parse', 'main')).toBe(head);
    expect(read('README.md')).toBe('operator is editing this\n');

    // An untracked file the landing would create is in its way too.
    const second = await importedRun('run_l6', { 'scratch.txt': 'the agent made this\n' });
    expect((await planLanding(fixture.project, { tip: second.tip, target: 'main' })).checkout?.blockingFiles).toEqual(['scratch.txt']);

    // Changes in files landing does not touch stay as they are.
    git(fixture.project, 'checkout', '--', 'README.md');
    writeFileSync(path.join(fixture.project, 'src', 'app.txt'), 'operator edit, untouched\n');
    const landed = await land('run_l5', tip, 'fast-forward');
    expect(landed).toMatchObject({ workingCopyUpdated: true, worktreePath: fixture.project });
    expect(read('README.md')).toContain('The agent’s README.');
    expect(read('src/app.txt')).toBe('operator edit, untouched\n');
    expect(read('scratch.txt')).toBe('untracked, untouched\n');
  });

  it('moves only the branch when the target is not checked out, and lands into a branch checked out in another worktree', async () => {
    git(fixture.project, 'branch', 'release');
    const { tip } = await importedRun('run_l7', { 'feature.txt': 'feature\n' });
    const mainBefore = git(fixture.project, 'rev-parse', 'main');
    const plan = await planLanding(fixture.project, { tip, target: 'release' });
    expect(plan.checkout).toBeNull();
    expect(await land('run_l7', tip, 'merge', 'release')).toMatchObject({ workingCopyUpdated: false, worktreePath: null });
    expect(git(fixture.project, 'rev-parse', 'release^2')).toBe(tip);
    expect(git(fixture.project, 'rev-parse', 'main')).toBe(mainBefore);
    expect(() => read('feature.txt')).toThrow();
    expect(git(fixture.project, 'status', '--porcelain')).toBe('');

    const other = path.join(fixture.base, 'other-worktree');
    git(fixture.project, 'worktree', 'add', '--quiet', '-b', 'topic', other);
    const second = await importedRun('run_l8', { 'topic.txt': 'topic\n' });
    expect(await land('run_l8', second.tip, 'fast-forward', 'topic')).toEqual({ commit: second.tip, workingCopyUpdated: true, worktreePath: other });
    expect(readFileSync(path.join(other, 'topic.txt'), 'utf8')).toBe('topic\n');
  });

  it('refuses when the target moved since the plan', async () => {
    const { tip } = await importedRun('run_l9', { 'feature.txt': 'feature\n' });
    const plan = await planLanding(fixture.project, { tip, target: 'main' });
    const moved = operatorCommits(fixture.project, { 'later.txt': 'later\n' }, 'later');
    await expect(
      landInProject(fixture.project, { runId: 'run_l9', tip, target: 'main', strategy: 'merge', message: 'm', identity: operatorIdentity, expectedTargetCommit: plan.targetCommit }),
    ).rejects.toMatchObject({ reason: 'target_moved' });
    expect(git(fixture.project, 'rev-parse', 'main')).toBe(moved);
    await expect(planLanding(fixture.project, { tip, target: 'no-such-branch' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('the project: branches, identity, remote, push', () => {
  it('lists branches and the current one, and reads the identity from its config', async () => {
    git(fixture.project, 'branch', 'feature/a');
    expect(await projectBranches(fixture.project)).toEqual({ branches: ['feature/a', 'main'], current: 'main' });
    git(fixture.project, 'checkout', '--quiet', '--detach');
    expect((await projectBranches(fixture.project)).current).toBeNull();
    git(fixture.project, 'config', 'user.name', 'Ada Operator');
    git(fixture.project, 'config', 'user.email', 'ada@example.invalid');
    expect(await projectIdentity(fixture.project)).toEqual(operatorIdentity);
  });

  it('pushes a landed commit to a bare repository standing in for the remote', async () => {
    expect(await projectRemote(fixture.project)).toBeNull();
    const remote = path.join(fixture.base, 'remote.git');
    execFileSync('git', ['init', '--quiet', '--bare', remote]);
    git(fixture.project, 'remote', 'add', 'upstream', 'https://user:secret-token@example.invalid/o/r.git');
    git(fixture.project, 'remote', 'add', 'origin', remote);
    expect(await projectRemote(fixture.project)).toEqual({ name: 'origin', url: remote, fetchUrl: remote });
    git(fixture.project, 'config', 'branch.main.remote', 'upstream');
    expect(await projectRemote(fixture.project, 'main')).toEqual({ name: 'upstream', url: 'https://example.invalid/o/r.git', fetchUrl: 'https://example.invalid/o/r.git' });

    const { tip } = await importedRun('run_p1', { 'feature.txt': 'feature\n' });
    await land('run_p1', tip, 'fast-forward');
    await pushRunBranch(fixture.project, { remote: 'origin', commit: tip, branch: 'operator-console/run_p1' });
    expect(git(remote, 'rev-parse', 'refs/heads/operator-console/run_p1')).toBe(tip);
    expect(git(remote, 'show', `${tip}:feature.txt`)).toBe('feature');

    // The remote's branch has moved on: a non-fast-forward push is refused, with what to do.
    const older = git(fixture.project, 'rev-parse', `${tip}~1`);
    await expect(pushRunBranch(fixture.project, { remote: 'origin', commit: older, branch: 'operator-console/run_p1' })).rejects.toMatchObject({
      code: 'conflict',
      reason: 'push_rejected',
    });
    await expect(pushRunBranch(fixture.project, { remote: '--upload-pack=touch /tmp/x', commit: tip, branch: 'b' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(pushRunBranch(fixture.project, { remote: 'upstream', commit: tip, branch: 'b' })).rejects.toMatchObject({ code: 'git_failed', reason: 'remote_unreachable' });
  });

  it('shows addresses without credentials', () => {
    expect(withoutCredentials('https://x-access-token:ghp_secret@github.com/o/r.git')).toBe('https://github.com/o/r.git');
    expect(withoutCredentials('https://ghp_secret@github.com/o/r.git')).toBe('https://github.com/o/r.git');
    expect(withoutCredentials('ssh://git:pw@example.com:2222/o/r.git')).toBe('ssh://git@example.com:2222/o/r.git');
    expect(withoutCredentials('git@github.com:o/r.git')).toBe('git@github.com:o/r.git');
  });
});
