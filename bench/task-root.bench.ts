/**
 * What a run's own repository costs at start, against the worktree inside the project's repository
 * that consoles made before it (issue 9). Both on a generated git project of `fileCount` files in
 * `folders` folders with a few commits of history; each iteration prepares one task root and removes
 * it again (outside the timed part).
 *
 *   npx vitest bench --run bench/task-root.bench.ts
 *
 * Disk use (du, in KiB) of one prepared task root of each kind is printed when the file is done: the
 * run's repository borrows the project's objects through alternates, so it adds the checkout and a
 * small repository (index, refs, config), not a copy of the history.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, bench, describe } from 'vitest';
import { prepareTaskRoot } from '../electron/task-root/task-root';

const fileCount = 4000;
const folders = 80;
const options = { iterations: 8, warmupIterations: 1, time: 0, warmupTime: 0 };

const base = mkdtempSync(path.join(os.tmpdir(), 'oc-bench-task-root-'));
const project = path.join(base, 'project');
const dataDir = path.join(base, 'data');
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.invalid', '-c', 'core.hooksPath=/dev/null', ...args], { cwd, encoding: 'utf8' });

mkdirSync(project, { recursive: true });
git(project, 'init', '--quiet', '-b', 'main');
for (let commit = 0; commit < 3; commit += 1) {
  for (let i = 0; i < fileCount; i += 1) {
    const folder = path.join(project, `module-${i % folders}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `file-${i}.ts`), `export const value${i} = ${commit};\n${'// filler line of source text\n'.repeat(20)}`);
  }
  git(project, 'add', '-A');
  git(project, 'commit', '--quiet', '-m', `commit ${commit}`);
}

let runs = 0;
const sizes = new Map<string, number>();

function duKiB(...paths: string[]): number {
  return Number(execFileSync('du', ['-sk', '--total', ...paths], { encoding: 'utf8' }).trim().split('\n').at(-1)!.split('\t')[0]);
}

describe(`prepare a task root (${fileCount} files)`, () => {
  bench(
    "the run's own repository (this console)",
    async () => {
      const runId = `run_bench_${(runs += 1)}`;
      const taskRoot = await prepareTaskRoot({ dataDir, runId, project: { path: project, isGitRepo: true } });
      if (!sizes.has('own repository')) sizes.set('own repository', duKiB(taskRoot.root));
    },
    options,
  );

  bench(
    "a worktree inside the project's repository (before)",
    () => {
      const runId = `run_bench_${(runs += 1)}`;
      const view = path.join(dataDir, 'tasks', runId, 'view');
      mkdirSync(path.dirname(view), { recursive: true });
      git(project, 'worktree', 'add', '--quiet', '-b', `operator-console/${runId}`, view, 'HEAD');
      if (!sizes.has('worktree')) sizes.set('worktree', duKiB(view, path.join(project, '.git', 'worktrees', path.basename(view))));
    },
    options,
  );
});

afterAll(() => {
  const projectKiB = duKiB(path.join(project, '.git'));
  process.stdout.write(`\nproject history (.git): ${projectKiB} KiB\n`);
  for (const [kind, kib] of sizes) process.stdout.write(`one task root, ${kind}: ${kib} KiB\n`);
  rmSync(base, { recursive: true, force: true });
});
