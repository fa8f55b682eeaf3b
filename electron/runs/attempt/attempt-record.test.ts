import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attemptSchema } from '../../../shared/entities';
import { CoreEventBus } from '../../events/core-event-bus';
import { loadProviderCatalog } from '../../providers/catalog';
import { openRunTestBed, type RunTestBed } from '../../testing/run-test-kit';
import type { RunEventBus } from '../../events/run-events';
import { allowedAttemptMoves, endAttempt, isAllowedAttemptMove, RunAttempt, type AttemptEnd } from './attempt-record';

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
});

async function bed() {
  const b = await openRunTestBed();
  beds.push(b);
  return b;
}

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);
const refusals = (b: RunTestBed) => b.log.lines.filter((line) => String(line.message).startsWith('attempt end refused'));
const parties = (runId: string, attemptId: string, agent: { id: string; name: string }, task: { id: string; title: string }) => ({
  runId,
  attemptId,
  attemptNumber: 1,
  agent: { id: agent.id, name: agent.name },
  providerName: 'Command',
  task: { id: task.id, title: task.title },
});
/** What the attempt was launched under, as admission answers for the agent now (in the test catalog). */
function launch(b: RunTestBed, agentId: string) {
  const verdict = b.core.runs.admit({ ...b.core.ledger.agents.get(agentId)!, deleted: false });
  if (!verdict.admitted) throw new Error(`the test agent is not admitted: ${verdict.failure.message}`);
  const provider = loadProviderCatalog({ path: path.join(b.dataDir, 'test-catalog.json') }).findProvider(verdict.admission.providerId)!;
  return { admission: verdict.admission, provider, resumed: false };
}
const failedEnd: AttemptEnd = { status: 'failed', failureCode: 'process_exit', exitCode: 9, signal: null, retryAt: 123, endedAt: 1 };

describe('the attempt lifecycle table', () => {
  it('names every attempt status, and lets nothing leave an ended attempt', () => {
    const statuses = attemptSchema.shape.status.options;
    expect(Object.keys(allowedAttemptMoves).sort()).toEqual([...statuses].sort());
    for (const from of statuses.filter((status) => status !== 'running')) {
      for (const to of statuses) expect(isAllowedAttemptMove(from, to), `${from} → ${to}`).toBe(false);
    }
  });

  it('refuses to end a real run’s attempt a second time, logs it, and leaves the ledger row as it was', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('succeeded');
    const [attempt] = b.core.ledger.runs.attempts(started.id);
    const before = attempt!;
    expect(before.status).toBe('succeeded');

    // A late second end (an exit heard after the run ended, say) must not rewrite what happened.
    expect(endAttempt({ ledger: b.core.ledger, log: b.log }, before.id, failedEnd)).toBe(false);
    expect(b.core.ledger.runs.attempts(started.id)).toEqual([before]);
    expect(refusals(b)).toMatchObject([{ level: 'error', attemptId: before.id, from: 'succeeded', to: 'failed' }]);
  });

  it('ends an attempt once through finish, refuses the second finish and an unknown status', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1']);
    const task = await b.createTask();
    const runId = 'run_attempt_record';
    b.core.ledger.runs.insert({ id: runId, taskId: task.id, agentId: agent.id, status: 'running', createdAt: Date.now() });
    const lifecycle: RunEventBus = new CoreEventBus(b.log);
    const heard: string[] = [];
    lifecycle.on('attemptEnded', ({ attemptId, end }) => heard.push(`${attemptId} ${end.status}`));
    const context = { ledger: b.core.ledger, log: b.log, lifecycle };
    const attempt = RunAttempt.start(context, parties(runId, 'att_record_1', agent, task), { cause: 'first', startedAt: 5 }, launch(b, agent.id));
    expect(attempt.running).toBe(true);

    // A status that is no attempt status (a caller's typo that a cast let through) changes nothing.
    expect(attempt.finish({ ...failedEnd, status: 'finished' as AttemptEnd['status'] })).toBe(false);
    expect(b.core.ledger.runs.attempt(attempt.id)).toMatchObject({ status: 'running', failureCode: null, exitCode: null, endedAt: null });
    expect(attempt.running).toBe(true);

    expect(attempt.finish({ status: 'cancelled', failureCode: 'cancelled', exitCode: null, signal: 'SIGTERM', retryAt: null, endedAt: 10 })).toBe(true);
    expect(attempt.running).toBe(false);
    expect(attempt.finish(failedEnd)).toBe(false);
    expect(b.core.ledger.runs.attempt(attempt.id)).toMatchObject({ status: 'cancelled', failureCode: 'cancelled', signal: 'SIGTERM', retryAt: null });
    // Only the end that happened is told.
    expect(heard).toEqual(['att_record_1 cancelled']);
    expect(refusals(b)).toMatchObject([
      { level: 'error', attemptId: attempt.id, from: 'running', to: 'finished' },
      { level: 'error', attemptId: attempt.id, from: 'cancelled', to: 'failed' },
    ]);
    // Nor is an attempt the ledger does not hold ended.
    expect(endAttempt(context, 'att_missing', failedEnd)).toBe(false);
    expect(refusals(b).at(-1)).toMatchObject({ message: 'attempt end refused: no such attempt', attemptId: 'att_missing' });
  });

  it('lets only one of two writers that read the same status end the attempt', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1']);
    const task = await b.createTask();
    b.core.ledger.runs.insert({ id: 'run_two_writers', taskId: task.id, agentId: agent.id, status: 'running', createdAt: Date.now() });
    RunAttempt.start({ ledger: b.core.ledger, log: b.log, lifecycle: new CoreEventBus(b.log) }, parties('run_two_writers', 'att_two_writers', agent, task), { cause: 'first', startedAt: 5 }, launch(b, agent.id));
    expect(b.core.ledger.runs.endAttempt('att_two_writers', 'running', { ...failedEnd, status: 'cancelled' })).toBe(true);
    expect(b.core.ledger.runs.endAttempt('att_two_writers', 'running', failedEnd)).toBe(false);
    expect(b.core.ledger.runs.attempt('att_two_writers')?.status).toBe('cancelled');
  });
});
