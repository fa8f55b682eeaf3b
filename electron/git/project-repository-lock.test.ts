import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../testing/temp-dir';
import { withProjectRepository } from './project-repository-lock';
import { prepareTaskRoot } from '../task-root/task-root';
import { projectKeepRefPrefix } from '../task-root/task-root-layout';
import { removeTaskRoot } from '../task-root/task-root-removal';
import { fixtureTools, git, makeOperatorFixture } from '../sandbox/test-fixtures';

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('git that changes a project, one at a time per project', () => {
  it('runs one project’s work one at a time (by any name of its folder), another project’s alongside, and goes on after a failure', async () => {
    const folder = makeTempDir('oc-project-lock-');
    try {
      const project = path.join(folder.path, 'project');
      const other = path.join(folder.path, 'other');
      const alias = path.join(folder.path, 'alias');
      await import('node:fs/promises').then((fs) => Promise.all([fs.mkdir(project), fs.mkdir(other)]));
      symlinkSync(project, alias);
      const log: string[] = [];
      let inProject = 0;
      let most = 0;
      const work = (name: string, ms: number, fail = false) => async () => {
        inProject += 1;
        most = Math.max(most, inProject);
        log.push(`${name} starts`);
        await pause(ms);
        log.push(`${name} ends`);
        inProject -= 1;
        if (fail) throw new Error(`${name} failed`);
        return name;
      };
      const otherDone: string[] = [];
      const results = await Promise.allSettled([
        withProjectRepository(project, work('a', 40)),
        // The same folder by another name waits its turn too.
        withProjectRepository(alias, work('b', 10, true)),
        withProjectRepository(project, work('c', 5)),
        withProjectRepository(other, async () => {
          await pause(5);
          otherDone.push(`other done while ${log.at(-1)}`);
        }),
      ]);
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect(most).toBe(1);
      expect(log).toHaveLength(6);
      for (let at = 0; at < log.length; at += 2) expect(log[at + 1]).toBe(log[at]!.replace('starts', 'ends'));
      // The other project did not wait for the 55 ms of this one's work.
      expect(otherDone).toHaveLength(1);
      expect(otherDone[0]).toMatch(/starts$/);
    } finally {
      folder.remove();
    }
  });
});

/** Rounds of 16; the unit suite runs 8 (128 runs), `npm run soak` 32 (512). */
const rounds = Number(process.env.OC_MANY_RUNS_ROUNDS ?? 8);

describe('many runs on one project', () => {
  it(`prepares 16 task roots at once while the previous 16 are removed, ${rounds} rounds, without a failure or a stray ref`, async () => {
    const fixture = makeOperatorFixture('oc-many-runs-');
    try {
      const tools = await fixtureTools(fixture);
      const project = { path: fixture.project, isGitRepo: true };
      // The operator's git may refuse to wait for a lock at all; the console must not race itself then.
      git(fixture.project, 'config', 'core.packedRefsTimeout', '0');
      const failures: string[] = [];
      let previous: string[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const runIds = Array.from({ length: 16 }, (_, i) => `run_r${round}_${i}`);
        const results = await Promise.allSettled([
          ...runIds.map((runId) => prepareTaskRoot({ dataDir: fixture.dataDir, runId, project })),
          ...previous.map((runId) => removeTaskRoot({ dataDir: fixture.dataDir, runId, project }, tools)),
        ]);
        for (const result of results) if (result.status === 'rejected') failures.push(String(result.reason));
        previous = runIds;
        // As the operator's own git does now and then (gc packs refs): removing a packed ref rewrites packed-refs.
        git(fixture.project, 'pack-refs', '--all');
      }
      expect(failures).toEqual([]);
      // Each removed run's keep-ref went with it; the last round's are there, and nothing else.
      const keepRefs = git(fixture.project, 'for-each-ref', '--format=%(refname)', projectKeepRefPrefix).split('\n').sort();
      expect(keepRefs).toEqual(previous.map((runId) => `${projectKeepRefPrefix}${runId}`).sort());
      expect(git(fixture.project, 'fsck', '--no-progress', '--no-dangling')).toBe('');
    } finally {
      fixture.cleanup();
    }
  }, 300_000);
});
