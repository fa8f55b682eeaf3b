import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordUsage } from '../testing/budget-test-kit';
import { bed, closeConnectionBeds, codexAgent, createConnection, ended, expectNothingStarted, type Bed } from '../testing/connection-test-kit';
import { present } from '../testing/run-test-kit';
import { formatLocalMoment } from './budget-wording';
import { startOfDay, startOfNextDay } from './calendar';

/**
 * Budgets as an admission rule (issue 14), end to end: a real ledger file, real PTYs running the
 * fixture agent, real git worktrees. The five cases the AI-connection rule has (spent → refused with
 * nothing started; not spent → admitted; raised → the notice resolves and Run again runs once; the
 * period rolls over; a resumed run keeps its admission), a run that crosses its budget while it runs,
 * and the agent's Test probe. Usage is written as the usage recorder writes it (`ledger.usage.record`).
 */

afterEach(closeConnectionBeds);

/**
 * A console whose clock is today's noon, running at real speed: far from midnight, so a day budget
 * does not roll over in the middle of a test (the rollover test sets its clock near midnight itself).
 */
function atNoon(): () => number {
  const offset = startOfDay(Date.now()) + 12 * 3_600_000 - Date.now();
  return () => Date.now() + offset;
}

async function agentWithSpentBudget(b: Bed, now: () => number) {
  const agent = await b.createAgent(['--lines', '1']);
  // What the fixture's Codex-style events report for one turn: 1,234 in, 567 out.
  recordUsage(b, { agentId: agent.id, agentName: agent.name, at: now(), input: 1234, output: 567 });
  const budget = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 1000 });
  expect(budget).toMatchObject({ spent: 1801, exhausted: true });
  return { agent, budget };
}

async function waitFor<T>(what: string, look: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await look();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('admission: a spent budget', () => {
  it('refuses the run before anything starts, with a “Budget reached” notice that opens the budget', async () => {
    const now = atNoon();
    const b = await bed({ now });
    const { agent, budget } = await agentWithSpentBudget(b, now);
    const task = await b.createTask('Refactor the parser');
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });

    expect(run.status).toBe('refused');
    const detail = await b.call('getRun', { runId: run.id });
    expect(detail.failure).toEqual({
      code: 'configuration_incomplete',
      reason: 'budget_exhausted',
      message:
        `The daily budget of 1,000 tokens for the agent “${agent.name}” is spent: 1,801 tokens used today. ` +
        `It resets at midnight (${formatLocalMoment(startOfNextDay(now()))}). Raise the budget, or wait until then.`,
      actionUrl: `#/settings/budgets/${budget.id}`,
    });
    await expectNothingStarted(b, run.id, 0);

    const notice = present((await b.call('listNotices', {}))[0], 'notice');
    expect(notice).toMatchObject({
      title: 'Budget reached',
      kind: 'budget_exhausted',
      code: 'configuration_incomplete',
      reason: 'budget_exhausted',
      actionLabel: 'Change the budget',
      actionUrl: `#/settings/budgets/${budget.id}`,
      agentId: agent.id,
      taskId: task.id,
      runIds: [run.id],
      status: 'open',
      canRunAgain: false,
    });
    expect(notice.message).toContain(`for the agent “${agent.name}” is spent`);
    expect(notice.message).toContain('“Refactor the parser”');
    expect(notice.message).not.toContain('not retried');
    // An owner action, not a crash: no retry, nothing logged as an error.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await b.call('getRun', { runId: run.id })).attempts).toEqual([]);
    expect(b.log.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('holds a run to its connection’s budget only when the connection’s key is delivered to it', async () => {
    const now = atNoon();
    const b = await bed({ now });
    const connection = await createConnection(b, { name: 'Team key' });
    // An isolated home is given the connection's key; a preconfigured one uses the operator's own login.
    const isolated = await codexAgent(b, 'isolated codex', 'default', { homeMode: 'isolated' });
    const preconfigured = await b.createAgent(['--lines', '1']);
    for (const agent of [isolated, preconfigured]) await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    recordUsage(b, { agentId: 'agt_another', connectionId: connection.id, at: now(), input: 600_000, output: 100_000 });
    // gpt-5: 0.6 × $1.25 + 0.1 × $10 = $1.75.
    const budget = await b.call('saveBudget', { scope: 'connection', targetId: connection.id, measure: 'cost', period: 'day', limit: 1.5 });
    const task = await b.createTask();

    const refused = await b.call('startRun', { taskId: task.id, agentId: isolated.id });
    expect(refused.status).toBe('refused');
    expect((await b.call('getRun', { runId: refused.id })).failure).toMatchObject({
      reason: 'budget_exhausted',
      message: expect.stringMatching(/^The daily budget of ≈ \$1\.50 \(estimated\) for the AI connection “Team key” is spent: ≈ \$1\.75 used today\. It resets at midnight/),
      actionUrl: `#/settings/budgets/${budget.id}`,
    });
    await expectNothingStarted(b, refused.id, 0);

    const admitted = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: preconfigured.id })).id, ended);
    expect(admitted.status).toBe('succeeded');
  });
});

describe('admission: a budget not spent', () => {
  it('admits the run, which runs as any other', async () => {
    const now = atNoon();
    const b = await bed({ now });
    const agent = await b.createAgent(['--lines', '1']);
    recordUsage(b, { agentId: agent.id, at: now(), input: 1234, output: 567 });
    // Yesterday's usage does not count today.
    recordUsage(b, { agentId: agent.id, at: startOfDay(now()) - 1, input: 90_000, output: 0 });
    await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 5000 });
    await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'month', limit: 100_000 });
    const task = await b.createTask();
    const run = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(run.status).toBe('succeeded');
    expect(run.failure).toBeNull();
    expect(await b.call('listNotices', {})).toEqual([]);
    expect(await b.call('testAgent', { agentId: agent.id })).toMatchObject({ ok: true });
  });
});

describe('a “Budget reached” notice', () => {
  it('resolves itself when the budget is raised enough, saying so, and Run again starts each refused task once', async () => {
    const now = atNoon();
    const b = await bed({ now });
    const { agent, budget } = await agentWithSpentBudget(b, now);
    const first = await b.createTask('First task');
    const second = await b.createTask('Second task');
    const refused = [
      await b.call('startRun', { taskId: first.id, agentId: agent.id }),
      await b.call('startRun', { taskId: first.id, agentId: agent.id }),
      await b.call('startRun', { taskId: second.id, agentId: agent.id }),
    ];
    expect(refused.map((run) => run.status)).toEqual(['refused', 'refused', 'refused']);
    const notice = present((await b.call('listNotices', {}))[0], 'notice');
    expect((await b.call('listNotices', {})).map((open) => open.id)).toEqual([notice.id]);
    expect(notice.message).toMatch(/tasks “First task” and “Second task”/);
    await expect(b.call('runAgain', { noticeId: notice.id })).rejects.toMatchObject({ code: 'conflict' });

    // Raised, but not past what was used: still reached, and the notice names the new limit.
    await b.call('saveBudget', { budgetId: budget.id, scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 1500 });
    const still = present((await b.call('listNotices', {}))[0], 'open notice');
    expect(still).toMatchObject({ id: notice.id, status: 'open' });
    expect(still.message).toContain('The daily budget of 1,500 tokens');

    await b.call('saveBudget', { budgetId: budget.id, scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 5000 });
    expect((await b.call('countOpenNotices')).open).toBe(0);
    const resolved = present((await b.call('listNotices', { status: 'resolved' }))[0], 'resolved notice');
    expect(resolved).toMatchObject({
      id: notice.id,
      status: 'resolved',
      canRunAgain: true,
      resolution: `The daily budget for the agent “${agent.name}” was raised to 5,000 tokens.`,
    });

    const again = await b.call('runAgain', { noticeId: notice.id });
    expect(again.alreadyRan).toBe(false);
    expect(again.runs.map((run) => run.taskId)).toEqual([first.id, second.id]);
    expect(await b.call('runAgain', { noticeId: notice.id })).toMatchObject({ alreadyRan: true, runs: again.runs.map((run) => ({ id: run.id })) });
    for (const run of again.runs) expect((await b.waitForRun(run.id, ended)).status).toBe('succeeded');
    expect((await b.call('listRuns', {})).runs).toHaveLength(5);
  });

  it('resolves itself when the budget is removed', async () => {
    const now = atNoon();
    const b = await bed({ now });
    const { agent, budget } = await agentWithSpentBudget(b, now);
    const task = await b.createTask();
    expect((await b.call('startRun', { taskId: task.id, agentId: agent.id })).status).toBe('refused');
    await b.call('deleteBudget', { budgetId: budget.id });
    expect(await b.call('listNotices', { status: 'resolved' })).toMatchObject([{ title: 'Budget reached', resolution: 'The budget was removed.', canRunAgain: true }]);
  });

  it('resolves itself when the period rolls over, and the agent verifies again', async () => {
    // Just before midnight, at real speed: the console's rollover timer fires in about three seconds.
    const offset = startOfNextDay(Date.now()) - 3000 - Date.now();
    const now = () => Date.now() + offset;
    const b = await bed({ now });
    const { agent, budget } = await agentWithSpentBudget(b, now);
    const task = await b.createTask();
    const refused = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(refused.status).toBe('refused');
    expect((await b.call('verifyAgent', { agentId: agent.id })).verification).toMatchObject({ state: 'refused', reason: 'budget_exhausted' });
    let budgetEvents = 0;
    b.core.events.listen((event) => {
      if (event === 'budgetsChanged') budgetEvents += 1;
    });

    const resolved = await waitFor('the notice resolving', async () => (await b.call('listNotices', { status: 'resolved' }))[0]);
    expect(now()).toBeGreaterThanOrEqual(Date.parse(budget.resetsAt));
    expect(resolved).toMatchObject({ title: 'Budget reached', resolution: 'A new day began: the daily budget is whole again.', canRunAgain: true });
    expect(budgetEvents).toBeGreaterThanOrEqual(1);
    expect(await b.call('listBudgets')).toMatchObject([{ id: budget.id, spent: 0, exhausted: false }]);
    expect((await b.call('getAgent', { agentId: agent.id })).verification).toMatchObject({ state: 'ok' });

    const again = await b.call('runAgain', { noticeId: resolved.id });
    expect(again.runs).toHaveLength(1);
    expect((await b.waitForRun(present(again.runs[0], 'new run').id, ended)).status).toBe('succeeded');
  });
});

describe('a run resumed from its saved admission', () => {
  it('keeps it: a spent budget refuses new runs of the agent, not the resume of one it admitted', async () => {
    const now = atNoon();
    const b = await bed({ now });
    const agent = await codexAgent(b, 'resumable codex', 'default');
    const budget = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 1000 });
    const task = await b.createTask();
    const first = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(first.status).toBe('succeeded');

    const turn = present(b.core.ledger.runs.lastAttempt(first.id), 'first attempt');
    recordUsage(b, { agentId: agent.id, runId: first.id, attemptId: turn.id, at: now(), input: 1234, output: 567 });
    expect((await b.call('listBudgets'))[0]).toMatchObject({ id: budget.id, exhausted: true });
    expect((await b.call('startRun', { taskId: task.id, agentId: agent.id })).status).toBe('refused');

    await b.call('resumeRun', { runId: first.id, prompt: 'Carry on' });
    const resumed = await b.waitForRun(first.id, (run) => run.attempts.length === 2 && ended(run));
    expect(resumed.status).toBe('succeeded');
    expect(resumed.failure).toBeNull();
  });
});

describe('a run that crosses its budget while it runs', () => {
  it('finishes its current attempt but is not retried; it fails with the budget’s failure and the notice says so', async () => {
    const b = await bed();
    // Fails with a plain exit, which its profile retries up to three attempts.
    const agent = await b.createAgent(['--sleep-ms', '1200', '--exit-code', '3']);
    const budget = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'month', limit: 1000 });
    const task = await b.createTask('Long task');
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const running = await b.waitForRun(started.id, (run) => run.status === 'running');
    // The attempt reports its usage as it goes: past the budget.
    const attempt = present(b.core.ledger.runs.lastAttempt(started.id), 'attempt');
    recordUsage(b, { agentId: agent.id, runId: running.id, attemptId: attempt.id, at: Date.now(), input: 1234, output: 567 });

    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('failed');
    // The attempt ran to its end (the CLI's own exit), and no other followed.
    expect(run.attempts).toMatchObject([{ number: 1, status: 'failed', failureCode: 'process_exit', exitCode: 3, retryAt: null }]);
    expect(run.failure).toMatchObject({
      code: 'configuration_incomplete',
      reason: 'budget_exhausted',
      actionUrl: `#/settings/budgets/${budget.id}`,
      message: expect.stringMatching(/^The monthly budget of 1,000 tokens for the agent “.+” is spent: 1,801 tokens used this month\. .* The run finished its current attempt and was not retried\.$/),
    });
    const { events } = await b.call('listRunEvents', { runId: run.id });
    expect(events.map((event) => event.kind)).toContain('budget_reached');
    expect(events.map((event) => event.kind)).not.toContain('retry_scheduled');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await b.call('getRun', { runId: run.id })).attempts).toHaveLength(1);

    const notice = present((await b.call('listNotices', {}))[0], 'notice');
    expect(notice).toMatchObject({ title: 'Budget reached', actionLabel: 'Change the budget', runIds: [run.id], status: 'open' });
    expect(notice.message).toContain('The run finished its current attempt and was not retried. (Agent');
    // A run that started is run again too once the budget is whole.
    await b.call('saveBudget', { budgetId: budget.id, scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'month', limit: 10_000 });
    expect(await b.call('listNotices', { status: 'resolved' })).toMatchObject([{ id: notice.id, canRunAgain: true }]);
  });

  it('does not start a waiting retry once the budget was spent meanwhile', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--rate-limit', '--reset-in-ms', '1500']);
    const budget = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'month', limit: 1000 });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const waiting = await b.waitForRun(started.id, (run) => run.attempts[0]?.status === 'failed' && run.attempts[0].retryAt !== null);
    expect(waiting.status).toBe('running');
    // Another run of the agent spends the budget while this one waits for the reset.
    recordUsage(b, { agentId: agent.id, at: Date.now(), input: 1234, output: 567 });

    const run = await b.waitForRun(started.id, ended, 15_000);
    expect(run.status).toBe('failed');
    expect(run.attempts).toMatchObject([{ number: 1, failureCode: 'quota_exhausted', retryAt: null }]);
    expect(run.failure).toMatchObject({ reason: 'budget_exhausted', actionUrl: `#/settings/budgets/${budget.id}`, message: expect.stringContaining('was not retried') });
    expect(existsSync(path.join(b.dataDir, 'tasks', run.id))).toBe(true);
    expect(await b.call('listNotices', {})).toMatchObject([{ title: 'Budget reached', runIds: [run.id] }]);
  });
});

describe('the agent’s Test probe and verification', () => {
  it('report budget_exhausted without starting anything, and verify again once the budget changes', async () => {
    const now = atNoon();
    const b = await bed({ now });
    const { agent, budget } = await agentWithSpentBudget(b, now);
    const tested = await b.call('testAgent', { agentId: agent.id });
    expect(tested).toMatchObject({
      ok: false,
      code: 'configuration_incomplete',
      reason: 'budget_exhausted',
      actionUrl: `#/settings/budgets/${budget.id}`,
      message: expect.stringContaining(`The daily budget of 1,000 tokens for the agent “${agent.name}” is spent`),
    });
    expect(existsSync(path.join(b.dataDir, 'tasks'))).toBe(false);
    expect(b.core.ledger.db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });

    const refused = (await b.call('getAgent', { agentId: agent.id })).verification;
    expect(refused).toMatchObject({ state: 'refused', reason: 'budget_exhausted' });
    expect((await b.call('verifyAgent', { agentId: agent.id })).verification).toEqual(refused);

    await b.call('saveBudget', { budgetId: budget.id, scope: 'agent', targetId: agent.id, measure: 'tokens', period: 'day', limit: 2000 });
    const verified = (await b.call('getAgent', { agentId: agent.id })).verification;
    expect(verified).toMatchObject({ state: 'ok' });
    expect(present(verified, 'verification').configRevision).not.toBe(present(refused, 'refusal').configRevision);
    expect(b.core.ledger.db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
  });
});

describe('a money budget that cannot count a run (a model with no price)', () => {
  it('refuses a run whose model has no price before anything starts; setting the price resolves the notice, and Run again runs and is counted', async () => {
    const now = atNoon();
    const b = await bed({ now });
    // The fixture's Codex-style events report 1,234 input and 567 output tokens; its model has no price in the shipped table.
    const agent = await b.createAgent(['--json-events', '--lines', '1']);
    const budget = await b.call('saveBudget', { scope: 'agent', targetId: agent.id, measure: 'cost', period: 'day', limit: 5 });
    const task = await b.createTask('Plan the refund flow');

    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(run.status).toBe('refused');
    expect((await b.call('getRun', { runId: run.id })).failure).toEqual({
      code: 'configuration_incomplete',
      reason: 'budget_unpriced',
      message:
        `The daily money budget of ≈ $5.00 (estimated) for the agent “${agent.name}” cannot count this run: the price table has no price for fixture-model (openai). ` +
        'Set the price in Settings → Prices (0 for a free model), or make it a token budget; until then the runs it holds are refused.',
      actionUrl: '#/settings/prices?provider=openai&model=fixture-model',
    });
    await expectNothingStarted(b, run.id, 0);
    const notice = present((await b.call('listNotices', {}))[0], 'notice');
    expect(notice).toMatchObject({
      title: 'Budget cannot count this run',
      kind: 'budget_unpriced',
      reason: 'budget_unpriced',
      actionLabel: 'Set the price',
      actionUrl: '#/settings/prices?provider=openai&model=fixture-model',
      runIds: [run.id],
      status: 'open',
    });
    // The agent's Test says the same, without starting anything.
    expect(await b.call('testAgent', { agentId: agent.id })).toMatchObject({ ok: false, reason: 'budget_unpriced' });

    // The operator sets the model's price: the notice resolves itself, saying so.
    const shipped = (await b.call('getPriceTable')).table;
    await b.call('setPriceTable', {
      table: { currency: 'USD', entries: [...shipped.entries, { provider: 'openai', model: 'fixture-model', inputPerMillion: 2, outputPerMillion: 20, cachedInputPerMillion: 0.2 }] },
    });
    const resolved = present((await b.call('listNotices', { status: 'resolved' }))[0], 'resolved notice');
    expect(resolved).toMatchObject({ id: notice.id, canRunAgain: true, resolution: 'fixture-model (openai) has a price now: the money budget counts its runs.' });
    expect((await b.call('getAgent', { agentId: agent.id })).verification).toMatchObject({ state: 'ok' });

    const again = await b.call('runAgain', { noticeId: notice.id });
    expect((await b.waitForRun(present(again.runs[0], 'new run').id, ended)).status).toBe('succeeded');
    // What it used is money now: 1,234 input at $2 and 567 output at $20 per million.
    const counted = (await b.call('listBudgets')).find((each) => each.id === budget.id)!;
    expect(counted.spent).toBeCloseTo(0.013808, 9);
    expect(counted).toMatchObject({ unpriced: { tokens: 0, models: [] }, exhausted: false });
  });

  it('refuses a priced run while the budget’s period holds tokens with no price: it cannot tell whether it is reached', async () => {
    const now = atNoon();
    const b = await bed({ now });
    const connection = await createConnection(b, { name: 'Team key' });
    const agent = await codexAgent(b, 'isolated codex', 'default', { homeMode: 'isolated' });
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    // The agent's own model is priced; another agent on the same key used a model that is not.
    const shipped = (await b.call('getPriceTable')).table;
    await b.call('setPriceTable', {
      table: { currency: 'USD', entries: [...shipped.entries, { provider: 'openai', model: 'model-a', inputPerMillion: 1, outputPerMillion: 1, cachedInputPerMillion: 1 }] },
    });
    recordUsage(b, { agentId: 'agt_another', connectionId: connection.id, at: now(), input: 1234, output: 567, model: 'gpt-9' });
    const budget = await b.call('saveBudget', { scope: 'connection', targetId: connection.id, measure: 'cost', period: 'day', limit: 5 });
    expect(budget).toMatchObject({ spent: 0, exhausted: false, unpriced: { tokens: 1801, models: [{ priceProvider: 'openai', model: 'gpt-9' }] } });

    const refused = await b.call('startRun', { taskId: (await b.createTask()).id, agentId: agent.id });
    expect(refused.status).toBe('refused');
    expect((await b.call('getRun', { runId: refused.id })).failure).toMatchObject({
      reason: 'budget_unpriced',
      message: expect.stringContaining(
        'for the AI connection “Team key” cannot count this run: the price table has no price for gpt-9 (openai). ≈ $0.00 used today counts only what has a price; 1,801 tokens have none.',
      ),
      actionUrl: '#/settings/prices?provider=openai&model=gpt-9',
    });
    await expectNothingStarted(b, refused.id, 0);
  });
});
