import { execFileSync } from 'node:child_process';
import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitInit, openRunTestBed, type RunTestBed } from '../testing/run-test-kit';
import { makeTempDir } from '../testing/temp-dir';

/**
 * A run whose project git refuses fails with git's case and its remedy (code git_failed), through the
 * real run path: real repositories in temp folders, the real core, the run's page as the operator
 * reads it. Never "internal".
 */

const beds: RunTestBed[] = [];
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

async function runIn(projectDir: string, prepare?: (dir: string) => void) {
  const b = await openRunTestBed();
  beds.push(b);
  const project = await b.call('addProject', { path: projectDir });
  expect(project.isGitRepo).toBe(true);
  prepare?.(projectDir);
  const agent = await b.createAgent(['--lines', '1']);
  const task = await b.call('createTask', { projectId: project.id, title: 'Write the plan', prompt: 'Write notes/plan.md' });
  const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
  const run = await b.waitForRun(started.id, ended);
  return { b, run };
}

function projectDir(): string {
  const dir = makeTempDir('oc-git-project-');
  cleanups.push(dir.remove);
  return realpathSync(dir.path);
}

describe('a run in a project git refuses', () => {
  it('with no commit yet: fails with no_commits and says to make a first commit', async () => {
    const dir = projectDir();
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
    writeFileSync(path.join(dir, 'README.md'), '# not committed yet\n');
    const { b, run } = await runIn(dir);

    expect(run.status).toBe('failed');
    expect(run.failure).toMatchObject({
      code: 'git_failed',
      reason: 'no_commits',
      message: `The project ${dir} has no commit yet, and a run starts its worktree from one. Make a first commit there (for example \`git add -A && git commit -m "First commit"\`), then run the task again.`,
    });
    // An owner action, logged as such: no stack, no "failed unexpectedly".
    expect(b.log.lines.find((line) => line.message === 'run could not launch')).toMatchObject({ code: 'git_failed', reason: 'no_commits' });
    expect(b.log.lines.some((line) => line.message === 'run failed to launch')).toBe(false);
  });

  it('that is no repository any more: fails with not_a_repository', async () => {
    const dir = projectDir();
    gitInit(dir);
    const { run } = await runIn(dir, (folder) => {
      // The .git is gone after the project was added; a .git file pointing nowhere keeps it looking like one.
      rmSync(path.join(folder, '.git'), { recursive: true, force: true });
      writeFileSync(path.join(folder, '.git'), 'gitdir: /nonexistent/worktrees/gone\n');
    });
    expect(run.status).toBe('failed');
    expect(run.failure).toMatchObject({ code: 'git_failed', reason: 'not_a_repository' });
    expect(run.failure?.message).toContain(`${dir} is not a git repository any more`);
  });

  it.runIf(process.getuid?.() === 0)('owned by another user: fails with dubious_ownership and names safe.directory', async () => {
    const dir = projectDir();
    gitInit(dir);
    const { run } = await runIn(dir, (folder) => execFileSync('chown', ['-R', '65534:65534', folder]));
    expect(run.status).toBe('failed');
    expect(run.failure).toMatchObject({ code: 'git_failed', reason: 'dubious_ownership' });
    expect(run.failure?.message).toContain(`git config --global --add safe.directory ${dir}`);
  });

  it('with a damaged object: fails with repository_corrupt, not "no commit yet"', async () => {
    const dir = projectDir();
    gitInit(dir);
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir }).toString().trim();
    const { run } = await runIn(dir, (folder) => {
      const file = path.join(folder, '.git', 'objects', commit.slice(0, 2), commit.slice(2));
      rmSync(file);
      writeFileSync(file, 'not a zlib stream');
    });
    expect(run.status).toBe('failed');
    expect(run.failure).toMatchObject({ code: 'git_failed', reason: 'repository_corrupt' });
    expect(run.failure?.message).toContain('git fsck --full');
  });
});
