import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../shared/entities';
import { openRunTestBed, present, type RunTestBed } from '../testing/run-test-kit';

const beds: RunTestBed[] = [];
async function bed() {
  const opened = await openRunTestBed();
  beds.push(opened);
  return opened;
}
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);
const dayMs = 24 * 60 * 60 * 1000;

/** What an agent does in its view: a commit of its own, then a change it leaves uncommitted. */
const commitsThenEdits = [
  'echo "the plan" > plan.md',
  'git add plan.md',
  'git -c user.name=Agent -c user.email=agent@example.invalid commit -q -m "Draft the plan"',
  'echo "more" >> README.md',
].join(' && ');
/** An agent that commits all it did. */
const commitsAll = 'echo "done" > landed.txt && git add landed.txt && git -c user.name=Agent -c user.email=agent@example.invalid commit -q -m "Land this"';

async function finishedRun(b: RunTestBed, args: string[], title = 'Write the plan'): Promise<RunDetail> {
  const agent = await b.createAgent(args);
  const task = await b.createTask(title);
  const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
  const run = await b.waitForRun(started.id, ended);
  expect(run.status).toBe('succeeded');
  return run;
}

function tipOf(run: RunDetail): string {
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: present(run.cwd, 'cwd'), encoding: 'utf8' }).trim();
}

function land(b: RunTestBed, run: RunDetail, at = Date.now()): void {
  b.core.ledger.runs.recordLanded(run.id, { commit: tipOf(run), runTip: tipOf(run), target: 'main', strategy: 'fast-forward', at, by: 'Operator <op@example.invalid>' });
}

describe('Clean up', () => {
  it('lists what each finished run holds and removes nothing; then removes landed and discarded runs freely and keeps unlanded work until it is confirmed', async () => {
    const b = await bed();
    const unlanded = await finishedRun(b, ['--shell', commitsThenEdits], 'Unlanded work');
    const landed = await finishedRun(b, ['--shell', commitsAll], 'Landed work');
    const discarded = await finishedRun(b, ['--write-file', 'thrown-away.txt'], 'Discarded work');
    land(b, landed);
    b.core.ledger.runs.recordDiscarded(discarded.id, Date.now());

    const { candidates } = await b.call('planCleanup');
    const byId = new Map(candidates.map((candidate) => [candidate.runId, candidate]));
    expect(byId.get(unlanded.id)).toMatchObject({
      taskTitle: 'Unlanded work',
      status: 'succeeded',
      landingState: 'not_landed',
      holdings: { uncommittedFiles: ['README.md'], unlandedCommits: [{ sha: tipOf(unlanded), subject: 'Draft the plan' }] },
      holdingsError: null,
      freelyRemovable: false,
      resumable: false,
    });
    expect(byId.get(landed.id)).toMatchObject({ landingState: 'landed', holdings: { uncommittedFiles: [], unlandedCommits: [] }, freelyRemovable: true });
    expect(byId.get(discarded.id)).toMatchObject({ landingState: 'discarded', holdings: { uncommittedFiles: ['thrown-away.txt'] }, freelyRemovable: true });
    // The dry run removed nothing.
    for (const run of [unlanded, landed, discarded]) expect(existsSync(present(run.taskRoot, 'task root'))).toBe(true);

    const first = await b.call('cleanUpRuns', { runIds: [unlanded.id, landed.id, discarded.id] });
    expect(first.removed.sort()).toEqual([landed.id, discarded.id].sort());
    expect(first.kept).toEqual([
      { runId: unlanded.id, reason: 'Its work is not landed (1 uncommitted file, 1 commit not landed): confirm it by name to remove it.' },
    ]);
    expect(first.freedBytes).toBeGreaterThan(0);
    expect(existsSync(present(unlanded.taskRoot, 'task root'))).toBe(true);
    expect(existsSync(present(landed.taskRoot, 'task root'))).toBe(false);
    expect(existsSync(present(discarded.taskRoot, 'task root'))).toBe(false);

    const confirmed = await b.call('cleanUpRuns', { runIds: [unlanded.id], confirmedRunIds: [unlanded.id] });
    expect(confirmed).toMatchObject({ removed: [unlanded.id], kept: [] });
    expect(existsSync(present(unlanded.taskRoot, 'task root'))).toBe(false);
    expect((await b.call('planCleanup')).candidates).toEqual([]);
  });

  it("keeps a run's history, output and a summary of its changes after its files are gone, and does not resume it", async () => {
    const b = await bed();
    const run = await finishedRun(b, ['--json-events', '--shell', commitsThenEdits]);
    const before = await b.call('getRunDiff', { runId: run.id });
    expect(before.files.map((file) => file.path).sort()).toEqual(['README.md', 'plan.md']);
    const outputBytes = run.outputBytes;
    expect(outputBytes).toBeGreaterThan(0);

    await b.call('cleanUpRuns', { runIds: [run.id], confirmedRunIds: [run.id] });
    const after = await b.call('getRun', { runId: run.id });
    const removedAt = present(after.landing.filesRemovedAt, 'filesRemovedAt');
    expect(after).toMatchObject({ status: 'succeeded', outputBytes, archived: false, canResume: false, landing: { state: 'not_landed', diskBytes: null } });
    expect((await b.call('listRunEvents', { runId: run.id })).events.length).toBeGreaterThan(0);
    // Changes answer the summary kept when the files went, and say when.
    expect(await b.call('getRunDiff', { runId: run.id })).toEqual({ ...before, filesRemovedAt: removedAt });
    await expect(b.call('openRunFolder', { runId: run.id })).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('files were removed') });
    await expect(b.call('resumeRun', { runId: run.id })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('files were removed') });
    // Asked again, it is kept with the reason: nothing is left to remove.
    expect((await b.call('cleanUpRuns', { runIds: [run.id], confirmedRunIds: [run.id] })).kept).toEqual([
      { runId: run.id, reason: `Its files were already removed on ${removedAt}.` },
    ]);
  });

  it('never touches a run that is running, even confirmed, and keeps a resumable run until it is confirmed', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--sleep-ms', '60000']);
    const task = await b.createTask();
    const live = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const running = await b.waitForRun(live.id, (run) => run.status === 'running');
    const kept = await b.call('cleanUpRuns', { runIds: [live.id], confirmedRunIds: [live.id] });
    expect(kept).toEqual({ removed: [], kept: [{ runId: live.id, reason: expect.stringContaining('queued or running') }], freedBytes: 0, gitStores: [] });
    expect(existsSync(present(running.taskRoot, 'task root'))).toBe(true);
    await b.call('stopRun', { runId: live.id });
    await b.waitForRun(live.id, ended);

    // A Codex-like run has a native session: it could be resumed, landed or not.
    const codex = await b.call('createAgent', { name: 'codex-like', providerId: 'fixture-codex', model: 'model-a', profileId: 'default' });
    const started = await b.call('startRun', { taskId: task.id, agentId: codex.id });
    const resumable = await b.waitForRun(started.id, ended);
    expect(resumable.canResume).toBe(true);
    land(b, resumable);
    const candidate = (await b.call('planCleanup')).candidates.find((entry) => entry.runId === resumable.id);
    expect(candidate).toMatchObject({ freelyRemovable: true, resumable: true });
    expect((await b.call('cleanUpRuns', { runIds: [resumable.id] })).kept).toEqual([
      { runId: resumable.id, reason: 'It could still be resumed: confirm it by name to remove its files.' },
    ]);
    expect(existsSync(present(resumable.taskRoot, 'task root'))).toBe(true);
    expect((await b.call('cleanUpRuns', { runIds: [resumable.id], confirmedRunIds: [resumable.id] })).removed).toEqual([resumable.id]);
    expect((await b.call('getRun', { runId: resumable.id })).canResume).toBe(false);
    await expect(b.call('resumeRun', { runId: resumable.id })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('files were removed') });
  });
});

describe('Clean up of a run whose holdings cannot be read', () => {
  it('says so instead of showing it empty, keeps it unless confirmed, and removes it when confirmed', async () => {
    const b = await bed();
    const run = await finishedRun(b, ['--shell', commitsThenEdits]);
    const root = present(run.taskRoot, 'task root');
    writeFileSync(path.join(root, 'task-root.json'), 'not a record');
    const candidate = (await b.call('planCleanup')).candidates.find((entry) => entry.runId === run.id);
    expect(candidate).toMatchObject({ holdingsError: expect.stringContaining('lost the record'), freelyRemovable: false });
    const first = await b.call('cleanUpRuns', { runIds: [run.id] });
    expect(first.kept).toEqual([{ runId: run.id, reason: expect.stringContaining('what it holds could not be read') }]);
    expect(existsSync(root)).toBe(true);
    expect((await b.call('cleanUpRuns', { runIds: [run.id], confirmedRunIds: [run.id] })).removed).toEqual([run.id]);
    expect(existsSync(root)).toBe(false);
  });
});

describe('the clean-up policy', () => {
  it('removes only the task roots of runs that landed or were discarded more than N days ago', async () => {
    const b = await bed();
    expect(await b.call('getCleanupPolicy')).toEqual({ removeSettledAfterDays: null });
    const oldLanded = await finishedRun(b, ['--write-file', 'a.txt'], 'Landed long ago');
    const newLanded = await finishedRun(b, ['--write-file', 'b.txt'], 'Landed yesterday');
    const oldDiscarded = await finishedRun(b, ['--write-file', 'c.txt'], 'Discarded long ago');
    const notLanded = await finishedRun(b, ['--write-file', 'd.txt'], 'Never landed');
    land(b, oldLanded, Date.now() - 8 * dayMs);
    land(b, newLanded, Date.now() - dayMs);
    b.core.ledger.runs.recordDiscarded(oldDiscarded.id, Date.now() - 8 * dayMs);
    // Without a policy, nothing goes.
    expect(await b.core.cleanup.applyPolicy()).toEqual([]);

    expect(await b.call('setCleanupPolicy', { removeSettledAfterDays: 7 })).toEqual({ removeSettledAfterDays: 7 });
    expect(await b.call('getCleanupPolicy')).toEqual({ removeSettledAfterDays: 7 });
    // setCleanupPolicy applied it at once; this waits for that application (or makes another).
    await b.core.cleanup.applyPolicy();
    expect(existsSync(present(oldLanded.taskRoot, 'task root'))).toBe(false);
    expect(existsSync(present(oldDiscarded.taskRoot, 'task root'))).toBe(false);
    expect(existsSync(present(newLanded.taskRoot, 'task root'))).toBe(true);
    expect(existsSync(present(notLanded.taskRoot, 'task root'))).toBe(true);
    // What went keeps its summary.
    expect((await b.call('getRunDiff', { runId: oldLanded.id })).files).toEqual([{ path: 'a.txt', status: 'added', additions: 1, deletions: 0 }]);
    await expect(b.call('setCleanupPolicy', { removeSettledAfterDays: 0 })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('never removes a run whose work was left on its host without the operator’s word: not by the policy, not unconfirmed, not by Archive', async () => {
    const b = await bed();
    const run = await finishedRun(b, ['--write-file', 'a.txt'], 'Landed long ago, its work on a host');
    land(b, run, Date.now() - 8 * dayMs);
    // What a host run whose fetch failed has in the ledger (bring-work-back.test.ts makes it for real).
    b.core.ledger.runs.setHostWorkUnfetched(run.id, Date.now());
    await b.call('setCleanupPolicy', { removeSettledAfterDays: 7 });
    expect(await b.core.cleanup.applyPolicy()).toEqual([]);
    const [candidate] = (await b.call('planCleanup')).candidates;
    expect(candidate).toMatchObject({ runId: run.id, freelyRemovable: false, workLeftOnHost: 'its SSH host' });
    const kept = await b.call('cleanUpRuns', { runIds: [run.id] });
    expect(kept.kept).toEqual([{ runId: run.id, reason: expect.stringContaining('was never brought back') }]);
    await expect(b.call('archiveRun', { runId: run.id })).rejects.toMatchObject({ code: 'conflict', reason: 'host_work_not_fetched' });
    expect(existsSync(present(run.taskRoot, 'task root'))).toBe(true);
    // Named: it goes, and the run no longer stands for work left anywhere.
    expect((await b.call('cleanUpRuns', { runIds: [run.id], confirmedRunIds: [run.id] })).removed).toEqual([run.id]);
    expect((await b.call('getRun', { runId: run.id })).hostWorkLeftSince).toBeNull();
  });
});

describe('disk use', () => {
  it('measures a run when it ends, and sums the task roots that are still there, the largest first', async () => {
    const b = await bed();
    const small = await finishedRun(b, ['--write-file', 'small.txt'], 'Small');
    const large = await finishedRun(b, ['--shell', 'head -c 3000000 /dev/urandom > large.bin'], 'Large');
    // Measured in the background once each run ended.
    const deadline = Date.now() + 15_000;
    while ([small, large].some((run) => b.core.ledger.runs.row(run.id)!.disk_bytes === null)) {
      if (Date.now() > deadline) throw new Error('the runs were not measured when they ended');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const largeBytes = present((await b.call('getRun', { runId: large.id })).landing.diskBytes, 'diskBytes');
    const smallBytes = present((await b.call('getRun', { runId: small.id })).landing.diskBytes, 'diskBytes');
    expect(largeBytes - smallBytes).toBeGreaterThanOrEqual(2_900_000);

    const usage = await b.call('getDiskUsage', { refresh: true });
    expect(usage).toMatchObject({ runsWithFiles: 2, measuredAt: expect.any(String) });
    expect(usage.largest.map((entry) => [entry.runId, entry.taskTitle])).toEqual([
      [large.id, 'Large'],
      [small.id, 'Small'],
    ]);
    expect(usage.totalBytes).toBe(usage.largest[0]!.bytes + usage.largest[1]!.bytes);
    expect(usage.largest[0]!.bytes).toBeGreaterThanOrEqual(3_000_000);

    await b.call('cleanUpRuns', { runIds: [large.id], confirmedRunIds: [large.id] });
    const after = await b.call('getDiskUsage');
    expect(after).toMatchObject({ runsWithFiles: 1, totalBytes: usage.largest[1]!.bytes, largest: [{ runId: small.id }] });
  });
});
