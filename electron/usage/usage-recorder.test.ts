import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { UsageCounting } from '../../shared/usage';
import { loadProviderCatalog } from '../providers/catalog';
import { savedAdmission } from '../ledger/run-admission';
import { closeConnectionBeds, bed as connectionBed, codexAgent, createConnection } from '../testing/connection-test-kit';
import { openRunTestBed, present, type RunTestBed } from '../testing/run-test-kit';
import type { UsageEvent } from './usage-counter';
import { AttemptUsageRecorder } from './usage-recorder';

/**
 * The usage recorder on a real ledger (a SQLite file, through a real console core): first with the
 * recorder fed report by report, for each way a CLI counts; then through the run lifecycle, with the
 * fixture agent standing in for Codex (its turn.completed is the thread's running total, restored on
 * resume, as Codex's is).
 */

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const opened of beds.splice(0)) await opened.close();
  await closeConnectionBeds();
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

const usage = (counting: UsageCounting, input: number, output: number, cachedInput: number | null = null, reasoning: number | null = null): UsageEvent => ({
  kind: 'usage',
  inputTokens: input,
  outputTokens: output,
  cachedInputTokens: cachedInput,
  reasoningTokens: reasoning,
  counting,
});

/** A finished run of a plain command (it reports no usage of its own), whose attempts the tests feed reports for. */
async function plainRun() {
  const b = await openRunTestBed();
  beds.push(b);
  const agent = await b.createAgent(['--lines', '1'], { name: 'Planner' });
  const task = await b.createTask('Write the plan');
  const run = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
  expect(run.status).toBe('succeeded');
  const provider = loadProviderCatalog({ path: path.join(b.dataDir, 'test-catalog.json') }).getProvider('command');
  const admission = present(savedAdmission(b.core.ledger.runs.row(run.id)?.admission_json ?? null), 'admission');
  const changed: string[][] = [];
  b.core.events.listen((event, payload) => {
    if (event === 'usageChanged') changed.push((payload as { runIds: string[] }).runIds);
  });
  /** The recorder of attempt `number` (attempt 1 ran; later ones are added as a resume or a retry would). */
  const attempt = (number: number, session: { resumed: boolean; id: string | null }) => {
    let attemptId = b.core.ledger.runs.attempts(run.id).find((entry) => entry.number === number)?.id;
    if (!attemptId) {
      attemptId = `att_test_${number}`;
      b.core.ledger.runs.insertAttempt({ id: attemptId, runId: run.id, number, cause: number === 1 ? 'first' : 'resume', startedAt: Date.now() });
    }
    return new AttemptUsageRecorder(
      { ledger: b.core.ledger, events: b.core.events, log: b.log, now: Date.now },
      { runId: run.id, attemptId, attemptNumber: number, agentId: agent.id, admission, provider, resumed: session.resumed, sessionId: () => session.id },
    );
  };
  const records = () => b.core.ledger.usage.ofRun(run.id);
  return { b, run, agent, task, attempt, records, changed };
}

describe('recording an attempt\'s usage as its CLI reports it', () => {
  it('per_call: the calls are summed, the row rewritten at each report, with the names and billing of the run', async () => {
    const { b, run, agent, task, attempt, records, changed } = await plainRun();
    const recorder = attempt(1, { resumed: false, id: null });
    recorder.report(usage('per_call', 1000, 40, 100));
    expect(records().map((record) => record.tokens)).toEqual([{ input: 1000, output: 40, cachedInput: 100, reasoning: 0 }]);
    recorder.report(usage('per_call', 1100, 20, 120));
    recorder.report(usage('per_call', 900, 10));
    const [record] = records();
    expect(record).toMatchObject({
      runId: run.id,
      attemptNumber: 1,
      attemptId: b.core.ledger.runs.attempts(run.id)[0]?.id,
      taskId: task.id,
      taskTitle: 'Write the plan',
      projectId: b.projectId,
      agentId: agent.id,
      agentName: 'Planner',
      // The operator's own login: no connection was delivered; priced as the CLI's own provider.
      connectionId: null,
      connectionName: null,
      billing: 'operator_login',
      providerId: 'command',
      priceProvider: 'openai',
      model: 'fixture-model',
      counting: 'per_call',
      reports: 3,
      tokens: { input: 3000, output: 70, cachedInput: 220, reasoning: 0 },
      sessionTotal: null,
      // The day it counts in is the attempt's.
      startedAt: Date.parse(present(run.attempts[0]?.startedAt, 'attempt start')),
    });
    // Each report is announced, so an open run detail follows it.
    expect(changed).toEqual([[run.id], [run.id], [run.id]]);
    // The Compare page counts what was recorded.
    expect(b.core.ledger.runs.reportedTokens(run.id)).toBe(3070);
  });

  it('per_invocation: the last report is the attempt\'s, each attempt its own', async () => {
    const { attempt, records } = await plainRun();
    const first = attempt(1, { resumed: false, id: 'session-1' });
    first.report(usage('per_invocation', 2000, 40, 200, 3));
    first.report(usage('per_invocation', 5400, 75, 300, 7));
    // A resumed invocation reports only its own calls (Claude Code, Gemini CLI): nothing to subtract.
    attempt(2, { resumed: true, id: 'session-1' }).report(usage('per_invocation', 5500, 81, 304, 0));
    expect(records().map((record) => [record.attemptNumber, record.counting, record.reports, record.tokens])).toEqual([
      [1, 'per_invocation', 2, { input: 5400, output: 75, cachedInput: 300, reasoning: 7 }],
      [2, 'per_invocation', 1, { input: 5500, output: 81, cachedInput: 304, reasoning: 0 }],
    ]);
  });

  it('per_session: a resumed turn counts what it added to the session, so the run is not counted twice', async () => {
    const { b, run, attempt, records } = await plainRun();
    attempt(1, { resumed: false, id: 'thread-1' }).report(usage('per_session', 4550, 98, 176, 7));
    const resumed = attempt(2, { resumed: true, id: 'thread-1' });
    resumed.report(usage('per_session', 9227, 204, 416, 18));
    const third = attempt(3, { resumed: true, id: 'thread-1' });
    third.report(usage('per_session', 14032, 308, 720, 23));
    expect(records().map((record) => [record.attemptNumber, record.tokens, record.sessionTotal])).toEqual([
      [1, { input: 4550, output: 98, cachedInput: 176, reasoning: 7 }, { input: 4550, output: 98, cachedInput: 176, reasoning: 7 }],
      [2, { input: 4677, output: 106, cachedInput: 240, reasoning: 11 }, { input: 9227, output: 204, cachedInput: 416, reasoning: 18 }],
      [3, { input: 4805, output: 104, cachedInput: 304, reasoning: 5 }, { input: 14032, output: 308, cachedInput: 720, reasoning: 23 }],
    ]);
    // The run's total is the session's, once.
    const total = records().reduce((sum, record) => sum + record.tokens.input + record.tokens.output, 0);
    expect(total).toBe(14032 + 308);
    expect(b.core.ledger.runs.reportedTokens(run.id)).toBe(14032 + 308);
  });

  it('per_session: a fresh session (the configuration changed, a retry) is counted whole, whatever it is called', async () => {
    const { attempt, records } = await plainRun();
    attempt(1, { resumed: false, id: 'thread-1' }).report(usage('per_session', 4550, 98));
    // A new thread after a model change: nothing of it came before.
    attempt(2, { resumed: false, id: 'thread-2' }).report(usage('per_session', 4600, 99));
    // A retry launches fresh too, even where the CLI reuses a session name: its counter starts at nothing.
    attempt(3, { resumed: false, id: 'thread-2' }).report(usage('per_session', 4700, 100));
    expect(records().map((record) => record.tokens.input)).toEqual([4550, 4600, 4700]);
  });

  it('per_session: a resumed total below the session\'s last one is a counter that started again, counted whole', async () => {
    const { attempt, records } = await plainRun();
    attempt(1, { resumed: false, id: 'thread-1' }).report(usage('per_session', 9227, 204));
    attempt(2, { resumed: true, id: 'thread-1' }).report(usage('per_session', 4600, 99));
    expect(records().map((record) => [record.tokens.input, record.tokens.output])).toEqual([
      [9227, 204],
      [4600, 99],
    ]);
  });

  it('per_session: a resumed attempt that reports several totals counts from the previous attempt\'s last one', async () => {
    const { attempt, records } = await plainRun();
    attempt(1, { resumed: false, id: 'thread-1' }).report(usage('per_session', 1000, 10));
    const second = attempt(2, { resumed: true, id: 'thread-1' });
    second.report(usage('per_session', 2000, 20));
    second.report(usage('per_session', 3500, 35));
    expect(records().map((record) => [record.reports, record.tokens.input, record.tokens.output])).toEqual([
      [1, 1000, 10],
      [2, 2500, 25],
    ]);
  });

  it('names the task, agent and connection as they were when the attempt first reported', async () => {
    const { b, task, agent, attempt, records } = await plainRun();
    await b.call('updateTask', { taskId: task.id, title: 'Write the better plan' });
    await b.call('updateAgent', { agentId: agent.id, name: 'Senior planner' });
    attempt(1, { resumed: false, id: null }).report(usage('per_call', 10, 1));
    expect(records()[0]).toMatchObject({ taskTitle: 'Write the better plan', agentName: 'Senior planner' });
  });
});

describe('usage through the run lifecycle', () => {
  it('a Codex-like session resumed twice: each attempt counts its own turn, the Compare page the run once; a fresh session after a model change whole', async () => {
    const b = await connectionBed();
    const connection = await createConnection(b, { name: 'Team OpenAI' });
    const agent = await codexAgent(b, 'codex-like', 'default', { homeMode: 'isolated' });
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await b.createTask('Plan it');
    const changed: string[] = [];
    b.core.events.listen((event, payload) => {
      if (event === 'usageChanged') changed.push(...(payload as { runIds: string[] }).runIds);
    });
    const first = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(first.status).toBe('succeeded');
    await b.call('resumeRun', { runId: first.id, prompt: 'Now add tests' });
    const second = await b.waitForRun(first.id, (run) => run.attempts.length === 2 && ended(run));
    expect(second.status).toBe('succeeded');

    // What the CLI printed: its running total, the second turn's including the first's.
    const { events } = await b.call('listRunEvents', { runId: first.id });
    const reported = events.filter((event) => event.kind === 'usage').map((event) => [event.attempt, event.data.inputTokens, event.data.outputTokens, event.data.counting]);
    expect(reported).toEqual([
      [1, 1234, 567, 'per_session'],
      [2, 2468, 1134, 'per_session'],
    ]);
    // What the console recorded: each turn once.
    const usageOf = () => b.call('getRunUsage', { runId: first.id });
    const afterResume = await usageOf();
    expect(afterResume).toMatchObject({
      reported: true,
      billing: 'api_key',
      providerId: 'fixture-codex',
      model: 'model-a',
      total: { input: 2468, output: 1134, cachedInput: 0, reasoning: 0 },
    });
    expect(afterResume.attempts.map((entry) => [entry.attemptNumber, entry.tokens.input, entry.tokens.output, entry.counting, entry.reports])).toEqual([
      [1, 1234, 567, 'per_session', 1],
      [2, 1234, 567, 'per_session', 1],
    ]);
    const [record] = b.core.ledger.usage.ofRun(first.id);
    expect(record).toMatchObject({ connectionId: connection.id, connectionName: 'Team OpenAI', priceProvider: 'openai', billing: 'api_key' });
    expect(changed).toContain(first.id);
    // The Compare page: the run's tokens once (not 1234 + 567 + 2468 + 1134, the raw reports' sum).
    const compared = await b.call('compareTaskRuns', { taskId: task.id });
    expect(compared.runs.find((entry) => entry.runId === first.id)?.tokens).toBe(2468 + 1134);

    // The model changed: the old thread no longer fits, a fresh one starts, and all of it is new.
    await b.call('updateAgent', { agentId: agent.id, model: 'model-b' });
    await b.call('resumeRun', { runId: first.id, prompt: 'And the docs' });
    const third = await b.waitForRun(first.id, (run) => run.attempts.length === 3 && ended(run));
    expect(third.status).toBe('succeeded');
    const afterFresh = await usageOf();
    expect(afterFresh.attempts.map((entry) => [entry.attemptNumber, entry.tokens.input, entry.tokens.output])).toEqual([
      [1, 1234, 567],
      [2, 1234, 567],
      [3, 1234, 567],
    ]);
    expect(afterFresh.total).toEqual({ input: 3702, output: 1701, cachedInput: 0, reasoning: 0 });
  });

  it('a CLI that reports no usage: the run says so, billed as its admission says', async () => {
    const b = await openRunTestBed();
    beds.push(b);
    const agent = await b.createAgent(['--lines', '1']);
    const task = await b.createTask();
    const run = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(await b.call('getRunUsage', { runId: run.id })).toEqual({
      reported: false,
      billing: 'operator_login',
      providerId: 'command',
      model: 'fixture-model',
      attempts: [],
      total: { input: 0, output: 0, cachedInput: 0, reasoning: 0 },
      cost: { amount: 0, currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 },
    });
    expect(b.core.ledger.runs.reportedTokens(run.id)).toBeNull();
  });
});
