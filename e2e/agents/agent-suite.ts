import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TimelineEvent, TimelineEventKind } from '../../electron/providers/events/timeline-event';
import { ensureAgentClis } from './install.mjs';
import type { EgressCanary, FailurePlan, ModelServer } from './model-servers';
import { conversationOf, protocolFor, requestedModel, startEgressCanary, startModelServer } from './model-servers';
import type { AgentProviderId, AgentWorkspace, RunCliOptions, RunCliResult } from './run-cli';
import { cliVersion, createWorkspace, filesContaining, listFiles, providerEntry, runCli } from './run-cli';

/**
 * The shared suite every real CLI goes through (one test file per CLI calls describeAgent). Each test
 * runs the CLI once, bounded at 60 s, against its protocol's scripted model server; what differs
 * between the CLIs — where the key arrives, which events they print, how they fail — is in
 * AgentExpectations, so a change in a CLI's behaviour shows up as a named expectation failing.
 */

export interface AgentExpectations {
  /** The header the API key arrives in, and its exact value for a key. */
  keyHeader: 'authorization' | 'x-api-key' | 'x-goog-api-key';
  keyValue(apiKey: string): string;
  /** A successful run's timeline shows all of these besides assistant messages, usage and the session. */
  workEvents: TimelineEventKind[];
  /** Where the CLI keeps the session it can resume, inside its provider home. */
  sessionState: RegExp;
  /** The exit code on a 401, or 'nonzero'. (Pi exits 0 and reports the failure only in its stream.) */
  exitOn401: number | 'nonzero';
  /** Whether the 429's reset hint (Retry-After, "try again in Ns") reaches the console's classifier. */
  resetObserved: boolean;
  /** Whether the CLI gets over one dropped stream on its own (with its own retries set to 0). */
  recoversFromOneDrop: boolean;
  /** Extra failure modes this provider has (Gemini: HTTP 400 API_KEY_INVALID). */
  invalidKeyStatus?: number;
}

export const testApiKey = (providerId: string) => `sk-e2e-${providerId}-0123456789abcdef`;
const firstPrompt = 'Please create the file hello.txt with a greeting.';
const secondPrompt = 'Thanks. Now create the file second.txt as well.';
const keepWorkspaces = process.env.E2E_AGENTS_KEEP === '1';
/**
 * Timeouts set here rather than only in vitest.config.ts, so the tests keep them when the root config
 * (testTimeout 20 s) runs this directory: a CLI run is bounded at 60 s by run-cli.ts; a test makes at
 * most one run; the first install of the CLIs (npm ci) can take minutes.
 */
export const cliTestTimeoutMs = 90_000;
export const installTimeoutMs = 15 * 60_000;

export function describeAgent(providerId: AgentProviderId, expected: AgentExpectations): void {
  const provider = providerEntry(providerId);
  const protocol = protocolFor[providerId];
  const apiKey = testApiKey(providerId);

  describe(`${provider.displayName} (${providerId}) against a local ${protocol} server`, { timeout: cliTestTimeoutMs }, () => {
    let server: ModelServer;
    let canary: EgressCanary;
    const workspaces: AgentWorkspace[] = [];
    let firstRun: { result: RunCliResult; workspace: AgentWorkspace } | null = null;

    beforeAll(async () => {
      await ensureAgentClis();
      server = await startModelServer(protocol);
      canary = await startEgressCanary();
    }, installTimeoutMs);

    afterAll(async () => {
      writeReport(providerId);
      await server?.close();
      await canary?.close();
      if (!keepWorkspaces) for (const workspace of workspaces) workspace.cleanup();
    });

    function workspace(): AgentWorkspace {
      const created = createWorkspace(providerId);
      workspaces.push(created);
      return created;
    }

    async function run(options: Partial<RunCliOptions> & { failure?: FailurePlan | null; workspace: AgentWorkspace }): Promise<RunCliResult> {
      server.setFailure(options.failure ?? null);
      server.clearRequests();
      const { failure: _failure, ...rest } = options;
      const result = await runCli({
        providerId,
        connection: { baseUrl: server.baseUrl, apiKey },
        prompt: firstPrompt,
        egressProxyUrl: canary.url,
        timeoutMs: 60_000,
        ...rest,
      });
      server.setFailure(null);
      recordRun(providerId, expect.getState().currentTestName ?? '', result, server);
      return result;
    }

    function describeRun(result: RunCliResult): string {
      return [
        `exit ${result.exitCode} signal ${result.signal} timedOut ${result.timedOut} in ${result.durationMs} ms`,
        `argv: ${result.launch.executable} ${JSON.stringify(result.launch.args)}`,
        `requests: ${server.requests.map((request) => `${request.method} ${request.url} → ${JSON.stringify(request.outcome)}`).join('; ')}`,
        `stderr: ${result.stderr.slice(-1500)}`,
        `stdout: ${result.stdout.slice(-3000)}`,
      ].join('\n');
    }

    test('reports the version its definition was checked against', async () => {
      const version = await cliVersion(providerId);
      expect(version).toContain(provider.definition.testedVersion ?? '(no tested version)');
    });

    test('runs a task with a managed connection: writes the file, shows the work in the timeline, succeeds', async () => {
      const ws = workspace();
      const result = await run({ workspace: ws });
      const context = describeRun(result);
      firstRun = { result, workspace: ws };

      expect(result.timedOut, context).toBe(false);
      expect(result.exitCode, context).toBe(0);
      expect(result.failure, context).toBeNull();

      // The model asked for the file; the CLI wrote it in its working directory.
      const written = path.join(ws.taskRoot.view, server.script.fileName);
      expect(existsSync(written), context).toBe(true);
      expect(readFileSync(written, 'utf8')).toBe(server.script.fileContent);

      // The scripted conversation ran to its end: tool call, then the final answer.
      const outcomes = server.modelRequests().map((request) => request.outcome.type);
      expect(outcomes, context).toContain('tool_call');
      expect(outcomes.at(-1), context).toBe('final');

      // The server was asked for the model the agent names, exactly (Pi through the console's
      // provider entry included: `anthropic/claude-sonnet-4-6`, not `claude-sonnet-4-6`).
      const asked = server.modelRequests().filter((request) => request.outcome.type !== 'side').map(requestedModel);
      expect(asked.length, context).toBeGreaterThan(0);
      for (const model of asked) expect(model, context).toBe(result.model);

      // The key arrived in the provider's header, on every model request, and nowhere in the URL.
      for (const request of server.modelRequests()) {
        expect(request.headers[expected.keyHeader], context).toBe(expected.keyValue(apiKey));
        expect(request.url).not.toContain(apiKey);
      }
      // ... and it is in none of the CLI's output.
      expect(result.stdout).not.toContain(apiKey);
      expect(result.stderr).not.toContain(apiKey);

      // The console's parser sees the work.
      const kinds = new Set(result.events.map((event) => event.kind));
      expect(result.events.some((event) => event.kind === 'message' && event.role === 'assistant'), context).toBe(true);
      expect(kinds.has('usage'), context).toBe(true);
      for (const kind of expected.workEvents) expect(kinds.has(kind), `expected a ${kind} event; got ${[...kinds].join(', ')}`).toBe(true);
      const usage = result.events.filter((event): event is Extract<TimelineEvent, { kind: 'usage' }> => event.kind === 'usage');
      expect(usage.some((event) => event.inputTokens > 0 && event.outputTokens > 0), context).toBe(true);
      expect(result.sessionId, context).toBeTruthy();

      // State stays in the provider home; the task's HOME is untouched; the credentials were removed
      // and the key was not copied anywhere in the task root.
      expect(listFiles(ws.providerHome).some((file) => expected.sessionState.test(file)), listFiles(ws.providerHome).join('\n')).toBe(true);
      expect(listFiles(ws.taskRoot.home)).toEqual([]);
      expect(result.deliveredFiles.every((file) => file.existsAfterRun)).toBe(true);
      for (const file of result.deliveredFiles) expect(existsSync(file.path)).toBe(false);
      expect(filesContaining(ws.taskRoot.root, apiKey)).toEqual([]);

      // Nothing tried to leave 127.0.0.1.
      expect(canary.attempts).toEqual([]);
    });

    test('resumes the session with its native resume arguments; the server sees the earlier conversation', async () => {
      expect(firstRun, 'the first run must have passed').not.toBeNull();
      if (!firstRun) return;
      const { workspace: ws, result: first } = firstRun;
      const sessionId = first.sessionId ?? '';
      const result = await run({
        workspace: ws,
        prompt: secondPrompt,
        session: { mode: 'resume', sessionId, sessionDir: first.sessionDir },
      });
      const context = describeRun(result);
      expect(result.exitCode, context).toBe(0);
      expect(result.failure, context).toBeNull();
      // The resume argv names the recorded session (Pi: as the session file's name).
      expect(result.launch.args.some((arg) => arg === sessionId || arg.includes(`/${sessionId}.`)), context).toBe(true);
      expect(existsSync(path.join(ws.taskRoot.view, 'second.txt')), context).toBe(true);

      const [firstRequest] = server.modelRequests();
      const history = conversationOf(protocol, firstRequest?.body);
      const userText = history.userTexts.join('\n');
      expect(userText, context).toContain(firstPrompt);
      expect(userText, context).toContain(secondPrompt);
      expect(history.assistantTexts.join('\n'), context).toContain(server.script.finalText);
      expect(history.toolResults.length, context).toBeGreaterThanOrEqual(1);
      expect(canary.attempts).toEqual([]);
    });

    test('HTTP 401 → auth_required (owner action, no retry)', async () => {
      const result = await run({ workspace: workspace(), failure: { mode: 'unauthorized' } });
      const context = describeRun(result);
      expect(result.timedOut, context).toBe(false);
      if (expected.exitOn401 === 'nonzero') expect(result.exitCode, context).not.toBe(0);
      else expect(result.exitCode, context).toBe(expected.exitOn401);
      expect(result.failure?.code, context).toBe('auth_required');
      expect(result.failure?.retryable).toBe(false);
      expect(result.failure?.ownerAction).toBe(true);
      expect(server.modelRequests().length, context).toBeLessThanOrEqual(2);
      expect(result.stdout + result.stderr).not.toContain(apiKey);
    });

    if (expected.invalidKeyStatus !== undefined) {
      test(`HTTP ${expected.invalidKeyStatus} invalid API key → auth_required`, async () => {
        const result = await run({ workspace: workspace(), failure: { mode: 'invalid_api_key' } });
        const context = describeRun(result);
        expect(server.modelRequests()[0]?.outcome, context).toMatchObject({ type: 'failure', status: expected.invalidKeyStatus });
        expect(result.failure?.code, context).toBe('auth_required');
      });
    }

    test('HTTP 429 with a reset hint → a quota observation (rate_limited or quota_exhausted)', async () => {
      const retryAfterSeconds = 30;
      const before = Date.now();
      const result = await run({ workspace: workspace(), failure: { mode: 'rate_limited', retryAfterSeconds } });
      const context = describeRun(result);
      expect(result.timedOut, context).toBe(false);
      expect(['rate_limited', 'quota_exhausted'], context).toContain(result.failure?.code);
      expect(result.failure?.retryable).toBe(true);
      const quota = result.failure?.quota;
      expect(quota, context).toBeTruthy();
      if (expected.resetObserved) {
        const resetAt = Date.parse(quota?.resetAt ?? '');
        expect(resetAt, `reset ${quota?.resetAt}\n${context}`).toBeGreaterThan(before + (retryAfterSeconds - 5) * 1000);
        expect(resetAt, `reset ${quota?.resetAt}\n${context}`).toBeLessThan(Date.now() + (retryAfterSeconds + 5) * 1000);
      } else {
        // The CLI does not pass the hint on: the classifier falls back to its default window.
        expect(quota?.resetAt, context).toBeNull();
        expect(Date.parse(quota?.validUntil ?? '')).toBeGreaterThan(before);
      }
    });

    test('a dropped stream → process_exit (retryable)', async () => {
      const result = await run({ workspace: workspace(), failure: { mode: 'drop_stream' } });
      const context = describeRun(result);
      expect(result.timedOut, context).toBe(false);
      expect(result.failure?.code, context).toBe('process_exit');
      expect(result.failure?.retryable).toBe(true);
      expect(server.modelRequests().every((request) => request.outcome.type === 'failure'), context).toBe(true);
    });

    test(`one dropped stream: the CLI ${expected.recoversFromOneDrop ? 'recovers on its own' : 'fails the attempt'}`, async () => {
      const ws = workspace();
      const result = await run({ workspace: ws, failure: { mode: 'drop_stream', count: 1 } });
      const context = describeRun(result);
      expect(result.timedOut, context).toBe(false);
      if (expected.recoversFromOneDrop) {
        expect(result.failure, context).toBeNull();
        expect(existsSync(path.join(ws.taskRoot.view, server.script.fileName)), context).toBe(true);
      } else {
        expect(result.failure?.code, context).toBe('process_exit');
      }
    });
  });
}

/**
 * With E2E_AGENTS_REPORT=<file>, every CLI run is summarized there as one JSON line (what the CLI
 * did: exit code, the classifier's verdict, the requests the server saw), which is how README.md's
 * behaviour table was made. E2E_AGENTS_VERBOSE=1 prints the same summaries.
 */
const reports = new Map<string, unknown[]>();

function recordRun(providerId: string, testName: string, result: RunCliResult, server: ModelServer): void {
  const summary = {
    provider: providerId,
    test: testName.split(' > ').at(-1),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    failure: result.failure ? { code: result.failure.code, evidence: result.failure.evidence, resetAt: result.failure.quota?.resetAt ?? null } : null,
    events: [...new Set(result.events.map((event) => event.kind))],
    requests: server.requests.map((request) => `${request.method} ${request.url} → ${request.outcome.type}${'status' in request.outcome ? ` ${request.outcome.status}` : ''}`),
  };
  if (process.env.E2E_AGENTS_VERBOSE === '1') console.log(JSON.stringify(summary));
  const list = reports.get(providerId) ?? [];
  list.push(summary);
  reports.set(providerId, list);
}

function writeReport(providerId: string): void {
  const file = process.env.E2E_AGENTS_REPORT;
  if (!file) return;
  for (const summary of reports.get(providerId) ?? []) appendFileSync(file, `${JSON.stringify(summary)}\n`);
}
