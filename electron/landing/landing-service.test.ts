import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { OperatorErrorShape } from '../../shared/errors';
import { makeTempDir } from '../testing/temp-dir';
import { openRunTestBed, present, type RunTestBed, type RunTestBedOptions } from '../testing/run-test-kit';

/**
 * Landing through the console's channels, as the renderer asks: real runs of the fixture agent (real
 * PTYs, real task roots and stores), real git in the project and a local bare repository standing in
 * for its remote.
 */

const beds: RunTestBed[] = [];
const cleanups: Array<() => void> = [];
async function bed(options: RunTestBedOptions = {}) {
  const opened = await openRunTestBed(options);
  beds.push(opened);
  // The operator's identity, as their project's git config holds it: the author of what they land.
  projectGit(opened, 'config', 'user.name', 'Olga Operator');
  projectGit(opened, 'config', 'user.email', 'olga@example.invalid');
  return opened;
}
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

function projectGit(b: RunTestBed, ...args: string[]): string {
  return execFileSync('git', args, { cwd: b.projectDir, encoding: 'utf8' }).trim();
}

/** An agent that writes `notes/plan.md` with its own words and leaves it uncommitted. */
function planWriter(b: RunTestBed, words: string) {
  return b.createAgent(['--json-events', '--write-file', 'notes/plan.md', '--file-content', `${words}\n`]);
}

async function finishedRun(b: RunTestBed, runId: string) {
  const run = await b.waitForRun(runId, ended, 20_000);
  expect(run.status).toBe('succeeded');
  return run;
}

/** A finished run of planWriter whose plan the operator committed on the run's branch (subject "Plan"). */
async function committedPlanRun(b: RunTestBed, words: string) {
  const agent = await planWriter(b, words);
  const task = await b.createTask();
  const run = await finishedRun(b, (await b.call('startRun', { taskId: task.id, agentId: agent.id })).id);
  await b.call('commitRunChanges', { runId: run.id, message: 'Plan' });
  return run;
}

/**
 * A finished run whose agent committed its own README.md on its branch while the operator committed
 * theirs on main: the two conflict.
 */
async function conflictingRun(b: RunTestBed) {
  const agent = await b.call('createAgent', { name: 'codex-like', providerId: 'fixture-codex', model: 'model-a', profileId: 'default' });
  const task = await b.createTask('Rewrite the README');
  const run = await finishedRun(b, (await b.call('startRun', { taskId: task.id, agentId: agent.id })).id);
  // What the agent did in its view (the fixture's default profile only talks): a commit on its branch.
  const view = present(run.cwd);
  writeFileSync(path.join(view, 'README.md'), '# project, as the agent wrote it\n');
  execFileSync('git', ['-c', 'user.name=Agent', '-c', 'user.email=agent@example.invalid', 'commit', '-qam', 'agent readme'], { cwd: view });
  // Meanwhile the operator changed the same lines on main.
  writeFileSync(path.join(b.projectDir, 'README.md'), '# project, as the operator wrote it\n');
  projectGit(b, 'commit', '-qam', 'operator readme');
  return run;
}

/** The error a request was refused with, as the transport answers it (its code, reason and message). */
async function refusal(promise: Promise<unknown>): Promise<OperatorErrorShape> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  return error as OperatorErrorShape;
}

describe('several agents on one task', () => {
  it('runs the task on three agents, compares them, lands one by squash and discards the others in the same step', async () => {
    const b = await bed();
    const agents = [await planWriter(b, 'plan by one'), await planWriter(b, 'plan by two'), await planWriter(b, 'plan by three')];
    const task = await b.createTask('Plan the refund flow');
    const { runs } = await b.call('startRuns', { taskId: task.id, agentIds: agents.map((agent) => agent.id) });
    expect(runs).toHaveLength(3);
    // Each run in its own task root and store.
    const details = await Promise.all(runs.map((run) => finishedRun(b, run.id)));
    expect(new Set(details.map((run) => run.taskRoot)).size).toBe(3);

    const compared = await b.call('compareTaskRuns', { taskId: task.id });
    expect(compared.taskTitle).toBe('Plan the refund flow');
    expect(compared.runs.map((run) => run.agentName).sort()).toEqual(agents.map((agent) => agent.name).sort());
    for (const run of compared.runs) {
      expect(run).toMatchObject({ status: 'succeeded', attempts: 1, filesChanged: 1, linesAdded: 1, linesRemoved: 0, changesNote: null });
      expect(run.durationMs).toBeGreaterThanOrEqual(0);
      expect(run.landing.state).toBe('not_landed');
    }

    const [chosen, ...others] = runs.map((run) => run.id) as [string, string, string];
    const plan = await b.call('getLandingPlan', { runId: chosen });
    expect(plan).toMatchObject({ available: true, baseBranch: 'main', target: 'main', fastForward: true, clean: true, conflicts: [] });
    expect(plan.holdings.uncommittedFiles).toEqual(['notes/plan.md']);
    expect(plan.commitMessage.split('\n')[0]).toBe('Plan the refund flow');
    // Landing what is not committed is refused: what lands is what the operator reviewed.
    const uncommitted = await refusal(b.call('landRun', { runId: chosen, target: 'main', strategy: 'squash' }));
    expect(uncommitted.reason).toBe('uncommitted_changes');

    const committed = await b.call('commitRunChanges', { runId: chosen, message: 'Plan the refund flow\n\nThe agent’s plan.' });
    expect(committed.files).toEqual(['notes/plan.md']);
    const afterCommit = await b.call('getLandingPlan', { runId: chosen });
    expect(afterCommit.holdings.uncommittedFiles).toEqual([]);
    expect(afterCommit.holdings.unlandedCommits.map((commit) => commit.subject)).toEqual(['Plan the refund flow']);
    expect(afterCommit.touchedFiles).toEqual(['notes/plan.md']);

    const mainBefore = projectGit(b, 'rev-parse', 'main');
    const landed = await b.call('landRun', { runId: chosen, target: 'main', strategy: 'squash', message: 'Refund plan (squashed)', discardRunIds: others });
    expect(landed.discarded.sort()).toEqual([...others].sort());
    // The project's branch moved by one squash commit, authored by the operator, and the checkout (clean) followed.
    expect(projectGit(b, 'rev-parse', 'main^')).toBe(mainBefore);
    expect(projectGit(b, 'rev-list', '--parents', '-n', '1', 'main').split(' ')).toHaveLength(2);
    expect(projectGit(b, 'log', '-1', '--format=%an <%ae>|%s', 'main')).toBe('Olga Operator <olga@example.invalid>|Refund plan (squashed)');
    expect(landed.workingCopyUpdated).toBe(true);
    expect(readFileSync(path.join(b.projectDir, 'notes', 'plan.md'), 'utf8')).toBe('plan by one\n');
    expect(projectGit(b, 'status', '--porcelain')).toBe('');
    expect(landed.landing).toMatchObject({
      state: 'landed',
      landed: { commit: projectGit(b, 'rev-parse', 'main'), target: 'main', strategy: 'squash', by: 'Olga Operator <olga@example.invalid>' },
    });

    // The others: discarded, their files gone, their history kept.
    for (const otherId of others) {
      const other = await b.call('getRun', { runId: otherId });
      expect(other.landing.state).toBe('discarded');
      expect(other.landing.filesRemovedAt).not.toBeNull();
      expect(existsSync(present(other.taskRoot))).toBe(false);
      expect(other.outputBytes).toBeGreaterThan(0);
    }
    const listed = await b.call('listRuns', { taskId: task.id, landingState: 'discarded' });
    expect(listed.runs.map((run) => run.id).sort()).toEqual([...others].sort());
    expect((await b.call('listRuns', { landingState: 'landed' })).runs.map((run) => run.id)).toEqual([chosen]);
    expect((await b.call('getLandingPlan', { runId: chosen })).blockedBy).toMatch(/already in main/);

    // Landed, so Clean up removes its files without a question; the project keeps no ref of it, and
    // what landed stays in main.
    const cleaned = await b.call('cleanUpRuns', { runIds: [chosen] });
    expect(cleaned.removed).toEqual([chosen]);
    expect(projectGit(b, 'for-each-ref', '--format=%(refname)', 'refs/operator-console/')).not.toContain(chosen);
    expect(projectGit(b, 'show', 'main:notes/plan.md')).toBe('plan by one');
  });
});

describe('landing', () => {
  it('finds a conflict in the dry run before anything changes, raises one notice naming the files, and asks the agent to resolve it', async () => {
    const b = await bed();
    const run = await conflictingRun(b);
    const mainBefore = projectGit(b, 'rev-parse', 'main');

    const plan = await b.call('getLandingPlan', { runId: run.id });
    expect(plan).toMatchObject({ available: true, clean: false, fastForward: false, conflicts: ['README.md'] });
    const refused = await refusal(b.call('landRun', { runId: run.id, target: 'main', strategy: 'merge' }));
    expect(refused.reason).toBe('landing_conflicts');
    expect(refused.message).toContain('README.md');
    // Nothing changed: the branch, the checkout.
    expect(projectGit(b, 'rev-parse', 'main')).toBe(mainBefore);
    expect(projectGit(b, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(b.projectDir, 'README.md'), 'utf8')).toBe('# project, as the operator wrote it\n');
    // Trying again joins the same notice.
    await refusal(b.call('landRun', { runId: run.id, target: 'main', strategy: 'squash' }));
    const notices = (await b.call('listNotices', { runId: run.id })).filter((notice) => notice.kind === 'run_conflict');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ title: 'Run conflicts with main', status: 'open', actionLabel: 'Ask the agent to resolve' });
    expect(notices[0]?.message).toContain('README.md');
    expect(notices[0]?.actionUrl).toBe(`#/runs/${run.id}/changes?target=main`);

    // Ask the agent to resolve: a follow-up turn on the same run, whose prompt names the conflict and
    // where the target is; the run's store has the target's commit under the ref the prompt names.
    await b.call('resolveRunConflicts', { runId: run.id, target: 'main' });
    const resumed = await b.waitForRun(run.id, (detail) => detail.attempts.length === 2 && ended(detail), 20_000);
    expect(resumed.status).toBe('succeeded');
    const output = new TextDecoder().decode(b.core.ledger.output.read(run.id, 0, b.core.ledger.output.totalBytes(run.id)).bytes);
    expect(output).toContain('both sides changed README.md');
    const storeRef = readFileSync(path.join(present(run.taskRoot), 'git', 'refs', 'operator-console', 'land-target'), 'utf8').trim();
    expect(storeRef).toBe(mainBefore);
  });

  it('refuses to land over the operator’s uncommitted changes in the files it touches, and updates a clean checkout', async () => {
    const b = await bed();
    const run = await committedPlanRun(b, 'the agent’s plan');
    // The operator is writing the same file in their checkout, and another one.
    mkdirSync(path.join(b.projectDir, 'notes'));
    writeFileSync(path.join(b.projectDir, 'notes', 'plan.md'), 'my own draft\n');
    writeFileSync(path.join(b.projectDir, 'scratch.txt'), 'unrelated\n');

    const plan = await b.call('getLandingPlan', { runId: run.id });
    expect(plan.checkout).toEqual({ path: b.projectDir, blockingFiles: ['notes/plan.md'] });
    const refused = await refusal(b.call('landRun', { runId: run.id, target: 'main', strategy: 'fast-forward' }));
    expect(refused.reason).toBe('checkout_dirty');
    expect(readFileSync(path.join(b.projectDir, 'notes', 'plan.md'), 'utf8')).toBe('my own draft\n');
    const notice = (await b.call('listNotices', { runId: run.id })).find((entry) => entry.kind === 'landing_blocked');
    expect(notice?.message).toContain('notes/plan.md');

    // The draft goes (the operator moved it away): landing fast-forwards main and its checkout, and
    // the unrelated uncommitted file is left as it was.
    execFileSync('rm', ['-r', path.join(b.projectDir, 'notes')]);
    const landed = await b.call('landRun', { runId: run.id, target: 'main', strategy: 'fast-forward' });
    expect(landed.workingCopyUpdated).toBe(true);
    expect(readFileSync(path.join(b.projectDir, 'notes', 'plan.md'), 'utf8')).toBe('the agent’s plan\n');
    expect(readFileSync(path.join(b.projectDir, 'scratch.txt'), 'utf8')).toBe('unrelated\n');
    expect(projectGit(b, 'log', '-1', '--format=%s', 'main')).toBe('Plan');
    // The notice that stood in the way resolved itself.
    expect((await b.call('listNotices', { runId: run.id })).find((entry) => entry.kind === 'landing_blocked')?.status).toBe('resolved');
  });

  it('moves only the branch when the target is not checked out', async () => {
    const b = await bed();
    projectGit(b, 'branch', 'release');
    const agent = await planWriter(b, 'release plan');
    const task = await b.createTask();
    const run = await finishedRun(b, (await b.call('startRun', { taskId: task.id, agentId: agent.id })).id);
    await b.call('commitRunChanges', { runId: run.id, message: 'Release plan' });
    const plan = await b.call('getLandingPlan', { runId: run.id, target: 'release' });
    expect(plan).toMatchObject({ target: 'release', checkout: null, clean: true });
    expect(plan.branches).toEqual(expect.arrayContaining(['main', 'release']));
    const landed = await b.call('landRun', { runId: run.id, target: 'release', strategy: 'merge', message: 'Merge the release plan' });
    expect(landed.workingCopyUpdated).toBe(false);
    expect(projectGit(b, 'log', '-1', '--format=%s', 'release')).toBe('Merge the release plan');
    expect(projectGit(b, 'rev-list', '--parents', '-n', '1', 'release').split(' ')).toHaveLength(3);
    expect(existsSync(path.join(b.projectDir, 'notes'))).toBe(false);
    expect(projectGit(b, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
  });
});

describe('what stands in the way of landing, as the dry run finds it', () => {
  /** The run's notices of a kind, newest first. */
  const noticesOf = async (b: RunTestBed, runId: string, kind: string) => (await b.call('listNotices', { runId })).filter((notice) => notice.kind === kind);

  it('tells of a conflict the dry run finds as one notice with its fix, resolves it when a later dry run finds it gone, says it again when it comes back, and not while a dismissed one stands', async () => {
    const b = await bed();
    const run = await conflictingRun(b);

    // Looking at the run's Changes (its dry run) is enough: no Land was tried.
    expect((await b.call('getLandingPlan', { runId: run.id })).conflicts).toEqual(['README.md']);
    await b.call('getLandingPlan', { runId: run.id });
    const [notice, ...more] = await noticesOf(b, run.id, 'run_conflict');
    expect(more).toEqual([]);
    expect(notice).toMatchObject({ title: 'Run conflicts with main', status: 'open', actionLabel: 'Ask the agent to resolve', actionUrl: `#/runs/${run.id}/changes?target=main` });
    expect(notice?.message).toContain('README.md');
    expect(notice?.message).toMatch(/Ask the agent to resolve the conflict/);
    expect((await b.call('listNotices', {})).map((open) => open.id)).toContain(notice?.id);

    // The operator takes their change back: the next dry run finds no conflict, and the notice resolves.
    projectGit(b, 'revert', '--no-edit', 'HEAD');
    expect((await b.call('getLandingPlan', { runId: run.id })).clean).toBe(true);
    const resolved = await noticesOf(b, run.id, 'run_conflict');
    expect(resolved).toEqual([expect.objectContaining({ id: notice?.id, status: 'resolved', resolution: 'The run no longer conflicts with main.' })]);

    // It comes back: news again. Dismissed, the dry runs after it do not raise it again.
    projectGit(b, 'revert', '--no-edit', 'HEAD');
    await b.call('getLandingPlan', { runId: run.id });
    const [again] = await noticesOf(b, run.id, 'run_conflict');
    expect(again).toMatchObject({ status: 'open' });
    expect(again?.id).not.toBe(notice?.id);
    await b.call('dismissNotice', { noticeId: again!.id });
    await b.call('getLandingPlan', { runId: run.id });
    expect((await noticesOf(b, run.id, 'run_conflict')).map((entry) => entry.status)).toEqual(['dismissed', 'resolved']);

    // Gone while dismissed, then back: news again.
    projectGit(b, 'revert', '--no-edit', 'HEAD');
    await b.call('getLandingPlan', { runId: run.id });
    projectGit(b, 'revert', '--no-edit', 'HEAD');
    await b.call('getLandingPlan', { runId: run.id });
    expect((await noticesOf(b, run.id, 'run_conflict')).map((entry) => entry.status)).toEqual(['open', 'dismissed', 'resolved']);
    // The run's work is thrown away: the conflict no longer matters, and the notice says why it went.
    await b.call('discardRun', { runId: run.id });
    expect((await noticesOf(b, run.id, 'run_conflict'))[0]).toMatchObject({ status: 'resolved', resolution: 'The run’s work was discarded.' });
  });

  it('tells that landing would overwrite the operator’s uncommitted changes when the dry run finds them, resolves it when they are out of the way, and when the run’s files go', async () => {
    const b = await bed();
    const run = await committedPlanRun(b, 'the agent’s plan');
    mkdirSync(path.join(b.projectDir, 'notes'));
    writeFileSync(path.join(b.projectDir, 'notes', 'plan.md'), 'my own draft\n');

    await b.call('getLandingPlan', { runId: run.id });
    await b.call('getLandingPlan', { runId: run.id });
    const [notice, ...more] = await noticesOf(b, run.id, 'landing_blocked');
    expect(more).toEqual([]);
    expect(notice).toMatchObject({ title: 'Landing in main would overwrite your uncommitted changes', status: 'open', actionUrl: `#/runs/${run.id}/changes?land=1&target=main` });
    expect(notice?.message).toContain(`checked out in ${b.projectDir}`);
    expect(notice?.message).toContain('notes/plan.md');
    expect(notice?.message).toMatch(/Commit or stash them there, then land\.$/);

    execFileSync('rm', ['-r', path.join(b.projectDir, 'notes')]);
    await b.call('getLandingPlan', { runId: run.id });
    expect(await noticesOf(b, run.id, 'landing_blocked')).toEqual([expect.objectContaining({ id: notice?.id, status: 'resolved' })]);

    // In the way again, then the run's files are cleaned up: it can no longer land, so the notice goes too.
    mkdirSync(path.join(b.projectDir, 'notes'));
    writeFileSync(path.join(b.projectDir, 'notes', 'plan.md'), 'my second draft\n');
    await b.call('getLandingPlan', { runId: run.id });
    expect((await noticesOf(b, run.id, 'landing_blocked'))[0]?.status).toBe('open');
    expect((await b.call('cleanUpRuns', { runIds: [run.id], confirmedRunIds: [run.id] })).removed).toEqual([run.id]);
    const [gone] = await noticesOf(b, run.id, 'landing_blocked');
    expect(gone).toMatchObject({ status: 'resolved', resolution: 'The run’s files were removed, so it can no longer land.' });
  });
});

describe('one change to a run at a time', () => {
  it('lands a run once when Land is asked twice at once: the second is refused while the first is under way, and a land after it is refused as landed', async () => {
    const b = await bed();
    const run = await committedPlanRun(b, 'landed once');
    const mainBefore = projectGit(b, 'rev-parse', 'main');

    // A double click on Land: two requests, the second sent before the first is answered.
    const land = () => b.call('landRun', { runId: run.id, target: 'main', strategy: 'squash', message: 'Plan, squashed' });
    const answers = await Promise.allSettled([land(), land()]);
    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected']);
    const busy = (answers[1] as PromiseRejectedResult).reason as OperatorErrorShape;
    expect(busy).toMatchObject({ code: 'run_busy', reason: 'land' });
    expect(busy.message).toMatch(/already landing this run/);
    expect(busy.message).toMatch(/wait/i);
    // One squash commit on main, not two.
    expect(projectGit(b, 'rev-list', '--count', `${mainBefore}..main`)).toBe('1');
    expect(projectGit(b, 'log', '-1', '--format=%s', 'main')).toBe('Plan, squashed');

    // Once it has landed, landing again is refused as landed, and main stays where it is.
    const again = await refusal(land());
    expect(again).toMatchObject({ code: 'conflict', reason: 'nothing_to_land' });
    expect(again.message).toMatch(/already in main/);
    expect(projectGit(b, 'rev-list', '--count', `${mainBefore}..main`)).toBe('1');
  });

  it('refuses a commit, a push, a discard, an archive or a delete of a run that is being landed, and keeps it out of a clean-up meanwhile', async () => {
    const b = await bed();
    const run = await committedPlanRun(b, 'not thrown away mid-landing');

    const landing = b.call('landRun', { runId: run.id, target: 'main', strategy: 'fast-forward' });
    const others = await Promise.allSettled([
      b.call('commitRunChanges', { runId: run.id, message: 'More' }),
      b.call('pushRunBranch', { runId: run.id }),
      b.call('discardRun', { runId: run.id }),
      b.call('archiveRun', { runId: run.id }),
      b.call('deleteRun', { runId: run.id }),
    ]);
    const cleanUp = b.call('cleanUpRuns', { runIds: [run.id], confirmedRunIds: [run.id] });
    const landed = await landing;
    expect(landed.landing.state).toBe('landed');
    for (const answer of others) {
      expect(answer.status).toBe('rejected');
      expect((answer as PromiseRejectedResult).reason).toMatchObject({ code: 'run_busy', reason: 'land' });
    }
    const cleaned = await cleanUp;
    expect(cleaned.removed).toEqual([]);
    expect(cleaned.kept).toEqual([{ runId: run.id, reason: expect.stringMatching(/already landing this run/) }]);
    // Nothing of it went: the run, its files and what landed.
    const after = await b.call('getRun', { runId: run.id });
    expect(after.landing).toMatchObject({ state: 'landed', filesRemovedAt: null });
    expect(existsSync(present(after.taskRoot))).toBe(true);
    expect(projectGit(b, 'log', '-1', '--format=%s', 'main')).toBe('Plan');
  });
});

describe('a console that stopped in the middle of a landing', () => {
  it('finds a squash that moved the branch but was never recorded, and never lands it twice; forgets one that never moved it', async () => {
    const b = await bed();
    const run = await committedPlanRun(b, 'squashed before the crash');
    await b.call('getLandingPlan', { runId: run.id }); // the run's commits are in the project now
    const tip = projectGit(b, 'rev-parse', `refs/operator-console/imported/${run.id}`);

    // A landing the console began and never recorded, its branch not moved yet: forgotten at the next look.
    const main = projectGit(b, 'rev-parse', 'main');
    const intent = { runTip: tip, target: 'main', strategy: 'squash' as const, at: Date.now(), by: 'Olga Operator <olga@example.invalid>' };
    b.core.ledger.runs.recordLandingIntent(run.id, { ...intent, commit: tip });
    const untouched = await b.call('getLandingPlan', { runId: run.id });
    expect(untouched.available).toBe(true);
    expect((await b.call('getRun', { runId: run.id })).landing.state).toBe('not_landed');
    expect(b.core.ledger.runs.row(run.id)?.landing_intent_json).toBeNull();

    // The console stopped after the squash commit moved main and before the ledger said so: what
    // the landing wrote as its intent, then the branch moving, as landing does them.
    const squash = execFileSync('git', ['commit-tree', `${tip}^{tree}`, '-p', main, '-m', 'Squashed plan'], { cwd: b.projectDir, encoding: 'utf8' }).trim();
    b.core.ledger.runs.recordLandingIntent(run.id, { ...intent, commit: squash });
    projectGit(b, 'update-ref', 'refs/heads/main', squash, main);

    const plan = await b.call('getLandingPlan', { runId: run.id });
    expect(plan).toMatchObject({ available: false, blockedBy: 'Everything this run committed is already in main.' });
    expect((await b.call('getRun', { runId: run.id })).landing).toMatchObject({ state: 'landed', landed: { commit: squash, target: 'main', strategy: 'squash' } });
    const again = await refusal(b.call('landRun', { runId: run.id, target: 'main', strategy: 'squash' }));
    expect(again.message).toMatch(/already in main/);
    expect(projectGit(b, 'rev-parse', 'main')).toBe(squash);
  });
});

describe('push and pull request', () => {
  it('pushes the run’s branch to the project’s remote and derives the forge’s compare address; gh opens the pull request', async () => {
    const remote = makeTempDir('oc-landing-remote-');
    const bin = makeTempDir('oc-landing-gh-');
    cleanups.push(remote.remove, bin.remove);
    execFileSync('git', ['init', '-q', '--bare', remote.path]);
    // A `gh` standing in for the GitHub CLI (its network path cannot run here): it records its argv.
    const argvFile = path.join(bin.path, 'argv.json');
    const authChecks = path.join(bin.path, 'auth-checks');
    const gh = path.join(bin.path, 'gh');
    writeFileSync(
      gh,
      [
        '#!/usr/bin/env node',
        "const fs = require('node:fs');",
        `if (process.argv[2] === 'auth') { fs.appendFileSync(${JSON.stringify(authChecks)}, 'auth\\n'); process.exit(0); }`,
        "if (process.argv[2] === '--version') { console.log('gh version 2.60.0'); process.exit(0); }",
        `fs.writeFileSync(${JSON.stringify(argvFile)}, JSON.stringify(process.argv.slice(2)));`,
        "console.log('https://github.com/acme/refunds/pull/7');",
      ].join('\n'),
    );
    chmodSync(gh, 0o755);
    const b = await bed({ operatorEnv: { ...process.env, PATH: `${bin.path}:${process.env.PATH ?? ''}` } });
    // The remote as a GitHub project knows it; pushes go to the local bare repository.
    projectGit(b, 'remote', 'add', 'origin', 'https://github.com/acme/refunds.git');
    projectGit(b, 'remote', 'set-url', '--push', 'origin', remote.path);
    const agent = await planWriter(b, 'pushed plan');
    const task = await b.createTask();
    const run = await finishedRun(b, (await b.call('startRun', { taskId: task.id, agentId: agent.id })).id);
    await b.call('commitRunChanges', { runId: run.id, message: 'Pushed plan' });

    const plan = await b.call('getLandingPlan', { runId: run.id });
    // Shown: where the push goes.
    expect(plan.remote).toEqual({ name: 'origin', url: remote.path });
    expect(plan.pullRequests).toEqual({ available: true, hint: null });
    // gh's login is asked once, not at every look at the run's Changes.
    await b.call('getLandingPlan', { runId: run.id });
    expect(readFileSync(authChecks, 'utf8')).toBe('auth\n');
    const landing = await b.call('pushRunBranch', { runId: run.id });
    const branch = `operator-console/${run.id}`;
    expect(landing).toMatchObject({
      state: 'pushed',
      pushed: { remote: 'origin', branch, compareUrl: `https://github.com/acme/refunds/compare/main...${branch}?expand=1` },
    });
    // The desktop window may hand this address (and only addresses the console recorded) to the
    // browser: the shell asks the console service over the contract.
    expect(await b.call('isRecordedForgeAddress', { url: present(landing.pushed?.compareUrl) })).toEqual({ recorded: true });
    expect(await b.call('isRecordedForgeAddress', { url: 'https://github.com/acme/refunds/compare/main...evil' })).toEqual({ recorded: false });
    const pushed = execFileSync('git', ['log', '-1', '--format=%s', `refs/heads/${branch}`], { cwd: remote.path, encoding: 'utf8' }).trim();
    expect(pushed).toBe('Pushed plan');

    const created = await b.call('createPullRequest', { runId: run.id, title: 'Refund plan', body: 'From the console.' });
    expect(created.url).toBe('https://github.com/acme/refunds/pull/7');
    expect(JSON.parse(readFileSync(argvFile, 'utf8'))).toEqual(['pr', 'create', '--base=main', `--head=${branch}`, '--title=Refund plan', '--body=From the console.']);
    expect((await b.call('getRun', { runId: run.id })).landing.pushed?.pullRequestUrl).toBe('https://github.com/acme/refunds/pull/7');
  });

  it('says what to install when gh is not there, and that a project without a remote cannot push', async () => {
    const b = await bed({ operatorEnv: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' } });
    const agent = await planWriter(b, 'local plan');
    const task = await b.createTask();
    const run = await finishedRun(b, (await b.call('startRun', { taskId: task.id, agentId: agent.id })).id);
    const plan = await b.call('getLandingPlan', { runId: run.id });
    expect(plan.remote).toBeNull();
    const refused = await refusal(b.call('pushRunBranch', { runId: run.id }));
    expect(refused.reason).toBe('no_remote');
    projectGit(b, 'remote', 'add', 'origin', 'https://github.com/acme/refunds.git');
    const withRemote = await b.call('getLandingPlan', { runId: run.id });
    expect(withRemote.pullRequests.available).toBe(false);
    expect(withRemote.pullRequests.hint).toMatch(/GitHub CLI/);
  });
});

describe('discard', () => {
  it('removes the run’s files and its store, keeps its history, and never lands afterwards', async () => {
    const b = await bed();
    const agent = await planWriter(b, 'thrown away');
    const task = await b.createTask();
    const run = await finishedRun(b, (await b.call('startRun', { taskId: task.id, agentId: agent.id })).id);
    await b.call('commitRunChanges', { runId: run.id, message: 'Throwaway' });
    await b.call('getLandingPlan', { runId: run.id }); // the dry run copied its commits into the project
    const discarded = await b.call('discardRun', { runId: run.id });
    expect(discarded.landing.state).toBe('discarded');
    expect(existsSync(present(run.taskRoot))).toBe(false);
    expect(projectGit(b, 'for-each-ref', '--format=%(refname)', 'refs/operator-console/')).not.toContain(run.id);
    const plan = await b.call('getLandingPlan', { runId: run.id });
    expect(plan).toMatchObject({ available: false, blockedBy: 'This run’s work was discarded.' });
    // What its Changes showed is kept.
    const diff = await b.call('getRunDiff', { runId: run.id });
    expect(diff.filesRemovedAt).not.toBeNull();
    expect(diff.files.map((file) => file.path)).toEqual(['notes/plan.md']);
  });
});
