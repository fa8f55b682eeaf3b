import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asGitFailure } from './git-errors';
import { GitToolError } from './hardened-git';
import { prepareTaskRoot } from '../task-root/task-root';
import type { RunFileTools } from '../task-root/task-root-layout';
import { openViewQuestion } from '../task-root/task-view-diff';
import { fixtureTools, makeOperatorFixture, type OperatorFixture } from '../sandbox/test-fixtures';

/**
 * The run can still write while the console reads its changes (the Changes view asks while it runs),
 * so a FIFO may appear after the console looked: git then waits until its time limit, once, and the
 * answer names what appeared instead of blaming the repository's size. Real bubblewrap, real git,
 * real FIFOs.
 */

let fixture: OperatorFixture;
let tools: RunFileTools;

beforeEach(async () => {
  fixture = makeOperatorFixture('oc-unreadable-');
  tools = await fixtureTools(fixture);
});

afterEach(() => fixture.cleanup());

const gitRun = (runId: string) => prepareTaskRoot({ dataDir: fixture.dataDir, runId, project: { path: fixture.project, isGitRepo: true } });

describe("git on a run's files stopped at its time limit", () => {
  it('names the FIFO the run made while git ran, after one time limit, never a second', async () => {
    const taskRoot = await gitRun('run_r1');
    writeFileSync(path.join(taskRoot.view, 'README.md'), 'changed by the agent\n');
    const question = await openViewQuestion(taskRoot, tools);
    try {
      // After the console looked: a folder of new files, whose .gitignore git opens as it walks in.
      mkdirSync(path.join(taskRoot.view, 'later'));
      writeFileSync(path.join(taskRoot.view, 'later', 'file.txt'), 'new\n');
      execFileSync('mkfifo', [path.join(taskRoot.view, 'later', '.gitignore')]);

      const started = Date.now();
      const outcome = await question.git.run(['ls-files', '-z', '--others', '--exclude-standard'], { timeoutMs: 3_000 }).then(
        () => 'answered',
        (error: unknown) => error,
      );
      const elapsed = Date.now() - started;
      expect(outcome).toMatchObject({ code: 'git_failed', reason: 'unreadable_run_file' });
      expect((outcome as Error).message).toContain('later/.gitignore (a FIFO)');
      expect((outcome as Error).message).toMatch(/was stopped. Meanwhile the run made later\/.gitignore/);
      expect((outcome as Error).message).toMatch(/delete it .*then try again\.$/);
      // The time limit once, and a look through the folder: never the limit again.
      expect(elapsed).toBeGreaterThanOrEqual(3_000);
      expect(elapsed).toBeLessThan(6_000);
    } finally {
      await question.git.dispose();
    }
  }, 30_000);

  it('says so plainly when nothing there would make git wait, without blaming LFS', async () => {
    const taskRoot = await gitRun('run_r2');
    const question = await openViewQuestion(taskRoot, tools);
    let error: unknown;
    try {
      // A limit no git meets: stopped at once, and nothing in the folder to blame.
      error = await question.git.run(['ls-files', '-z', '--others', '--exclude-standard'], { timeoutMs: 1 }).catch((caught: unknown) => caught);
    } finally {
      await question.git.dispose();
    }
    expect(error).toBeInstanceOf(GitToolError);
    const failure = asGitFailure(error, { repository: taskRoot.view, doing: 'read the run’s changes', retry: 'refresh the changes' });
    expect(failure).toMatchObject({ code: 'git_failed', reason: 'timed_out' });
    expect((failure as Error).message).toContain('Nothing there that git would wait on (a FIFO, a socket) was found');
    expect((failure as Error).message).not.toMatch(/LFS|network/);
    expect((failure as Error).message).toMatch(/then refresh the changes\.$/);
  }, 30_000);
});
