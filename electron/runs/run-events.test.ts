import { afterEach, describe, expect, it } from 'vitest';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';
import type { RunEventMap } from '../events/run-events';

/**
 * The run lifecycle's events, as a subscriber outside the runs hears them from a real attempt (a real
 * PTY, the fixture agent's JSON stream, the real ledger): what a new reaction is written against.
 */

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

/** Everything the bus says, in order, as `[event, payload]`. */
function listen(b: RunTestBed) {
  const heard: Array<{ [K in keyof RunEventMap]: [K, RunEventMap[K]] }[keyof RunEventMap]> = [];
  for (const name of ['attemptStarted', 'attemptProgressed', 'timelineEvent', 'attemptEnded', 'runEnded'] as const) {
    b.core.lifecycle.on(name, (payload: RunEventMap[typeof name]) => heard.push([name, payload] as (typeof heard)[number]));
  }
  return heard;
}

describe('the run lifecycle events', () => {
  it('tell a subscriber an attempt started, its timeline entries, its end with its outcome, and the run’s end, in that order', async () => {
    const b = await openRunTestBed();
    beds.push(b);
    const heard = listen(b);
    const agent = await b.createAgent(['--json-events']);
    const task = await b.createTask('Heard by a subscriber');
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('succeeded');
    const attemptId = b.core.ledger.runs.attempts(started.id)[0]!.id;

    const names = heard.map(([name]) => name);
    expect(names[0]).toBe('attemptStarted');
    expect(names.at(-2)).toBe('attemptEnded');
    expect(names.at(-1)).toBe('runEnded');
    expect(names).toContain('timelineEvent');
    const parties = { runId: started.id, attemptId, attemptNumber: 1, agent: { id: agent.id, name: agent.name }, task: { id: task.id, title: 'Heard by a subscriber' } };
    expect(heard[0]![1]).toMatchObject({ ...parties, cause: 'first' });
    // Every timeline entry the subscriber heard is one the run's timeline holds, for this attempt.
    const timeline = heard.flatMap(([name, payload]) => (name === 'timelineEvent' ? [payload] : []));
    const stored = b.core.ledger.runs.events(started.id, 0, 500).filter((event) => event.attempt === 1);
    expect(timeline.map((entry) => entry.event.kind)).toEqual(stored.map((event) => event.kind));
    for (const entry of timeline) expect(entry).toMatchObject(parties);
    expect(heard.at(-2)![1]).toMatchObject({ ...parties, end: { status: 'succeeded', exitCode: 0, failureCode: null }, failure: null, ownerAction: false });
    expect(heard.at(-1)![1]).toEqual({ runId: started.id, status: 'succeeded', failure: null });
  });

  it('says why an attempt that needs its owner failed, and a subscriber that throws stops neither the run nor the other subscribers', async () => {
    const b = await openRunTestBed();
    beds.push(b);
    b.core.lifecycle.on('attemptEnded', () => {
      throw new Error('a broken reaction');
    });
    const heard = listen(b);
    const agent = await b.createAgent(['--lines', '1'], { executablePath: '/nowhere/agent-cli' });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('failed');
    const end = heard.find(([name]) => name === 'attemptEnded')?.[1];
    expect(end).toMatchObject({ end: { status: 'failed', failureCode: 'spawn_failed' }, failure: { code: 'spawn_failed', reason: 'executable_not_found' }, ownerAction: true });
    expect(heard.at(-1)).toEqual(['runEnded', { runId: started.id, status: 'failed', failure: run.failure }]);
    // The notice subscriber still heard it: the owner is told the CLI is missing.
    const notices = await b.call('listNotices', {});
    expect(notices.map((notice) => notice.code)).toContain('spawn_failed');
    expect(b.log.lines).toContainEqual(expect.objectContaining({ level: 'error', message: 'a core event reaction failed', event: 'attemptEnded', error: 'a broken reaction' }));
  });

  it('tell a subscriber that a run refused at Start ended, with its refusal: every way a run ends is a run end', async () => {
    const b = await openRunTestBed();
    beds.push(b);
    const heard = listen(b);
    // Sandboxed with its own home and no AI connection: admission refuses it before anything starts.
    const agent = await b.createAgent(['--lines', '1'], { environmentId: 'env_sandboxed', homeMode: 'isolated' });
    const run = await b.call('startRun', { taskId: (await b.createTask()).id, agentId: agent.id });
    expect(run.status).toBe('refused');
    expect(heard).toEqual([['runEnded', { runId: run.id, status: 'refused', failure: expect.objectContaining({ code: 'configuration_incomplete', reason: 'ai_connection_required' }) }]]);
  });
});
