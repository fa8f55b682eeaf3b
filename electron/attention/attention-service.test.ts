import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultNotificationSettings, desktopNotificationSchema, type DesktopNotification } from '../../shared/attention';
import { actionRoute } from '../../shared/routes';
import type { Core } from '../core';
import { openRunTestBed, present, timeOf, type RunTestBed } from '../testing/run-test-kit';
import { codexAgent } from '../testing/connection-test-kit';
import { makeTempDir } from '../testing/temp-dir';
import { describeRetryTime } from './attention-text';

/**
 * Desktop notifications as the core pushes them (issue 14), end to end: a real ledger file, real PTYs
 * running the fixture agent, real git worktrees. What is asserted is what the app would show: the
 * `desktopNotification` events, each once, a refusal and its notice as one, a flood as one summary.
 */

const beds: RunTestBed[] = [];
const temps: Array<{ remove(): void }> = [];
async function bed() {
  const opened = await openRunTestBed();
  beds.push(opened);
  return opened;
}
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
  for (const temp of temps.splice(0)) temp.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);
const sandboxed = { environmentId: 'env_sandboxed', homeMode: 'isolated' } as const;
/** Longer than the service's window (at most 1.5 s): anything still to come has come by then. */
const settleMs = 2000;

/** Every desktop notification the core pushes from now on, checked against the contract. */
function watch(core: Core) {
  const shown: DesktopNotification[] = [];
  const stop = core.events.listen((event, payload) => {
    if (event === 'desktopNotification') shown.push(desktopNotificationSchema.parse(payload));
  });
  return {
    shown,
    stop,
    /** Waits until `count` have been pushed, then a while longer, and returns all that were. */
    async settle(count: number, timeoutMs = 15_000): Promise<DesktopNotification[]> {
      const deadline = Date.now() + timeoutMs;
      while (shown.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} notifications in ${timeoutMs} ms, got ${shown.length}: ${JSON.stringify(shown)}`);
        await sleep(25);
      }
      await sleep(settleMs);
      return [...shown];
    },
  };
}

describe('desktop notifications', () => {
  it('tells a run that succeeded once, naming its task and agent, opening the run; a second delivery or a restart tells nothing', async () => {
    const b = await bed();
    const watcher = watch(b.core);
    const agent = await b.createAgent(['--lines', '2']);
    const task = await b.createTask('Write the refund plan');
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    await b.waitForRun(run.id, ended);

    const [shown, ...more] = await watcher.settle(1);
    expect(more).toEqual([]);
    expect(shown).toMatchObject({
      event: 'run_succeeded',
      runId: run.id,
      noticeId: null,
      count: 1,
      route: actionRoute({ kind: 'run', runId: run.id }),
      silent: false,
      quietWhenFocused: true,
    });
    expect(shown!.title).toBe('Run succeeded: Write the refund plan');
    expect(shown!.body).toContain(agent.name);
    expect(shown!.body).toContain('Open the run');

    // The same change delivered again (the run is announced whenever it changes) is not news.
    b.core.runs.announce(run.id);
    await b.call('archiveRun', { runId: run.id });
    await sleep(settleMs);
    expect(watcher.shown).toHaveLength(1);
    watcher.stop();

    // Nor after a restart, even with the claim forgotten: the run ended before this console started.
    await b.restart();
    const again = watch(b.core);
    b.core.ledger.notifications.forgetBefore(Number.POSITIVE_INFINITY);
    b.core.runs.announce(run.id);
    await sleep(settleMs);
    expect(again.shown).toEqual([]);
    again.stop();
  });

  it('tells a run the operator resumed as resumed by them, not as a retry', async () => {
    const b = await bed();
    const watcher = watch(b.core);
    const agent = await codexAgent(b, 'resumable codex', 'default');
    const task = await b.createTask('Write the refund plan');
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    await b.waitForRun(run.id, ended);
    const [first] = await watcher.settle(1);
    expect(first!.body).toBe(`${agent.name} finished “Write the refund plan”. Open the run to review its changes.`);

    await b.call('resumeRun', { runId: run.id });
    await b.waitForRun(run.id, (detail) => detail.attempts.length === 2 && ended(detail));
    const [, second] = await watcher.settle(2);
    expect(second).toMatchObject({ event: 'run_succeeded', runId: run.id });
    expect(second!.body).toBe(`${agent.name} finished “Write the refund plan” (attempt 2, resumed by you). Open the run to review its changes.`);
  });

  it('tells a failed run with why it failed', async () => {
    const b = await bed();
    const watcher = watch(b.core);
    const agent = await b.call('createAgent', { name: 'Failing codex', providerId: 'fixture-codex', model: 'model-a', profileId: 'fails', environmentId: 'env_local' });
    const task = await b.createTask('Port the parser');
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const failed = await b.waitForRun(run.id, ended);
    expect(failed.status).toBe('failed');

    const shown = await watcher.settle(1);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ event: 'run_failed', runId: run.id, title: 'Run failed: Port the parser', route: actionRoute({ kind: 'run', runId: run.id }) });
    // What the run's detail says went wrong, and where to look.
    expect(shown[0]!.body).toBe(`Failing codex failed on “Port the parser”. ${present(failed.failure).message} Open the run to see why.`);
    watcher.stop();
  });

  it('tells a refused run and the notice it raised as one notification that opens the fix; a later refusal joining that notice is told on its own', async () => {
    const b = await bed();
    const watcher = watch(b.core);
    const agent = await b.createAgent(['--lines', '1'], { ...sandboxed, name: 'Sandboxed fixture' });
    const task = await b.createTask('Refactor the parser');
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(run.status).toBe('refused');
    const [notice] = await b.call('listNotices', {});

    const shown = await watcher.settle(1);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({
      event: 'run_refused',
      runId: run.id,
      noticeId: present(notice).id,
      route: present(notice!.actionUrl),
      title: `${notice!.title}: Refactor the parser`,
      count: 1,
    });
    expect(shown[0]!.route).toBe(actionRoute({ kind: 'agent-ai-connection', agentId: agent.id }));
    expect(shown[0]!.body).toMatch(/^Sandboxed fixture was not started on “Refactor the parser”\. /);

    // Another refusal of the same cause joins the open notice: no new notice, one notification, the same fix.
    const second = await b.call('startRun', { taskId: (await b.createTask('Rename the module')).id, agentId: agent.id });
    const both = await watcher.settle(2);
    expect(both).toHaveLength(2);
    expect(both[1]).toMatchObject({ event: 'run_refused', runId: second.id, noticeId: notice!.id, route: notice!.actionUrl, title: `${notice!.title}: Rename the module` });
    expect(await b.call('listNotices', {})).toHaveLength(1);
    watcher.stop();
  });

  it('tells a run stranded by a restart once, with its notice, opening the run', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1', '--sleep-ms', '60000']);
    const task = await b.createTask('Long migration');
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    await b.waitForRun(run.id, (detail) => detail.status === 'running' && detail.locators.some((locator) => locator.kind === 'process'));

    await b.restart();
    const watcher = watch(b.core);
    expect((await b.waitForRun(run.id, ended)).status).toBe('stranded');
    const [notice] = await b.call('listNotices', {});
    const shown = await watcher.settle(1);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({
      event: 'run_stranded',
      runId: run.id,
      noticeId: present(notice).id,
      title: 'Run stranded: Long migration',
      route: actionRoute({ kind: 'run', runId: run.id }),
    });
    expect(shown[0]!.body).toContain('when the console stopped');
    watcher.stop();
  });

  it('tells a run that waits for a quota reset, with the time it retries', async () => {
    const b = await bed();
    const watcher = watch(b.core);
    const agent = await b.createAgent(['--rate-limit', '--reset-in-ms', String(90 * 60_000)]);
    const task = await b.createTask('Summarize the logs');
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const waiting = await b.waitForRun(run.id, (detail) => detail.attempts[0]?.status === 'failed' && detail.attempts[0].retryAt !== null);
    const retryAt = timeOf(waiting.attempts[0]?.retryAt);

    const shown = await watcher.settle(1);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ event: 'quota_wait', runId: run.id, title: 'Waiting for a quota reset: Summarize the logs', route: actionRoute({ kind: 'run', runId: run.id }) });
    // The local time of the reset, as the run's detail has it.
    const at = new Date(retryAt);
    const clock = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
    expect(shown[0]!.body).toContain(clock);
    expect(shown[0]!.body).toContain(describeRetryTime(retryAt, Date.parse(shown[0]!.at)));
    await b.call('stopRun', { runId: run.id });
    await sleep(settleMs);
    expect(watcher.shown, 'a run the operator stopped is not news').toHaveLength(1);
    watcher.stop();
  });

  it('tells a flood of runs ending at once as one summary that opens the runs list', async () => {
    const b = await bed();
    const watcher = watch(b.core);
    const gate = makeTempDir('oc-attention-gate-');
    temps.push(gate);
    const go = path.join(gate.path, 'go');
    // Each run waits at the gate, so they all end within a moment of its opening.
    const agent = await b.createAgent(['--shell', `while [ ! -e ${go} ]; do sleep 0.05; done`], { capacity: 6, name: 'Gated fixture' });
    const task = await b.createTask('Bump the dependency');
    const runs = [];
    for (let i = 0; i < 6; i++) runs.push(await b.call('startRun', { taskId: task.id, agentId: agent.id }));
    for (const run of runs) await b.waitForRun(run.id, (detail) => detail.status === 'running' && detail.locators.some((locator) => locator.kind === 'process'));
    const refusing = await b.createAgent(['--lines', '1'], { ...sandboxed, name: 'Sandboxed fixture' });

    mkdirSync(gate.path, { recursive: true });
    writeFileSync(go, '');
    const refused = await b.call('startRun', { taskId: task.id, agentId: refusing.id });
    for (const run of runs) await b.waitForRun(run.id, ended);

    const shown = await watcher.settle(1);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({
      event: 'summary',
      count: 7,
      runId: null,
      noticeId: null,
      title: '7 runs ended: 6 succeeded, 1 refused',
      route: actionRoute({ kind: 'runs' }),
    });
    expect(shown[0]!.body).toBe('1 needs you: see Notices. Open the runs list to see them all.');
    expect(refused.status).toBe('refused');
    watcher.stop();
  });

  it('tells only the events the operator chose, with their sound setting; a refusal told as its notice when refusals are off', async () => {
    const b = await bed();
    const settings = await b.call('getNotificationSettings');
    expect(settings).toEqual(defaultNotificationSettings);
    const chosen = {
      ...defaultNotificationSettings,
      events: { ...defaultNotificationSettings.events, run_succeeded: false, run_refused: false },
      sound: false,
    };
    expect(await b.call('setNotificationSettings', chosen)).toEqual(chosen);
    const watcher = watch(b.core);

    const quiet = await b.createAgent(['--lines', '1']);
    const run = await b.call('startRun', { taskId: (await b.createTask('Quiet success')).id, agentId: quiet.id });
    await b.waitForRun(run.id, ended);
    await sleep(settleMs);
    expect(watcher.shown, 'a success, with successes turned off').toEqual([]);

    const refusing = await b.createAgent(['--lines', '1'], { ...sandboxed, name: 'Sandboxed fixture' });
    const refused = await b.call('startRun', { taskId: (await b.createTask('Refused task')).id, agentId: refusing.id });
    const [notice] = await b.call('listNotices', {});
    const shown = await watcher.settle(1);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ event: 'notice', noticeId: present(notice).id, runId: refused.id, title: notice!.title, route: notice!.actionUrl, silent: true });
    expect(shown[0]!.body).toBe(notice!.message);

    // The choice outlives a restart; a value the console cannot read is the defaults.
    await b.restart();
    expect(await b.call('getNotificationSettings')).toEqual(chosen);
    b.core.ledger.settings.write('notifications.settings', { events: 'all of them' }, Date.now());
    await b.restart();
    expect(await b.call('getNotificationSettings')).toEqual(defaultNotificationSettings);
    watcher.stop();
  });

  it('refuses settings that are not settings, with invalid_request', async () => {
    const b = await bed();
    await expect(b.call('setNotificationSettings', { ...defaultNotificationSettings, sound: 'loud' } as never)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(b.call('setNotificationSettings', { ...defaultNotificationSettings, extra: true } as never)).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await b.call('getNotificationSettings')).toEqual(defaultNotificationSettings);
  });

  it('forgets claims older than two days at start, and only those', async () => {
    const b = await bed();
    const claims = b.core.ledger.notifications;
    const threeDaysAgo = Date.now() - 3 * 24 * 60 * 60_000;
    expect(claims.claim('old-event', 'ntf_old', threeDaysAgo)).toBe(true);
    expect(claims.claim('recent-event', 'ntf_recent', Date.now())).toBe(true);
    await b.restart();
    expect(b.core.ledger.notifications.claim('old-event', 'ntf_old', Date.now())).toBe(true);
    expect(b.core.ledger.notifications.claim('recent-event', 'ntf_recent', Date.now())).toBe(false);
  });
});
