import { afterEach, describe, expect, it } from 'vitest';
import { bed, closeConnectionBeds, codexAgent, createConnection, ended, sandboxed } from '../testing/connection-test-kit';
import { present } from '../testing/run-test-kit';

/** The notices a refused run leaves (issue 5): resolved once the cause is gone, then Run again. */

afterEach(closeConnectionBeds);

describe('notices that resolve themselves, and Run again', () => {
  it('resolves the notice once the agent has a usable connection, and Run again starts each refused task once', async () => {
    const b = await bed();
    const agent = await codexAgent(b, 'needs one', 'default', sandboxed);
    const first = await b.createTask('First task');
    const second = await b.createTask('Second task');
    const refused = [
      await b.call('startRun', { taskId: first.id, agentId: agent.id }),
      await b.call('startRun', { taskId: first.id, agentId: agent.id }),
      await b.call('startRun', { taskId: second.id, agentId: agent.id }),
    ] as const;
    expect(refused.map((run) => run.status)).toEqual(['refused', 'refused', 'refused']);
    // One notice for the agent and cause, standing for all three runs and naming both tasks.
    const notices = await b.call('listNotices', {});
    expect(notices).toHaveLength(1);
    const notice = present(notices[0], 'notice');
    expect(notice.runIds).toEqual(refused.map((run) => run.id));
    expect(notice.message).toMatch(/tasks “First task” and “Second task”/);
    expect((await b.call('countOpenNotices')).open).toBe(1);
    await expect(b.call('runAgain', { noticeId: notice.id })).rejects.toMatchObject({ code: 'conflict' });

    // A connection alone does not fix it: the agent must choose it.
    const connection = await createConnection(b);
    expect((await b.call('listNotices', {})).map((open) => open.id)).toEqual([notice.id]);
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    expect((await b.call('countOpenNotices')).open).toBe(0);
    const resolved = present((await b.call('listNotices', { status: 'resolved' }))[0], 'resolved notice');
    expect(resolved).toMatchObject({ id: notice.id, status: 'resolved', canRunAgain: true, resolvedAt: expect.any(String) });
    // It says what fixed it, in the past tense.
    expect(resolved.resolution).toBe('needs one was given the AI connection “Fixture OpenAI”.');
    expect((await b.call('getRun', { runId: refused[0].id })).notice).toMatchObject({ id: notice.id, status: 'resolved', canRunAgain: true });

    const again = await b.call('runAgain', { noticeId: notice.id });
    expect(again.alreadyRan).toBe(false);
    expect(again.runs.map((run) => run.taskId)).toEqual([first.id, second.id]);
    expect(again.notice).toMatchObject({ canRunAgain: false, rerunRunIds: again.runs.map((run) => run.id) });
    const twice = await b.call('runAgain', { noticeId: notice.id });
    expect(twice).toMatchObject({ alreadyRan: true, runs: again.runs.map((run) => ({ id: run.id })) });
    for (const run of again.runs) expect((await b.waitForRun(run.id, ended)).status).toBe('succeeded');
    expect((await b.call('listRuns', {})).runs).toHaveLength(5);
  });

  it('dismisses an open notice, or a resolved one the operator chooses not to run again; neither runs anything', async () => {
    const b = await bed();
    const agent = await codexAgent(b, 'needs one', 'default', sandboxed);
    const task = await b.createTask('Refused task');
    const refused = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const notice = present((await b.call('listNotices', {}))[0], 'notice');

    // Dismissed while open: it leaves the badge, and fixing the cause later does not bring it back.
    const dismissed = await b.call('dismissNotice', { noticeId: notice.id });
    expect(dismissed).toMatchObject({ id: notice.id, status: 'dismissed', canRunAgain: false, resolvedAt: expect.any(String) });
    expect((await b.call('countOpenNotices')).open).toBe(0);
    const connection = await createConnection(b);
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    expect((await b.call('listNotices', { status: 'all' })).map((each) => each.status)).toEqual(['dismissed']);
    await expect(b.call('runAgain', { noticeId: notice.id })).rejects.toMatchObject({ code: 'conflict' });

    // Resolved with Run again on offer: dismissing declines it.
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: null });
    await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const second = present((await b.call('listNotices', {}))[0], 'second notice');
    expect(second.id).not.toBe(notice.id);
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    expect(await b.call('listNotices', { status: 'resolved' })).toMatchObject([{ id: second.id, canRunAgain: true }]);
    expect(await b.call('dismissNotice', { noticeId: second.id })).toMatchObject({ status: 'dismissed', canRunAgain: false });
    await expect(b.call('runAgain', { noticeId: second.id })).rejects.toMatchObject({ code: 'conflict' });
    expect((await b.call('listRuns', {})).runs.map((run) => run.status)).toEqual(['refused', 'refused']);
    expect((await b.call('getRun', { runId: refused.id })).notice).toMatchObject({ id: notice.id, status: 'dismissed' });

    await expect(b.call('dismissNotice', { noticeId: 'n_missing' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('resolves a stranded run’s notice when the run is archived', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1']);
    const task = await b.createTask();
    const run = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    b.core.ledger.db.prepare("UPDATE runs SET status = 'running' WHERE id = ?").run(run.id);
    await b.core.runs.recover();
    expect(await b.call('listNotices', {})).toMatchObject([{ kind: 'run_stranded', runId: run.id }]);
    await b.call('archiveRun', { runId: run.id });
    expect((await b.call('countOpenNotices')).open).toBe(0);
    const resolved = present((await b.call('listNotices', { status: 'resolved' }))[0], 'resolved notice');
    expect(resolved).toMatchObject({ kind: 'run_stranded', canRunAgain: false, resolution: 'The run was archived: it will not be resumed.' });
    // Nothing to decline: a dismissal leaves it resolved, as it was.
    expect(await b.call('dismissNotice', { noticeId: resolved.id })).toMatchObject({ status: 'resolved', resolvedAt: resolved.resolvedAt });
  });
});
