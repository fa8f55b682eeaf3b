import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProviderCatalog } from '../providers/catalog';
import { isProcessGroupAlive } from '../platform/process-group';
import { attemptStarts } from './attempt-output';
import { openRunTestBed, present, timeOf, type RunTestBed } from '../testing/run-test-kit';

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

function outputText(b: RunTestBed, runId: string): string {
  const total = b.core.ledger.output.totalBytes(runId);
  return new TextDecoder().decode(b.core.ledger.output.read(runId, 0, total).bytes);
}

describe('a run', () => {
  it('goes queued → admitted → preparing → running → succeeded, in its own worktree, with everything in the ledger', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--json-events', '--write-file', 'notes/plan.md', '--lines', '3', '--delay-ms', '20']);
    const task = await b.createTask();
    const statuses = new Set<string>();
    b.core.events.listen((event, payload) => {
      if (event === 'runsChanged') for (const id of (payload as { runIds: string[] }).runIds) statuses.add(b.core.ledger.runs.row(id)!.status);
    });
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);

    expect(run.status).toBe('succeeded');
    expect([...statuses]).toEqual(expect.arrayContaining(['queued', 'admitted', 'preparing', 'running', 'succeeded']));
    expect(run.attempts).toMatchObject([{ number: 1, status: 'succeeded', exitCode: 0 }]);
    // Its own task root: a worktree of the project at a pinned base revision, not the project itself.
    expect(run.cwd).toBe(path.join(b.dataDir, 'tasks', run.id, 'view'));
    expect(run.baseRevision).toMatch(/^[0-9a-f]{40}$/);
    expect(existsSync(path.join(present(run.cwd, 'cwd'), 'notes', 'plan.md'))).toBe(true);
    expect(existsSync(path.join(b.projectDir, 'notes', 'plan.md'))).toBe(false);
    // Locators were written: the process, and the CLI's native session (from its JSON stream).
    const kinds = run.locators.map((locator: { kind: string }) => locator.kind);
    expect(kinds).toEqual(['process', 'session']);
    expect(run.locators[0]?.data).toMatchObject({ pid: expect.any(Number), pgid: expect.any(Number) });
    expect(run.locators[1]?.data).toMatchObject({ id: 'fixture-thread' });
    expect(run.locators[1]?.revision).toMatch(/^[0-9a-f]{64}$/);
    // The output, byte for byte, and the parsed timeline beside it.
    expect(outputText(b, run.id)).toContain('line 3 of 3');
    expect(run.outputBytes).toBe(b.core.ledger.output.totalBytes(run.id));
    const { events } = await b.call('listRunEvents', { runId: run.id });
    expect(events.map((event: { kind: string }) => event.kind)).toEqual(
      expect.arrayContaining(['session', 'message', 'tool_call', 'tool_result', 'file_change', 'usage']),
    );
    expect(events.find((event) => event.kind === 'usage')?.data).toMatchObject({ inputTokens: 1234, outputTokens: 567 });
    // The submission: ready for review, with an identity every run of this task shares.
    expect(run.submission).toMatchObject({ readyForReview: true, artifactIdentity: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const again = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const second = await b.waitForRun(again.id, ended);
    expect(second.submission?.artifactIdentity).toBe(present(run.submission, 'submission').artifactIdentity);
  });

  it('waits in the queue while its agent is at capacity', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--sleep-ms', '600']);
    const task = await b.createTask();
    const first = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const second = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    await b.waitForRun(first.id, (run) => run.status === 'running');
    expect((await b.call('getRun', { runId: second.id })).status).toBe('queued');
    await b.waitForRun(first.id, ended);
    const done = await b.waitForRun(second.id, ended);
    expect(done.status).toBe('succeeded');
    expect(timeOf(done.startedAt)).toBeGreaterThanOrEqual(timeOf((await b.call('getRun', { runId: first.id })).endedAt));
  });

  it('retries a process exit with backoff, each attempt its own row, then fails with process_exit', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1', '--exit-code', '3']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('failed');
    expect(run.attempts.map((a) => [a.number, a.cause, a.failureCode, a.exitCode])).toEqual([
      [1, 'first', 'process_exit', 3],
      [2, 'retry', 'process_exit', 3],
      [3, 'retry', 'process_exit', 3],
    ]);
    expect(run.failure).toMatchObject({ code: 'process_exit' });
    // The last attempt's failure is the run's: it does not promise another try.
    expect(run.failure?.message).not.toMatch(/try again/i);
    const { events } = await b.call('listRunEvents', { runId: run.id });
    expect(events.filter((event: { kind: string }) => event.kind === 'retry_scheduled')).toHaveLength(2);
    // Output of all three attempts is kept, one after another.
    expect(outputText(b, run.id).match(/line 1 of 1/g)).toHaveLength(3);
  });

  it('fails at once with spawn_failed and a notice naming the CLI when the executable is missing', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1'], { executablePath: '/nowhere/agent-cli' });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('failed');
    expect(run.attempts).toHaveLength(1);
    expect(run.failure).toMatchObject({ code: 'spawn_failed', actionUrl: `#/agents/${agent.id}/executable-path` });
    expect(run.failure?.message).toContain('/nowhere/agent-cli');
    const notices = await b.call('listNotices', {});
    expect(notices).toMatchObject([{ title: expect.stringContaining('not found'), actionUrl: `#/agents/${agent.id}/executable-path`, runId: run.id }]);
  });

  it('fails an attempt that exits 0 after a fatal error (as Pi does on a 401), with the classified code and no retry', async () => {
    const b = await bed();
    // A CLI whose stream ends in the model call's failure, and which exits 0 anyway.
    const failedTurn = JSON.stringify({ type: 'turn.failed', error: { message: 'unexpected status 401 Unauthorized: Incorrect API key provided' } });
    const cli = path.join(b.dataDir, 'exits-zero-after-401.sh');
    writeFileSync(cli, `#!/bin/sh\nprintf '%s\\n' '{"type":"thread.started","thread_id":"t-1"}' '${failedTurn}'\nexit 0\n`, { mode: 0o755 });
    const agent = await b.createAgent(['{prompt}'], { executablePath: cli });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('failed');
    expect(run.failure, JSON.stringify(run.failure)).toMatchObject({ code: 'auth_required', actionUrl: `#/agents/${agent.id}` });
    expect(run.attempts).toMatchObject([{ status: 'failed', failureCode: 'auth_required', exitCode: 0 }]);
    expect(run.submission).toBeNull();
    expect(await b.call('listNotices', { runId: run.id })).toMatchObject([{ code: 'auth_required' }]);
  });

  it('notes the usage limit it hit and waits for the reset it states (the retry itself: run-lifecycle.test.ts)', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--rate-limit']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const waiting = await b.waitForRun(started.id, (run) => run.attempts[0]?.status === 'failed');
    expect(waiting.attempts[0]?.failureCode).toMatch(/rate_limited|quota_exhausted/);
    expect(timeOf(waiting.attempts[0]?.retryAt)).toBeGreaterThan(Date.now());
    const { events } = await b.call('listRunEvents', { runId: started.id });
    const quota = events.find((event: { kind: string }) => event.kind === 'quota_observed');
    expect(quota?.data).toMatchObject({ provider: 'command', target: 'fixture-model', resetAt: expect.any(String) });
    await b.call('stopRun', { runId: started.id });
    expect((await b.call('getRun', { runId: started.id })).status).toBe('cancelled');
  });

  it('stops: SIGTERM to the process group, SIGKILL after the grace, and the run is cancelled', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--spawn-child', '--ignore-sigterm', '--sleep-ms', '60000']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const running = await b.waitForRun(started.id, (run) => run.status === 'running' && run.outputBytes > 0);
    const pgid = present(running.locators.find((locator) => locator.kind === 'process'), 'process locator').data.pgid as number;
    await b.call('stopRun', { runId: started.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('cancelled');
    // Killed by a signal, so no exit code (node-pty says 0, which read as "exit 0 (SIGKILL)").
    expect(run.attempts[0]).toMatchObject({ status: 'cancelled', failureCode: 'cancelled', exitCode: null, signal: 'SIGKILL' });
    expect(isProcessGroupAlive(pgid)).toBe(false);
  });

  it('takes input and a resize while it runs', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--print-size', '--echo-input']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    await b.waitForRun(started.id, (run) => run.status === 'running' && outputText(b, run.id).includes('ready'));
    expect(await b.call('resizeRun', { runId: started.id, cols: 91, rows: 17 })).toEqual({ accepted: true });
    expect(await b.call('sendRunInput', { runId: started.id, data: 'hello\r' })).toEqual({ accepted: true });
    await b.waitForRun(started.id, (run) => outputText(b, run.id).includes('got: hello') && outputText(b, run.id).includes('91x17'));
    await b.call('sendRunInput', { runId: started.id, data: 'quit\r' });
    expect((await b.waitForRun(started.id, ended)).status).toBe('succeeded');
  });

  it('is refused before anything starts when its agent cannot launch', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1']);
    const task = await b.createTask();
    b.core.ledger.db.prepare("UPDATE agents SET profile_id = 'gone' WHERE id = ?").run(agent.id);
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(run.status).toBe('refused');
    const detail = await b.call('getRun', { runId: run.id });
    expect(detail.failure).toMatchObject({ code: 'configuration_incomplete', actionUrl: `#/agents/${agent.id}` });
    expect(detail.attempts).toEqual([]);
    expect(existsSync(path.join(b.dataDir, 'tasks', run.id))).toBe(false);
  });
});

describe('resume', () => {
  it('relaunches the CLI with its native session in the same task root, and starts fresh when the model changed', async () => {
    const b = await bed();
    const agent = await b.call('createAgent', { name: 'codex-like', providerId: 'fixture-codex', model: 'model-a', profileId: 'default' });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const first = await b.waitForRun(started.id, ended);
    expect(first.status).toBe('succeeded');
    const thread = String(present(first.locators.find((locator) => locator.kind === 'session'), 'session locator').data.id);
    expect(thread).toMatch(/^thread-/);
    expect(first.canResume).toBe(true);

    // A follow-up turn: same task root, `resume <thread>` on the CLI's command line.
    await b.call('resumeRun', { runId: first.id, prompt: 'Now add tests' });
    const second = await b.waitForRun(first.id, (run) => run.attempts.length === 2 && ended(run));
    expect(second.status).toBe('succeeded');
    expect(second.cwd).toBe(first.cwd);
    const text = outputText(b, first.id);
    expect(text).toContain(`resumed: ${thread}`);
    expect(text).toContain('prompt: Now add tests');
    expect(second.configFingerprint).toBe(first.configFingerprint);
    // Recorded as the operator's action, not a retry: what the terminal's separator and the notifications read.
    expect(second.attempts.map((attempt) => attempt.cause)).toEqual(['first', 'follow_up']);

    // The agent's model changed: the old session no longer fits, so a fresh one starts, and the timeline says why.
    await b.call('updateAgent', { agentId: agent.id, model: 'model-b' });
    await b.call('resumeRun', { runId: first.id, prompt: 'And the docs' });
    const third = await b.waitForRun(first.id, (run) => run.attempts.length === 3 && ended(run));
    expect(third.status).toBe('succeeded');
    expect(third.configFingerprint).not.toBe(first.configFingerprint);
    const newThread = present(third.locators.find((locator) => locator.kind === 'session'), 'session locator').data.id;
    expect(newThread).not.toBe(thread);
    expect(outputText(b, first.id).match(/resumed: /g)).toHaveLength(1);
    // A fresh session is still the operator's resume, with a follow-up prompt.
    expect(third.attempts.map((attempt) => attempt.cause)).toEqual(['first', 'follow_up', 'follow_up']);
    // A Resume without a prompt, and where each attempt begins as the terminal is told it.
    await b.call('resumeRun', { runId: first.id });
    const fourth = await b.waitForRun(first.id, (run) => run.attempts.length === 4 && ended(run));
    expect(fourth.attempts.map((attempt) => attempt.cause)).toEqual(['first', 'follow_up', 'follow_up', 'resume']);
    expect(attemptStarts(b.core.ledger, loadProviderCatalog(), first.id).map((start) => [start.attempt.number, start.attempt.cause, start.previous?.status ?? null])).toEqual([
      [1, 'first', null],
      [2, 'follow_up', 'succeeded'],
      [3, 'follow_up', 'succeeded'],
      [4, 'resume', 'succeeded'],
    ]);
    const { events } = await b.call('listRunEvents', { runId: first.id });
    const fresh = events.find((event: { kind: string }) => event.kind === 'fresh_session');
    expect(present(fresh, 'fresh_session event').data.reason).toContain('model changed from model-a to model-b');
  });

  it('resumes the session the console named on the command line, whatever id the CLI’s stream reports (Pi)', async () => {
    const b = await bed();
    // Prints the argv, and a session line with Pi's own (internal) id, as Pi does.
    const cli = path.join(b.dataDir, 'pi-like.sh');
    writeFileSync(cli, `#!/bin/sh\necho "argv: $*"\nprintf '%s\\n' '{"type":"session","version":3,"id":"pi-internal-id"}'\n`, { mode: 0o755 });
    const agent = await b.call('createAgent', { name: 'pi-like', providerId: 'fixture-pi', model: 'model-a', profileId: 'default', executablePath: cli });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const first = await b.waitForRun(started.id, ended);
    expect(first.status).toBe('succeeded');
    const locator = present(first.locators.find((entry) => entry.kind === 'session'), 'session locator').data as { dir: string; id: string };
    expect(locator.id).toMatch(/^[0-9a-f-]{36}$/);
    const sessionFile = path.join(locator.dir, `${locator.id}.jsonl`);
    expect(outputText(b, first.id)).toContain(`--session ${sessionFile}`);
    const { events } = await b.call('listRunEvents', { runId: first.id });
    expect(events.filter((event: { kind: string }) => event.kind === 'session').map((event) => event.data.sessionId)).toEqual(['pi-internal-id']);

    await b.call('resumeRun', { runId: first.id, prompt: 'Go on' });
    const second = await b.waitForRun(first.id, (run) => run.attempts.length === 2 && ended(run));
    expect(second.status).toBe('succeeded');
    // The same file again: the stream's id did not replace the one the console resumes by.
    expect(outputText(b, first.id).split(`--session ${sessionFile}`)).toHaveLength(3);
  });

  it("keeps the home mode it was admitted with, while new runs take the agent's current one", async () => {
    const b = await bed();
    const agent = await b.call('createAgent', { name: 'home keeper', providerId: 'fixture-codex', model: 'model-a', profileId: 'default', homeMode: 'preconfigured' });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const first = await b.waitForRun(started.id, ended);
    expect(first.confinement.homeMode).toBe('preconfigured');

    // The agent moves to an isolated home (which would need an AI connection it does not have).
    await b.call('updateAgent', { agentId: agent.id, homeMode: 'isolated' });
    await b.call('resumeRun', { runId: first.id, prompt: 'Carry on' });
    const resumed = await b.waitForRun(first.id, (run) => run.attempts.length === 2 && ended(run));
    expect(resumed.status).toBe('succeeded');
    expect(resumed.confinement.homeMode).toBe('preconfigured');

    const fresh = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(fresh.status).toBe('refused');
    expect((await b.call('getRun', { runId: fresh.id })).failure).toMatchObject({ reason: 'ai_connection_required' });
  });

  it('is not offered for a CLI without native sessions', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--json-events']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.canResume).toBe(false);
    await expect(b.call('resumeRun', { runId: run.id })).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('the run’s workspace', () => {
  it('shows the diff against the base revision, and is cleaned up (its repository and the project’s keep-ref) when the run is archived', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--write-file', 'src/feature.txt']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    const diff = await b.call('getRunDiff', { runId: run.id });
    expect(diff.baseRevision).toBe(run.baseRevision);
    expect(diff.files).toEqual([{ path: 'src/feature.txt', status: 'added', additions: 1, deletions: 0 }]);
    expect(diff.unifiedDiff).toContain('+written by fixture-agent');
    // The run's branch lives in its own repository; the project only keeps a ref at the base, and no branch.
    const projectRefs = () => execFileSync('git', ['for-each-ref', '--format=%(refname)'], { cwd: b.projectDir, encoding: 'utf8' });
    expect(projectRefs()).toContain(`refs/operator-console/runs/${run.id}`);
    expect(projectRefs()).not.toContain('refs/heads/operator-console/');
    expect(execFileSync('git', ['branch', '--show-current'], { cwd: present(run.cwd, 'cwd'), encoding: 'utf8' }).trim()).toBe(`operator-console/${run.id}`);

    const archived = await b.call('archiveRun', { runId: run.id });
    expect(archived.status).toBe('succeeded');
    expect(existsSync(present(run.cwd, 'cwd'))).toBe(false);
    expect(existsSync(present(run.taskRoot, 'task root'))).toBe(false);
    expect(projectRefs()).not.toContain(run.id);
    const after = await b.call('getRun', { runId: run.id });
    expect(after.archived).toBe(true);
    // What its Changes showed stays, and says when the files went.
    expect(await b.call('getRunDiff', { runId: run.id })).toEqual({ ...diff, filesRemovedAt: present(after.landing.filesRemovedAt, 'filesRemovedAt') });
    await expect(b.call('openRunFolder', { runId: run.id })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('is never removed while the run may still go on, and delete takes the record with it', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--sleep-ms', '60000']);
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    await b.waitForRun(started.id, (run) => run.status === 'running');
    await expect(b.call('archiveRun', { runId: started.id })).rejects.toMatchObject({ code: 'conflict' });
    await expect(b.call('deleteRun', { runId: started.id })).rejects.toMatchObject({ code: 'conflict' });
    await b.call('stopRun', { runId: started.id });
    await b.waitForRun(started.id, ended);
    await b.call('deleteRun', { runId: started.id });
    await expect(b.call('getRun', { runId: started.id })).rejects.toMatchObject({ code: 'not_found' });
    expect(existsSync(path.join(b.dataDir, 'tasks', started.id))).toBe(false);
    expect(b.core.ledger.db.prepare('SELECT count(*) AS n FROM output_chunks WHERE run_id = ?').get(started.id)).toEqual({ n: 0 });
  });

  it('runs a sandboxed agent inside bubblewrap, with the confinement shown on the run', async () => {
    const b = await bed();
    // What only the inside of the sandbox shows: its own PID namespace (bubblewrap is PID 1), and
    // none of the console's data dir but the run's own roots (the ledger is not there).
    const probes = ['--shell', 'echo "pid-one=$(cat /proc/1/comm)"', '--print-file', path.join(b.dataDir, 'ledger.sqlite')];
    const agent = await b.createAgent(['--write-file', 'inside.txt', '--print-env', 'HOME', ...probes], { environmentId: 'env_sandboxed', homeMode: 'isolated' });
    // A sandboxed run needs a managed AI connection (issue 5): without one it is refused before it starts.
    const connection = await b.call('createConnection', {
      name: 'Fixture key',
      provider: 'openai',
      method: 'api_key',
      secret: 'sk-test-sandboxed-run-0123456789abcdef',
      ownership: 'shared',
      agentScope: 'all',
    });
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('succeeded');
    expect(run.confinement).toMatchObject({
      environmentKind: 'sandboxed',
      sandbox: 'bubblewrap',
      network: 'provider-only',
      homeMode: 'isolated',
      writableRoots: [run.cwd, expect.stringMatching(/tmp$/), expect.stringMatching(/cache$/), expect.stringMatching(/home$/), expect.stringMatching(/git$/)],
      // The suite runs as root in CI: the run's programs are nobody, and a seccomp filter is loaded.
      runsAs: process.getuid?.() === 0 ? expect.stringContaining('nobody') : null,
      syscallFilter: true,
    });
    const output = outputText(b, run.id);
    expect(output).toContain(`HOME=${path.join(b.dataDir, 'tasks', run.id, 'home')}`);
    expect(output).toContain('pid-one=bwrap');
    expect(output).toContain(`file ${path.join(b.dataDir, 'ledger.sqlite')}: ENOENT`);
    expect(existsSync(path.join(present(run.cwd, 'cwd'), 'inside.txt'))).toBe(true);

    // The same probes from a local run see the host: the assertions above can only pass inside.
    const local = await b.createAgent(probes);
    const outside = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: local.id })).id, ended);
    expect(outputText(b, outside.id)).not.toContain('pid-one=bwrap');
    expect(outputText(b, outside.id)).not.toContain('ledger.sqlite: ENOENT');
  });
});
