import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRunTestBed, present, timeOf, type RunTestBed } from '../testing/run-test-kit';

/**
 * The lifecycle's named bugs (issue 11), end to end with real PTYs, git and SQLite: a Stop or a
 * closing console during preparation, retry waits longer than a timer can hold, and retry times that
 * outlive a restart.
 */

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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const day = 24 * 60 * 60 * 1000;

/**
 * A run of an agent with an isolated home and an AI connection, held at its launch: the connection
 * is being updated (its lock taken after admission), so the attempt waits for it before it delivers
 * the key and spawns the CLI.
 */
async function runWaitingForBusyConnection(b: RunTestBed) {
  const connection = await b.call('createConnection', {
    name: 'Fixture OpenAI',
    provider: 'openai',
    method: 'api_key',
    secret: 'sk-test-busy-connection-0123456789abcdef',
    ownership: 'shared',
    agentScope: 'all',
  });
  const agent = await b.call('createAgent', { name: 'codex', providerId: 'fixture-codex', model: 'model-a', profileId: 'default', environmentId: 'env_local', homeMode: 'isolated' });
  await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
  const task = await b.createTask();
  const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
  const release = b.core.connections.holdForUpdate(connection.id);
  // Its attempt exists once the task root is ready, just before the key is opened: there it waits.
  const waiting = await b.waitForRun(started.id, (run) => run.attempts.length === 1);
  await sleep(300);
  const still = await b.call('getRun', { runId: started.id });
  expect(still.status).toBe('preparing');
  expect(still.locators, 'no process yet').toEqual([]);
  return { runId: started.id, release, taskRoot: present(waiting.taskRoot, 'task root') };
}

describe('a Stop during preparation', () => {
  it('cancels a run that waits for its busy AI connection at once, and its CLI never starts', async () => {
    const b = await bed();
    const { runId, release, taskRoot } = await runWaitingForBusyConnection(b);
    await b.call('stopRun', { runId });
    const run = await b.waitForRun(runId, ended, 3000);
    expect(run.status).toBe('cancelled');
    expect(run.failure).toMatchObject({ code: 'cancelled', message: 'Stopped by the operator before it started.' });
    expect(run.attempts).toMatchObject([{ status: 'cancelled', failureCode: 'cancelled', exitCode: null }]);

    // The update finishing later releases nothing: no process, no output, no key delivered.
    release();
    await sleep(800);
    const after = await b.call('getRun', { runId });
    expect(after.status).toBe('cancelled');
    expect(after.locators).toEqual([]);
    expect(after.outputBytes).toBe(0);
    expect(existsSync(path.join(taskRoot, 'delivered'))).toBe(false);
  });

  it('is taken by a closing console too: nothing starts, and the next start strands the run', async () => {
    const b = await bed();
    const { runId, release } = await runWaitingForBusyConnection(b);
    // Closing must not wait for the update, and must not let the CLI start once it is done.
    await b.restart();
    release();
    const run = await b.waitForRun(runId, ended, 5000);
    expect(run.status).toBe('stranded');
    expect(run.locators).toEqual([]);
    expect(run.outputBytes).toBe(0);
    expect(run.attempts).toMatchObject([{ status: 'stranded' }]);
  });
});

describe('a wait between attempts', () => {
  it('waits for the stated reset, then retries, and every attempt keeps its Retry at', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--rate-limit', '--reset-in-ms', '1500']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const waiting = await b.waitForRun(started.id, (run) => run.attempts[0]?.status === 'failed');
    const firstRetryAt = timeOf(waiting.attempts[0]?.retryAt);
    expect(firstRetryAt).toBeGreaterThan(Date.now());
    expect(waiting.attempts).toHaveLength(1);

    const retried = await b.waitForRun(started.id, (run) => run.attempts[1]?.status === 'failed', 15_000);
    // The second attempt began at the reset, not before it, and the first attempt's Retry at is kept.
    expect(timeOf(retried.attempts[1]?.startedAt)).toBeGreaterThanOrEqual(firstRetryAt - 5);
    expect(timeOf(retried.attempts[0]?.retryAt)).toBe(firstRetryAt);
    expect(retried.attempts[1]?.retryAt).not.toBeNull();

    // Stopped while waiting for the third: it ends at once, the plan it will not carry out is cleared.
    await b.call('stopRun', { runId: started.id });
    const stopped = await b.call('getRun', { runId: started.id });
    expect(stopped.status).toBe('cancelled');
    expect(stopped.failure?.message).toBe('Stopped by the operator while waiting to retry.');
    expect(stopped.attempts.map((attempt) => attempt.retryAt !== null)).toEqual([true, false]);
  });

  it('holds a reset a month away instead of retrying at once', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--rate-limit', '--reset-in-ms', String(30 * day)]);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const waiting = await b.waitForRun(started.id, (run) => run.attempts[0]?.status === 'failed');
    expect(timeOf(waiting.attempts[0]?.retryAt) - Date.now()).toBeGreaterThan(29 * day);
    await sleep(1500);
    const later = await b.call('getRun', { runId: started.id });
    expect(later.status).toBe('running');
    expect(later.attempts).toHaveLength(1);
  });

  it('outlives a restart: the run goes on waiting for its recorded time, then retries', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--rate-limit', '--reset-in-ms', '2500']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const waiting = await b.waitForRun(started.id, (run) => run.attempts[0]?.status === 'failed');
    const retryAt = timeOf(waiting.attempts[0]?.retryAt);

    await b.restart();
    const after = await b.call('getRun', { runId: started.id });
    expect(after.status).toBe('running');
    expect(timeOf(after.attempts[0]?.retryAt)).toBe(retryAt);
    expect(await b.call('listNotices', {}), 'not stranded').toEqual([]);
    const { events } = await b.call('listRunEvents', { runId: started.id });
    expect(present(events.filter((event) => event.kind === 'retry_scheduled').at(-1)).data).toMatchObject({
      nextAttempt: 2,
      message: expect.stringContaining('restarted'),
    });

    const retried = await b.waitForRun(started.id, (run) => run.attempts.length === 2, 15_000);
    expect(timeOf(retried.attempts[1]?.startedAt)).toBeGreaterThanOrEqual(retryAt - 5);
    await b.call('stopRun', { runId: started.id });
  });
});
