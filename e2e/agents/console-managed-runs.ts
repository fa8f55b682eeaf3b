import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Notice, RunDetail, RunEvent } from '../../shared/entities';
import { addTokens, type RunUsage, type TokenCounts } from '../../shared/usage';
import { credentialDelivery } from '../../electron/providers/credential-delivery';
import { redactionMarker } from '../../electron/platform/secret-redaction';
import { consoleTestTimeoutMs, firstFile, installTimeoutMs, runTimeoutMs, type ConsoleExpectations } from './console-expectations';
import type { ConsoleBed } from './console-harness';
import { agentModelFor, ended, listTree, openConsoleBed, plantedOperatorKeys } from './console-harness';
import { ensureAgentClis } from './install.mjs';
import { conversationOf, protocolFor, requestedModel, sumReportedUsage, type RecordedRequest } from './model-servers';
import type { AgentProviderId } from './run-cli';
import { filesContaining, providerEntry } from './run-cli';

/**
 * The console's own way of running a CLI, points 1–5 of console-suite.ts: sandboxed, the provider-only
 * network, an isolated home and a managed AI connection. One console serves every test; the first
 * run's results are kept for the tests that look at what it left.
 */

const secondPrompt = 'Thanks. Now create the file second.txt as well.';

const kinds = (events: RunEvent[]) => [...new Set(events.map((event) => event.kind))];
const ofKind = (events: RunEvent[], kind: string) => events.filter((event) => event.kind === kind);
const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

export function describeManagedRuns(providerId: AgentProviderId, expected: ConsoleExpectations): void {
  const provider = providerEntry(providerId);
  const protocol = protocolFor[providerId];

  describe(`${provider.displayName} through the console: sandboxed, provider-only network, isolated home, managed AI connection`, { timeout: consoleTestTimeoutMs }, () => {
    let bed: ConsoleBed;
    let first: { runId: string; detail: RunDetail; events: RunEvent[]; deliveredSeen: Map<string, { mode: number }[]>; served: TokenCounts } | null = null;

    /**
     * What the console must have recorded for an attempt whose model requests these were: what the
     * server reported, summed (the reasoning part only where the CLI says how much it was).
     */
    function servedUsage(requests: RecordedRequest[]): TokenCounts {
      const served = sumReportedUsage(requests);
      return expected.reportsReasoning ? served : { ...served, reasoning: 0 };
    }

    beforeAll(async () => {
      await ensureAgentClis();
      bed = await openConsoleBed(providerId, { mode: 'managed' });
    }, installTimeoutMs);
    afterAll(async () => {
      // Every process group the runs started is gone once the console has closed.
      if (bed) expect(await bed.close()).toEqual([]);
    });

    /** The files the console delivers for this connection (from its own delivery code). */
    function deliveredFiles(runId: string): string[] {
      const delivery = credentialDelivery({
        definition: provider.definition,
        connection: { provider: bed.connection!.provider, method: 'api_key', baseUrl: bed.server.baseUrl },
        secret: bed.apiKey,
        model: agentModelFor[providerId],
      });
      return delivery.files.map((file) => path.join(bed.providerHome(runId), file.relativePath));
    }

    async function startAndWait(fileName: string, done?: (run: RunDetail) => boolean) {
      const task = await bed.createTask(fileName);
      const run = await bed.startRun(task.id);
      expect(run.status, 'admitted, not refused').not.toBe('refused');
      const detail = await bed.waitForRun(run.id, done, runTimeoutMs);
      return { runId: run.id, detail, events: await bed.events(run.id), context: await bed.describe(run.id) };
    }

    test('the agent page\'s version check runs the installed CLI: it is the catalog\'s testedVersion', async () => {
      const answer = await bed.call<{ version: string | null; testedVersion: string | null; message: string }>('getAgentCliVersion', { agentId: bed.agent.id });
      expect(answer.testedVersion).toBe(provider.definition.testedVersion);
      expect(answer.version, answer.message).toBe(provider.definition.testedVersion);
      expect(answer.message).toContain('the version the console was tested with');
    });

    test('1. runs the task: the PTY shows the CLI live, the timeline its work, the file is in view and diff, the run succeeds', async () => {
      bed.server.setFailure(null);
      bed.server.clearRequests();
      const task = await bed.createTask(firstFile);
      const deliveredSeen = new Map<string, { mode: number }[]>();
      let runId = '';
      // While the CLI talks to the server, its delivered files are in place (0600).
      const unsubscribe = bed.server.onRequest(() => {
        if (!runId) return;
        for (const file of deliveredFiles(runId)) {
          const stat = statSync(file, { throwIfNoEntry: false });
          if (stat) deliveredSeen.set(file, [...(deliveredSeen.get(file) ?? []), { mode: stat.mode & 0o777 }]);
        }
      });
      const run = await bed.startRun(task.id);
      runId = run.id;
      // A viewer opens the run's terminal at once; each piece it gets notes how far the conversation was.
      const watch = await bed.watchOutput(run.id, () => bed.server.modelRequests().length);
      const detail = await bed.waitForRun(run.id, ended, runTimeoutMs);
      unsubscribe();
      const events = await bed.events(run.id);
      const context = await bed.describe(run.id);
      const served = servedUsage(bed.server.modelRequests());
      first = { runId: run.id, detail, events, deliveredSeen, served };

      expect(detail.status, context).toBe('succeeded');
      expect(detail.attempts.map((attempt) => attempt.status), context).toEqual(['succeeded']);
      expect(detail.confinement).toMatchObject({ environmentKind: 'sandboxed', sandbox: 'bubblewrap', network: 'provider-only', homeMode: 'isolated' });
      expect(detail.connection?.id).toBe(bed.connection?.id);

      // The PTY: a viewer got the CLI's output while it was running, and the same bytes are in the ledger.
      const output = bed.output(run.id);
      for (const shown of expected.outputShows) expect(output, context).toContain(shown);
      // Live: the viewer had output while the CLI was still talking to the model, not only at the end.
      const modelRequestCount = bed.server.modelRequests().length;
      const early = watch.pieces.filter((piece) => piece.runStatus === 'running' && (piece.probe ?? Infinity) < modelRequestCount);
      expect(early.length, JSON.stringify(watch.pieces)).toBeGreaterThan(0);
      for (let waited = 0; watch.text() !== output && waited < 2000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(watch.text()).toBe(output);
      watch.close();

      // The timeline: the model's message (streamed pieces joined), the CLI's work, usage, its session.
      const script = bed.server.script;
      const assistant = events.filter((event) => event.kind === 'message' && event.data.role === 'assistant').map((event) => text(event.data.text));
      expect(assistant.some((message) => message.includes(script.leadText)), `${assistant.join(' | ')}\n${context}`).toBe(true);
      expect(assistant.some((message) => message.includes(script.finalText)), `${assistant.join(' | ')}\n${context}`).toBe(true);
      for (const kind of expected.workEvents) expect(kinds(events), `expected ${kind}\n${context}`).toContain(kind);
      const changes = ofKind(events, 'file_change').map((event) => text(event.data.path));
      expect(changes.some((change) => change === firstFile || change.endsWith(`/${firstFile}`)), changes.join(', ')).toBe(true);
      const usage = ofKind(events, 'usage');
      expect(usage.some((event) => Number(event.data.inputTokens) > 0 && Number(event.data.outputTokens) > 0), context).toBe(true);
      expect(ofKind(events, 'session').length, context).toBeGreaterThan(0);
      // Usage: each report says how it counts, and what the console recorded for the attempt is exactly
      // what the model server reported for the attempt's requests; billed to the connection's key.
      expect(new Set(usage.map((event) => event.data.counting)), context).toEqual(new Set([expected.usageCounting]));
      const recorded = await bed.call<RunUsage>('getRunUsage', { runId: run.id });
      expect(recorded, context).toMatchObject({ reported: true, billing: 'api_key', providerId, model: agentModelFor[providerId] });
      expect(recorded.attempts.map((attempt) => [attempt.attemptNumber, attempt.counting, attempt.tokens]), context).toEqual([[1, expected.usageCounting, served]]);
      expect(recorded.total).toEqual(served);
      expect(served.input, 'the server reported usage').toBeGreaterThan(0);

      // The network: the CLI reached the model server only through the console's egress proxy.
      const egress = ofKind(events, 'egress').map((event) => event.data);
      const port = Number(new URL(bed.server.origin).port);
      expect(egress.some((decision) => decision.host === '127.0.0.1' && decision.port === port && decision.allowed === true), context).toBe(true);
      expect(egress.filter((decision) => decision.allowed !== true), context).toEqual([]);

      // The work: the file the model asked for, in the run's view and in its diff against the base.
      const view = bed.taskRoot(run.id).view;
      expect(readFileSync(path.join(view, firstFile), 'utf8')).toBe(script.fileContent);
      const diff = await bed.diff(run.id);
      expect(diff.files).toContainEqual({ path: firstFile, status: 'added', additions: expect.any(Number), deletions: 0 });
      expect(diff.unifiedDiff).toContain(script.fileContent.trim());
      // ... and the scripted conversation ran to its end.
      const outcomes = bed.server.modelRequests().map((request) => request.outcome.type);
      expect(outcomes, context).toContain('tool_call');
      expect(outcomes.at(-1), context).toBe('final');
      // ... asking for the agent's model, exactly as the agent names it (Pi: `openai/gpt-5.5`).
      const asked = bed.server.modelRequests().filter((request) => request.outcome.type !== 'side').map(requestedModel);
      expect(new Set(asked), context).toEqual(new Set([agentModelFor[providerId]]));
    });

    test('2. the provider home is in the task cache: the CLI state is there, the operator home untouched, the delivered files gone', () => {
      expect(first, 'the first run must have run').not.toBeNull();
      if (!first) return;
      const { runId } = first;
      const home = bed.providerHome(runId);
      expect(home.startsWith(path.join(bed.dataDir, 'tasks', runId, 'cache') + path.sep)).toBe(true);
      const state = listTree(home);
      expect(state.some((file) => expected.sessionState.test(file)), state.join('\n')).toBe(true);
      // The session the console recorded is that state.
      const locator = first.detail.locators.find((entry) => entry.kind === 'session');
      expect(typeof locator?.data.id).toBe('string');
      // Nothing in the operator's home, nothing in the task's HOME: the CLI kept to its provider home.
      expect(listTree(bed.operatorHome)).toEqual([]);
      expect(listTree(bed.taskRoot(runId).home)).toEqual([]);
      // The connection's files were there while the CLI ran (owner-only), and are gone now.
      const files = deliveredFiles(runId);
      for (const file of files) {
        const seen = first.deliveredSeen.get(file) ?? [];
        expect(seen.length, `${file} was not there while the CLI talked to the server`).toBeGreaterThan(0);
        expect(seen.every((entry) => entry.mode === 0o600), JSON.stringify(seen)).toBe(true);
        expect(existsSync(file), `${file} is still there after the run`).toBe(false);
      }
    });

    test('3. the key reached the server, and is nowhere in the ledger, the timeline or the output', async () => {
      expect(first, 'the first run must have run').not.toBeNull();
      if (!first) return;
      const { runId } = first;
      const modelRequests = bed.server.modelRequests();
      expect(modelRequests.length).toBeGreaterThan(0);
      for (const request of modelRequests) {
        expect(request.headers[expected.keyHeader]).toBe(expected.keyValue(bed.apiKey));
        expect(request.url).not.toContain(bed.apiKey);
      }
      // The operator's own keys (in the console's environment) reached neither the CLI nor the server.
      for (const request of bed.server.requests) {
        const seen = `${JSON.stringify(request.headers)}\n${request.url}\n${request.rawBody}`;
        for (const planted of Object.values(plantedOperatorKeys)) expect(seen).not.toContain(planted);
      }
      const key = Buffer.from(bed.apiKey);
      expect(bed.output(runId)).not.toContain(bed.apiKey);
      expect(JSON.stringify(await bed.events(runId))).not.toContain(bed.apiKey);
      expect(JSON.stringify(await bed.getRun(runId))).not.toContain(bed.apiKey);
      expect(bed.ledgerBytes().includes(key), 'the key is in the ledger file or its WAL').toBe(false);
      expect(JSON.stringify(bed.log.lines)).not.toContain(bed.apiKey);
      // Nor anywhere in the task root: the CLI did not copy it, and the delivered files are gone.
      expect(filesContaining(bed.taskRoot(runId).root, bed.apiKey)).toEqual([]);
    });

    test('3. a key the model repeats is cut from the output, the timeline and the ledger', async () => {
      bed.server.setFailure(null);
      bed.server.clearRequests();
      bed.server.script = { ...bed.server.script, echoCredential: true };
      try {
        const { runId, detail, events, context } = await startAndWait('echo.txt');
        expect(detail.status, context).toBe('succeeded');
        // The CLI printed it (the server put it in the model's text) ...
        const history = conversationOf(protocol, bed.server.modelRequests().at(-1)?.body);
        expect(history.assistantTexts.join('\n'), 'the model said the key').toContain(bed.apiKey);
        // ... and the console cut it before the ledger, the viewers and the timeline saw it.
        const output = bed.output(runId);
        expect(output).not.toContain(bed.apiKey);
        if (expected.textWholeInOutput) expect(output).toContain(`The key I was sent: ${redactionMarker}`);
        const messages = events.filter((event) => event.kind === 'message').map((event) => text(event.data.text));
        expect(messages.some((message) => message.includes(`The key I was sent: ${redactionMarker}`)), messages.join(' | ')).toBe(true);
        expect(JSON.stringify(events)).not.toContain(bed.apiKey);
        expect(bed.ledgerBytes().includes(Buffer.from(bed.apiKey)), 'the key is in the ledger file or its WAL').toBe(false);
      } finally {
        bed.server.script = { ...bed.server.script, echoCredential: false };
      }
    });

    test('4. resume: a second turn relaunches the CLI on its native session, and the server sees the earlier conversation', async () => {
      expect(first, 'the first run must have run').not.toBeNull();
      if (!first) return;
      const { runId } = first;
      const before = await bed.getRun(runId);
      const session = before.locators.find((entry) => entry.kind === 'session');
      const sessionId = String(session?.data.id);
      expect(before.canResume).toBe(true);
      const sessionFiles = () => listTree(bed.providerHome(runId)).filter((file) => expected.sessionState.test(file));
      const sizeOf = (file: string) => statSync(path.join(bed.providerHome(runId), file)).size;
      const stateBefore = new Map(sessionFiles().map((file) => [file, sizeOf(file)]));

      bed.server.setFailure(null);
      bed.server.clearRequests();
      await bed.call('resumeRun', { runId, prompt: secondPrompt });
      const detail = await bed.waitForRun(runId, (run) => ended(run) && run.attempts.length === 2, runTimeoutMs);
      const context = await bed.describe(runId);
      expect(detail.status, context).toBe('succeeded');
      expect(detail.attempts.map((attempt) => attempt.status)).toEqual(['succeeded', 'succeeded']);

      const events = await bed.events(runId);
      // The console resumed the recorded session (it did not start a fresh one) ...
      expect(ofKind(events, 'resumed').map((event) => event.data.sessionId), context).toEqual([sessionId]);
      expect(ofKind(events, 'fresh_session')).toEqual([]);
      // ... the CLI continued that session, in the same state files ...
      const secondAttempt = detail.attempts[1]?.number;
      const streamSessions = events.filter((event) => event.kind === 'session' && event.attempt === secondAttempt).map((event) => event.data.sessionId);
      const firstStreamSessions = first.events.filter((event) => event.kind === 'session').map((event) => event.data.sessionId);
      expect(streamSessions.length, context).toBeGreaterThan(0);
      expect(streamSessions.every((id) => firstStreamSessions.includes(id)), `${streamSessions.join(', ')} vs ${firstStreamSessions.join(', ')}`).toBe(true);
      // The earlier state files are all still there and the conversation grew in them. A CLI may add a file on
      // resume (Gemini CLI names a file for the minute it starts, then switches to the resumed one), but any
      // new file must belong to the same session, never a fresh one.
      const stateAfter = sessionFiles();
      expect(stateAfter.filter((file) => stateBefore.has(file)).sort(), context).toEqual([...stateBefore.keys()].sort());
      expect([...stateBefore].some(([file, size]) => sizeOf(file) > size), [...stateBefore.keys()].join(', ')).toBe(true);
      const sessionTag = sessionId.slice(0, 8);
      expect(stateAfter.filter((file) => !stateBefore.has(file) && !file.includes(sessionTag)), sessionTag).toEqual([]);
      // ... and sent the earlier conversation with the new prompt.
      const [firstRequest] = bed.server.modelRequests();
      const history = conversationOf(protocol, firstRequest?.body);
      const userText = history.userTexts.join('\n');
      expect(userText, context).toContain(`create the file ${firstFile}`);
      expect(userText, context).toContain(secondPrompt);
      expect(history.assistantTexts.join('\n'), context).toContain(bed.server.script.finalText);
      expect(history.toolResults.length, context).toBeGreaterThanOrEqual(1);
      expect(existsSync(path.join(bed.taskRoot(runId).view, 'second.txt')), context).toBe(true);
      expect((await bed.diff(runId)).files.map((file) => file.path).sort()).toEqual([firstFile, 'second.txt']);

      // Usage: the resumed turn is recorded as what its own requests used, and the first turn's stays as
      // it was, so the run is not counted twice, whatever the CLI's reports cover (Codex's second
      // report is the session's total, the first turn included).
      const resumedServed = servedUsage(bed.server.modelRequests());
      const usage = await bed.call<RunUsage>('getRunUsage', { runId });
      expect(usage.attempts.map((attempt) => [attempt.attemptNumber, attempt.counting, attempt.tokens]), context).toEqual([
        [1, expected.usageCounting, first.served],
        [2, expected.usageCounting, resumedServed],
      ]);
      expect(usage.total).toEqual(addTokens(first.served, resumedServed));
      const lastReport = ofKind(events, 'usage').filter((event) => event.attempt === secondAttempt).at(-1);
      const reportedInput = Number(lastReport?.data.inputTokens);
      if (expected.usageCounting === 'per_session') expect(reportedInput, context).toBe(first.served.input + resumedServed.input);
      else if (expected.usageCounting === 'per_invocation') expect(reportedInput, context).toBe(resumedServed.input);
      // The Compare page counts the run once too.
      const compared = await bed.call<{ runs: Array<{ runId: string; tokens: number | null }> }>('compareTaskRuns', { taskId: detail.taskId });
      expect(compared.runs.find((entry) => entry.runId === runId)?.tokens).toBe(usage.total.input + usage.total.output);
    });

    test('5. HTTP 401 → auth_required: one attempt, no retry, a notice naming the fix', async () => {
      bed.server.setFailure({ mode: 'unauthorized' });
      bed.server.clearRequests();
      const { runId, detail, events, context } = await startAndWait('denied.txt');
      bed.server.setFailure(null);
      expect(detail.status, context).toBe('failed');
      expect(detail.failure?.code, context).toBe('auth_required');
      expect(detail.attempts.map((attempt) => [attempt.status, attempt.failureCode]), context).toEqual([['failed', 'auth_required']]);
      expect(ofKind(events, 'retry_scheduled')).toEqual([]);
      const notices = await bed.call<Notice[]>('listNotices', { runId });
      expect(notices.map((notice) => [notice.code, notice.status]), context).toEqual([['auth_required', 'open']]);
      expect(notices[0]?.actionUrl).toBe(`#/agents/${bed.agent.id}`);
      expect(bed.server.modelRequests().length, context).toBeLessThanOrEqual(2);
      expect(bed.output(runId)).not.toContain(bed.apiKey);
    });

    test(`5. HTTP 429 → a quota observation and a wait before the retry${expected.resetObserved ? ' (the stated reset), which then succeeds' : ' (the default window: the reset hint does not reach the console), stopped while it waits'}`, async () => {
      const retryAfterSeconds = 2;
      bed.server.setFailure({ mode: 'rate_limited', retryAfterSeconds, count: 1 });
      bed.server.clearRequests();
      const started = Date.now();
      const task = await bed.createTask('limited.txt');
      const run = await bed.startRun(task.id);
      const waiting = await bed.waitForRun(run.id, (detail) => ended(detail) || detail.attempts.length >= 2 || detail.attempts[0]?.retryAt != null, runTimeoutMs);
      const events = await bed.events(run.id);
      let context = await bed.describe(run.id);
      const [quota] = ofKind(events, 'quota_observed');
      expect(quota, context).toBeDefined();
      expect(quota?.data).toMatchObject({ provider: providerId, target: agentModelFor[providerId] });
      const [scheduled] = ofKind(events, 'retry_scheduled');
      expect(scheduled?.data.code, context).toBe('rate_limited');
      const firstAttempt = waiting.attempts[0];
      expect(firstAttempt?.failureCode, context).toBe('rate_limited');
      const retryAt = Date.parse(String(scheduled?.data.retryAt));
      const attemptEnded = Date.parse(String(firstAttempt?.endedAt));
      if (expected.resetObserved) {
        // The stated reset (Retry-After 2 s, "retry in 2s") decides the wait, not the backoff.
        const resetAt = Date.parse(String(quota?.data.resetAt));
        expect(resetAt, context).toBeGreaterThanOrEqual(started + (retryAfterSeconds - 1) * 1000);
        expect(resetAt, context).toBeLessThan(Date.now() + (retryAfterSeconds + 2) * 1000);
        expect(retryAt, context).toBeGreaterThanOrEqual(resetAt);
        const detail = await bed.waitForRun(run.id, ended, runTimeoutMs);
        context = await bed.describe(run.id);
        expect(detail.status, context).toBe('succeeded');
        expect(detail.attempts.map((attempt) => attempt.failureCode), context).toEqual(['rate_limited', null]);
        expect(Date.parse(String(detail.attempts[1]?.startedAt))).toBeGreaterThanOrEqual(retryAt - 50);
      } else {
        expect(quota?.data.resetAt, context).toBeNull();
        // The classifier's default rate-limit window: about a minute after the failure.
        expect(retryAt - attemptEnded, context).toBeGreaterThan(50_000);
        expect((await bed.getRun(run.id)).status, 'waiting to retry').toBe('running');
        await bed.call('stopRun', { runId: run.id });
        const detail = await bed.waitForRun(run.id, ended, 10_000);
        expect(detail.status).toBe('cancelled');
        expect(detail.attempts.map((attempt) => attempt.failureCode)).toEqual(['rate_limited']);
      }
      bed.server.setFailure(null);
    });

    test('5. a dropped stream → process_exit, retried after the backoff, then succeeds', async () => {
      bed.server.setFailure({ mode: 'drop_stream', count: expected.dropsPerAttempt });
      bed.server.clearRequests();
      const { runId, detail, events, context } = await startAndWait('dropped.txt');
      bed.server.setFailure(null);
      expect(detail.status, context).toBe('succeeded');
      expect(detail.attempts.map((attempt) => [attempt.status, attempt.failureCode]), context).toEqual([
        ['failed', 'process_exit'],
        ['succeeded', null],
      ]);
      const [scheduled] = ofKind(events, 'retry_scheduled');
      expect(scheduled?.data.code, context).toBe('process_exit');
      expect(ofKind(events, 'quota_observed')).toEqual([]);
      expect(bed.server.modelRequests().filter((request) => request.outcome.type === 'failure').length, context).toBe(expected.dropsPerAttempt);
      expect(existsSync(path.join(bed.taskRoot(runId).view, 'dropped.txt')), context).toBe(true);
    });
  });
}
