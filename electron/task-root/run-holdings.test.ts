import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRunHoldings } from './run-holdings';
import { prepareTaskRoot } from './task-root';
import type { RunFileTools } from './task-root-layout';
import { fixtureTools, git, makeOperatorFixture, type OperatorFixture } from '../sandbox/test-fixtures';

let fixture: OperatorFixture;
let tools: RunFileTools;

beforeEach(async () => {
  fixture = makeOperatorFixture('oc-holdings-');
  tools = await fixtureTools(fixture);
});

afterEach(() => fixture.cleanup());

const gitRun = (runId: string) => prepareTaskRoot({ dataDir: fixture.dataDir, runId, project: { path: fixture.project, isGitRepo: true } });

function commit(view: string, file: string, content: string, subject: string): string {
  writeFileSync(path.join(view, file), content);
  git(view, 'add', file);
  git(view, 'commit', '--quiet', '-m', subject);
  return git(view, 'rev-parse', 'HEAD');
}

describe('readRunHoldings', () => {
  it('a run that changed nothing holds nothing', async () => {
    const taskRoot = await gitRun('run_h1');
    expect(await readRunHoldings(taskRoot, tools, { landedRunTip: null })).toEqual({
      tip: taskRoot.baseRevision,
      uncommittedFiles: [],
      unlandedCommits: [],
      unlandedCommitCount: 0,
      descendsFromBase: true,
    });
  });

  it("names the files the agent left uncommitted (untracked ones too, ignored ones not) and its commits not landed, newest first", async () => {
    const taskRoot = await gitRun('run_h2');
    const { view } = taskRoot;
    const first = commit(view, 'first.txt', 'one\n', 'Add the first file');
    const second = commit(view, 'second.txt', 'two\n', 'Add the second file');
    writeFileSync(path.join(view, 'README.md'), '# Changed, not committed\n');
    unlinkSync(path.join(view, 'notes.txt'));
    mkdirSync(path.join(view, 'drafts'));
    writeFileSync(path.join(view, 'drafts', 'new.txt'), 'never added\n');
    writeFileSync(path.join(view, '.gitignore'), 'build.log\n');
    writeFileSync(path.join(view, 'build.log'), 'ignored\n');
    const status = git(view, 'status', '--porcelain');

    const holdings = await readRunHoldings(taskRoot, tools, { landedRunTip: null });
    expect(holdings).toEqual({
      tip: second,
      uncommittedFiles: ['.gitignore', 'README.md', 'drafts/new.txt', 'notes.txt'],
      unlandedCommits: [
        { sha: second, subject: 'Add the second file' },
        { sha: first, subject: 'Add the first file' },
      ],
      unlandedCommitCount: 2,
      descendsFromBase: true,
    });
    // A question, nothing more: the agent's index and work tree are as they were.
    expect(git(view, 'status', '--porcelain')).toBe(status);

    // Once the first commit landed, only the later one is not landed; a cut list still says how many.
    expect((await readRunHoldings(taskRoot, tools, { landedRunTip: first })).unlandedCommits).toEqual([{ sha: second, subject: 'Add the second file' }]);
    const cut = await readRunHoldings(taskRoot, tools, { landedRunTip: null, maxCommits: 1 });
    expect(cut.unlandedCommits).toEqual([{ sha: second, subject: 'Add the second file' }]);
    expect(cut.unlandedCommitCount).toBe(2);
    // A landed tip the store never had counts from the base.
    expect((await readRunHoldings(taskRoot, tools, { landedRunTip: 'f'.repeat(40) })).unlandedCommitCount).toBe(2);
  });

  it('a branch the agent moved off its base says so', async () => {
    const taskRoot = await gitRun('run_h3');
    const { view } = taskRoot;
    git(view, 'checkout', '--quiet', '--orphan', 'elsewhere');
    git(view, 'rm', '-r', '--quiet', '--cached', '.');
    const orphan = commit(view, 'only.txt', 'unrelated\n', 'Unrelated history');
    git(view, 'branch', '-f', 'operator-console/run_h3', orphan);
    git(view, 'checkout', '--quiet', 'operator-console/run_h3');
    const holdings = await readRunHoldings(taskRoot, tools, { landedRunTip: null });
    expect(holdings.tip).toBe(orphan);
    expect(holdings.descendsFromBase).toBe(false);
    expect(holdings.unlandedCommits).toEqual([{ sha: orphan, subject: 'Unrelated history' }]);
  });

  it("a plain folder's copy holds the files changed since it was copied, and no commits", async () => {
    const taskRoot = await prepareTaskRoot({ dataDir: fixture.dataDir, runId: 'run_h4', project: { path: fixture.otherProject, isGitRepo: false } });
    writeFileSync(path.join(taskRoot.view, 'secret.txt'), 'changed\n');
    writeFileSync(path.join(taskRoot.view, 'added.txt'), 'new\n');
    expect(await readRunHoldings(taskRoot, tools, { landedRunTip: null })).toEqual({
      tip: null,
      uncommittedFiles: ['added.txt', 'secret.txt'],
      unlandedCommits: [],
      unlandedCommitCount: 0,
      descendsFromBase: true,
    });
  });

  it("never follows a branch ref the agent turned into a link, and never waits on an index turned into a FIFO", async () => {
    const taskRoot = await gitRun('run_h5');
    const { view } = taskRoot;
    const gitDir = taskRoot.repository!.gitDir;
    commit(view, 'work.txt', 'agent work\n', 'Agent work');
    writeFileSync(path.join(view, 'README.md'), '# Uncommitted\n');
    // The ref becomes a link to a file holding another commit (the project's own HEAD, say).
    const elsewhere = path.join(fixture.base, 'planted-ref');
    writeFileSync(elsewhere, `${git(fixture.project, 'rev-parse', 'HEAD')}\n`);
    const ref = path.join(gitDir, 'refs', 'heads', 'operator-console', 'run_h5');
    rmSync(ref);
    symlinkSync(elsewhere, ref);
    const index = path.join(taskRoot.repository!.adminDir, 'index');
    rmSync(index);
    execFileSync('mkfifo', [index]);

    const started = Date.now();
    const holdings = await readRunHoldings(taskRoot, tools, { landedRunTip: null });
    expect(Date.now() - started).toBeLessThan(30_000);
    // No tip read through the link: nothing counts as committed, so the agent's committed file and its
    // uncommitted change are both files it holds (from the base, with the index gone).
    expect(holdings.tip).toBeNull();
    expect(holdings.unlandedCommits).toEqual([]);
    expect(holdings.descendsFromBase).toBe(false);
    expect(holdings.uncommittedFiles).toEqual(['README.md', 'work.txt']);
  }, 40_000);
});
