import { existsSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRunBranchTip } from '../task-root/run-branch-ref';
import { git } from '../sandbox/test-fixtures';
import { diffTaskView } from '../task-root/task-view-diff';
import { agentCommits, agentWrites, makeLandingFixture, operatorIdentity, prepareRun, type LandingFixture } from './landing-test-fixtures';
import { commitRunChanges, offerTargetToRun } from './run-store-commit';

let fixture: LandingFixture;

beforeEach(async () => {
  fixture = await makeLandingFixture('oc-land-commit-');
});

afterEach(() => fixture.cleanup());

const now = new Date('2030-01-02T03:04:05Z');

describe('commitRunChanges', () => {
  it("commits the agent's uncommitted work on the run's branch, as the operator, and leaves the view clean", async () => {
    const taskRoot = await prepareRun(fixture, 'run_c1');
    const agentCommit = await agentCommits(taskRoot, { 'agent.txt': 'committed by the agent\n' }, 'agent work');
    writeFileSync(path.join(taskRoot.view, '.gitignore'), 'build/\n');
    await agentWrites(taskRoot, { 'README.md': '# Project\n\nRewritten by the agent.\n', 'new.txt': 'brand new\n' });
    execFileSync('mkdir', ['-p', path.join(taskRoot.view, 'build')]);
    await agentWrites(taskRoot, { 'build/output.bin': 'ignored\n' });
    unlinkSync(path.join(taskRoot.view, 'notes.txt'));
    // The operator reviewed these changes: the commit holds exactly them.
    const reviewed = (await diffTaskView(taskRoot, fixture.tools)).files.map((file) => file.path).filter((file) => file !== 'agent.txt');

    const result = await commitRunChanges(taskRoot, fixture.tools, { message: 'Finish the task\n\nThe agent’s summary.', author: operatorIdentity, now });

    expect(result.files.sort()).toEqual(['.gitignore', 'README.md', 'new.txt', 'notes.txt']);
    expect(result.files.sort()).toEqual(reviewed.sort());
    expect(await readRunBranchTip(taskRoot)).toBe(result.commit);
    expect(git(taskRoot.view, 'rev-parse', 'HEAD')).toBe(result.commit);
    expect(git(taskRoot.view, 'rev-parse', 'HEAD~1')).toBe(agentCommit);
    expect(git(taskRoot.view, 'log', '-1', '--format=%an <%ae> %aI | %cn <%ce> | %B')).toBe(
      'Ada Operator <ada@example.invalid> 2030-01-02T03:04:05+00:00 | Ada Operator <ada@example.invalid> | Finish the task\n\nThe agent’s summary.',
    );
    expect(git(taskRoot.view, 'show', 'HEAD:README.md')).toContain('Rewritten by the agent.');
    expect(() => git(taskRoot.view, 'cat-file', '-e', 'HEAD:notes.txt')).toThrow();
    expect(() => git(taskRoot.view, 'cat-file', '-e', 'HEAD:build/output.bin')).toThrow();
    // Clean: nothing staged, nothing modified, nothing untracked but the ignored build output.
    expect(git(taskRoot.view, 'status', '--porcelain')).toBe('');
    // The project gained nothing: the commit lives in the run's store until it lands.
    expect(() => git(fixture.project, 'cat-file', '-e', result.commit)).toThrow();
  });

  it('refuses when there is nothing to commit, and changes nothing', async () => {
    const taskRoot = await prepareRun(fixture, 'run_c2');
    const before = await readRunBranchTip(taskRoot);
    await expect(commitRunChanges(taskRoot, fixture.tools, { message: 'nothing', author: operatorIdentity, now })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/nothing to commit/),
    });
    expect(await readRunBranchTip(taskRoot)).toBe(before);
  });

  it('commits from the branch tip when the agent left no index it could read', async () => {
    const taskRoot = await prepareRun(fixture, 'run_c3');
    await agentWrites(taskRoot, { 'src/app.txt': 'changed\n' });
    const index = path.join(taskRoot.repository!.adminDir, 'index');
    rmSync(index);
    execFileSync('mkfifo', [index]);
    const result = await commitRunChanges(taskRoot, fixture.tools, { message: 'm', author: operatorIdentity, now });
    expect(result.files).toEqual(['src/app.txt']);
    expect(git(taskRoot.view, 'status', '--porcelain')).toBe('');
  });

  it("refuses a branch ref the agent replaced by a link or a FIFO, cleanly and without following it", async () => {
    const taskRoot = await prepareRun(fixture, 'run_c4');
    await agentWrites(taskRoot, { 'new.txt': 'x\n' });
    const ref = path.join(taskRoot.repository!.gitDir, 'refs', 'heads', 'operator-console', 'run_c4');
    const outside = path.join(fixture.base, 'outside-ref');
    writeFileSync(outside, `${git(fixture.project, 'rev-parse', 'HEAD')}\n`);
    unlinkSync(ref);
    symlinkSync(outside, ref);
    await expect(commitRunChanges(taskRoot, fixture.tools, { message: 'm', author: operatorIdentity, now })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/symbolic link/),
    });
    expect(readFileSync(outside, 'utf8')).toBe(`${git(fixture.project, 'rev-parse', 'HEAD')}\n`);

    // A linked folder on the way to the ref is not followed either.
    const folder = path.dirname(ref);
    const elsewhere = path.join(fixture.base, 'elsewhere');
    execFileSync('cp', ['-a', folder, elsewhere]);
    rmSync(folder, { recursive: true });
    symlinkSync(elsewhere, folder);
    await expect(commitRunChanges(taskRoot, fixture.tools, { message: 'm', author: operatorIdentity, now })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/not a plain ref file/),
    });
    unlinkSync(folder);
    execFileSync('mkdir', [folder]);

    execFileSync('mkfifo', [ref]);
    const started = Date.now();
    await expect(commitRunChanges(taskRoot, fixture.tools, { message: 'm', author: operatorIdentity, now })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/FIFO/),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('offerTargetToRun', () => {
  it("puts a ref at the landing target in the run's store, which the agent's git can read", async () => {
    const taskRoot = await prepareRun(fixture, 'run_c5');
    writeFileSync(path.join(fixture.project, 'later.txt'), 'later\n');
    git(fixture.project, 'add', '-A');
    git(fixture.project, 'commit', '--quiet', '-m', 'later');
    const target = git(fixture.project, 'rev-parse', 'HEAD');
    await offerTargetToRun(taskRoot, target, null);
    expect(git(taskRoot.view, 'rev-parse', 'refs/operator-console/land-target')).toBe(target);
    expect(git(taskRoot.view, 'log', '-1', '--format=%s', 'refs/operator-console/land-target')).toBe('later');
    expect(existsSync(path.join(taskRoot.repository!.gitDir, 'refs', 'operator-console', 'land-target'))).toBe(true);
  });
});
