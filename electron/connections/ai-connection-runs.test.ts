import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createClientChannel } from '../events/client-channel';
import {
  bed,
  beds,
  closeConnectionBeds,
  codexAgent,
  codexHome,
  createConnection,
  ended,
  expectNothingStarted,
  key,
  outputText,
  sandboxed,
  servers,
  temps,
} from '../testing/connection-test-kit';
import { startTestModelServer } from '../testing/model-server';
import { present } from '../testing/run-test-kit';
import { makeTempDir } from '../testing/temp-dir';

/**
 * The "AI connection required" rule end to end (issue 5): a real ledger file, real PTYs running the
 * fixture agent, bubblewrap for the sandboxed environment, real git worktrees. Every refused case
 * checks that nothing was started: no task root, no worktree, no decrypted secret, no process.
 */

afterEach(closeConnectionBeds);

describe('admission: AI connection required', () => {
  it('refuses a sandboxed agent with no connection, before anything starts, with a notice that opens the picker', async () => {
    const b = await bed();
    const agent = await b.createAgent(['--lines', '1'], sandboxed);
    const task = await b.createTask('Refactor the parser');
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });

    expect(run.status).toBe('refused');
    const detail = await b.call('getRun', { runId: run.id });
    expect(detail.failure).toEqual({
      code: 'configuration_incomplete',
      reason: 'ai_connection_required',
      message: expect.stringContaining(`Choose an AI connection for ${agent.name}.`),
      actionUrl: `#/agents/${agent.id}/ai-connection`,
    });
    await expectNothingStarted(b, run.id, 0);

    // The notice: named for what to do, naming the agent and the task, opening the agent's picker.
    const notice = present((await b.call('listNotices', {}))[0], 'notice');
    expect(notice).toMatchObject({
      title: 'AI connection required',
      kind: 'ai_connection_required',
      code: 'configuration_incomplete',
      reason: 'ai_connection_required',
      actionLabel: 'Choose an AI connection',
      actionUrl: `#/agents/${agent.id}/ai-connection`,
      agentId: agent.id,
      taskId: task.id,
      runId: run.id,
      runIds: [run.id],
      status: 'open',
      canRunAgain: false,
    });
    expect(notice.message).toContain(agent.name);
    expect(notice.message).toContain('Refactor the parser');
    // The run detail carries the same notice, and listNotices finds it by run.
    expect(detail.notice).toMatchObject({ id: notice.id });
    expect(await b.call('listNotices', { runId: run.id })).toMatchObject([{ id: notice.id }]);

    // An owner action, not a crash: no retry, nothing logged as an error.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await b.call('getRun', { runId: run.id })).attempts).toEqual([]);
    expect(b.log.lines.filter((line) => line.level === 'error')).toEqual([]);

    // An isolated home in the local environment needs one too: it is empty without it.
    const local = await b.createAgent(['--lines', '1'], { homeMode: 'isolated' });
    const localRun = await b.call('startRun', { taskId: task.id, agentId: local.id });
    expect(localRun.status).toBe('refused');
    expect((await b.call('getRun', { runId: localRun.id })).failure?.message).toMatch(/isolated home/);
    await expectNothingStarted(b, localRun.id, 0);
  });

  it('refuses a preconfigured home in a sandboxed environment even with a connection bound: it would drop it', async () => {
    const b = await bed();
    const connection = await createConnection(b);
    const agent = await b.createAgent(['--lines', '1'], { environmentId: 'env_sandboxed', homeMode: 'preconfigured' });
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await b.createTask();
    const run = await b.call('startRun', { taskId: task.id, agentId: agent.id });

    expect(run.status).toBe('refused');
    const detail = await b.call('getRun', { runId: run.id });
    expect(detail.failure).toMatchObject({
      code: 'configuration_incomplete',
      reason: 'ai_connection_required',
      actionUrl: `#/agents/${agent.id}/home-mode`,
    });
    expect(detail.failure?.message).toMatch(/needs an isolated home with a managed AI connection/);
    await expectNothingStarted(b, run.id, 0);
    expect(detail.notice).toMatchObject({ title: 'AI connection required', actionUrl: `#/agents/${agent.id}/home-mode` });
  });

  it('admits an agent in an environment that does not require a connection, and delivers nothing', async () => {
    const b = await bed();
    await createConnection(b);
    const agent = await b.createAgent(['--print-env', 'OPENAI_API_KEY', '--lines', '1']);
    const task = await b.createTask();
    const run = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(run.status).toBe('succeeded');
    expect(run.connection).toBeNull();
    expect(outputText(b, run.id)).toContain('OPENAI_API_KEY is not set');
    expect(b.decrypts()).toBe(0);
  });

  it('defers a run while its connection is being updated, then runs it', async () => {
    const b = await bed();
    const connection = await createConnection(b);
    const agent = await codexAgent(b, 'busy codex', 'default', sandboxed);
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await b.createTask();

    const release = b.core.connections.holdForUpdate(connection.id);
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });
    expect(started.status).toBe('queued');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const waiting = await b.call('getRun', { runId: started.id });
    expect(waiting.status).toBe('queued');
    expect(waiting.failure).toBeNull();
    await expectNothingStarted(b, started.id, 0);
    const { events } = await b.call('listRunEvents', { runId: started.id });
    expect(events).toMatchObject([{ kind: 'admission_deferred', data: { code: 'ai_connection_busy', retryAt: expect.any(String) } }]);
    expect(await b.call('listNotices', {})).toEqual([]);

    release();
    const run = await b.waitForRun(started.id, ended);
    expect(run.status).toBe('succeeded');
    expect(run.connection).toMatchObject({ id: connection.id, name: 'Fixture OpenAI', provider: 'openai' });
    expect(b.decrypts()).toBe(1);
  });
});

describe('delivery and cleanup of a bound connection', () => {
  it('delivers the key into the sandboxed isolated home (0600) and the environment, and removes it after success, failure and stop', async () => {
    const b = await bed();
    const connection = await createConnection(b);
    const task = await b.createTask();

    const startWith = async (profileId: string) => {
      const agent = await codexAgent(b, `codex ${profileId}`, profileId, sandboxed);
      await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
      return (await b.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    };
    const whileRunning = async (runId: string) => {
      await b.waitForRun(runId, (run) => run.status === 'running' && outputText(b, runId).includes('file $CODEX_HOME/config.toml'));
      const output = outputText(b, runId);
      // What the CLI found in its home: the key (redacted in the output, as every delivered secret is)
      // and the config, each readable by its owner only.
      expect(output).toMatch(/file \$CODEX_HOME\/auth\.json: 0600 ".*OPENAI_API_KEY.*\[redacted\]/);
      expect(output).toMatch(/file \$CODEX_HOME\/config\.toml: 0600 ".*cli_auth_credentials_store = \\"file\\"/);
      // The key reached the CLI's environment: it printed it, and the console redacted exactly that value.
      expect(output).toContain('CODEX_API_KEY=[redacted]');
      // On the host, the files live in the console's own folder of the task root, bound read-only into
      // the sandbox: where the agent can write (its cache) there is only the empty file they cover.
      const files = codexHome(b, runId);
      expect(statSync(files.delivered.auth).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(files.delivered.auth, 'utf8'))).toEqual({ OPENAI_API_KEY: key });
      expect(readFileSync(files.auth, 'utf8')).toBe('');
      return files;
    };
    const goneAfter = (files: ReturnType<typeof codexHome>) => {
      for (const file of [files.auth, files.config, files.delivered.auth, files.delivered.config]) expect(existsSync(file)).toBe(false);
    };

    const succeeded = await startWith('shows-key');
    const successFiles = await whileRunning(succeeded);
    expect(outputText(b, succeeded)).toContain(`CODEX_HOME=${successFiles.home}`);
    const success = await b.waitForRun(succeeded, ended);
    expect(success.status).toBe('succeeded');
    expect(success.confinement).toMatchObject({ sandbox: 'bubblewrap', homeMode: 'isolated' });
    goneAfter(successFiles);

    const failed = await startWith('fails');
    const failureFiles = await whileRunning(failed);
    expect((await b.waitForRun(failed, ended)).status).toBe('failed');
    goneAfter(failureFiles);

    const stopped = await startWith('waits');
    const stopFiles = await whileRunning(stopped);
    await b.call('stopRun', { runId: stopped });
    expect((await b.waitForRun(stopped, ended)).status).toBe('cancelled');
    goneAfter(stopFiles);
    // One decrypt per launch, none anywhere else.
    expect(b.decrypts()).toBe(3);
  });

  it('removes the connection files a dead console left behind when the next one starts', async () => {
    const data = makeTempDir('oc-recovery-data-');
    temps.push(data);
    const first = await bed({ dataDir: data.path });
    const connection = await createConnection(first);
    const agent = await codexAgent(first, 'long codex', 'waits', { homeMode: 'isolated' });
    await first.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await first.createTask();
    const runId = (await first.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    await first.waitForRun(runId, (run) => run.status === 'running' && outputText(first, runId).includes('CODEX_API_KEY='));
    const files = codexHome(first, runId);
    expect(existsSync(files.auth)).toBe(true);
    await first.core.close();
    beds.splice(beds.indexOf(first), 1);
    // A crash skips the attempt's cleanup: the files are still there, and the ledger says "running".
    mkdirSync(files.home, { recursive: true });
    writeFileSync(files.auth, JSON.stringify({ OPENAI_API_KEY: key }), { mode: 0o600 });
    writeFileSync(files.config, 'cli_auth_credentials_store = "file"\n', { mode: 0o600 });

    const second = await bed({ dataDir: data.path });
    await second.waitForRun(runId, (run) => run.status === 'stranded');
    expect(existsSync(files.auth)).toBe(false);
    expect(existsSync(files.config)).toBe(false);
    await second.core.close();
    beds.splice(beds.indexOf(second), 1);
    execFileSync('git', ['worktree', 'prune'], { cwd: first.projectDir });
  });

  it('points Codex at the connection’s base URL: a custom model provider, and no auth.json', async () => {
    const b = await bed();
    const server = await startTestModelServer({ key });
    servers.push(server);
    const connection = await createConnection(b, { name: 'Local server', provider: 'custom', baseUrl: `${server.origin}/v1` });
    const agent = await codexAgent(b, 'gateway codex', 'shows-key', sandboxed);
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await b.createTask();
    const runId = (await b.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    await b.waitForRun(runId, (run) => run.status === 'running' && outputText(b, runId).includes('file $CODEX_HOME/config.toml'));
    const config = readFileSync(codexHome(b, runId).delivered.config, 'utf8');
    expect(config).toContain(`base_url = "${server.origin}/v1"`);
    expect(config).toContain('env_key = "CODEX_API_KEY"');
    expect(outputText(b, runId)).toContain('file $CODEX_HOME/auth.json: ENOENT');
    expect(existsSync(codexHome(b, runId).delivered.auth)).toBe(false);
    expect((await b.waitForRun(runId, ended)).status).toBe('succeeded');
  });

  it('lets a provider-only sandboxed run reach the connection’s base URL through the egress proxy, and nothing else', async () => {
    const b = await bed();
    const server = await startTestModelServer({ key });
    const elsewhere = await startTestModelServer({ key });
    servers.push(server, elsewhere);
    const connection = await createConnection(b, { name: 'Local server', provider: 'custom', baseUrl: `${server.origin}/v1` });
    // {{ and }} are literal braces in a command template.
    const fetchModels = (url: string, label: string) =>
      `node -e "fetch('${url}/models', {{ headers: {{ authorization: 'Bearer ' + process.env.OPENAI_API_KEY }} }}).then((r) => console.log('${label} ' + r.status), (e) => console.log('${label} failed'))"`;
    const script = [fetchModels('$OPENAI_BASE_URL', 'allowed'), fetchModels(`${elsewhere.origin}/v1`, 'other')].join('; ');
    const agent = await b.createAgent(['-c', script], { executablePath: '/bin/sh', ...sandboxed });
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await b.createTask();
    const run = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(run.status, outputText(b, run.id)).toBe('succeeded');
    expect(run.confinement).toMatchObject({ sandbox: 'bubblewrap', network: 'provider-only' });
    expect(outputText(b, run.id)).toContain('allowed 200');
    expect(outputText(b, run.id)).toContain('other failed');
    expect(server.requests).toMatchObject([{ path: '/v1/models', headers: { authorization: `Bearer ${key}` } }]);
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('a run resumed from a saved admission', () => {
  it('keeps the contract it was admitted under: admitted before the rule → resumed without a connection', async () => {
    const b = await bed();
    const agent = await codexAgent(b, 'old codex', 'default');
    const task = await b.createTask();
    const first = await b.waitForRun((await b.call('startRun', { taskId: task.id, agentId: agent.id })).id, ended);
    expect(first.status).toBe('succeeded');
    // As a console from before the rule saved it: version 1, an isolated home, no connection fields.
    const row = b.core.ledger.runs.row(first.id)!;
    const v2 = JSON.parse(row.admission_json!);
    const { connectionRequired: _required, connection: _connection, ...rest } = v2;
    const v1 = { ...rest, version: 1, homeMode: 'isolated' };
    b.core.ledger.db.prepare('UPDATE runs SET admission_json = ? WHERE id = ?').run(JSON.stringify(v1), first.id);
    await b.call('updateAgent', { agentId: agent.id, homeMode: 'isolated' });

    // A new run of that agent is refused today...
    expect((await b.call('startRun', { taskId: task.id, agentId: agent.id })).status).toBe('refused');
    // ...but the old run resumes under the contract it was admitted with.
    await b.call('resumeRun', { runId: first.id, prompt: 'Carry on' });
    const resumed = await b.waitForRun(first.id, (run) => run.attempts.length === 2 && ended(run));
    expect(resumed.status).toBe('succeeded');
    expect(resumed.homeMode).toBe('isolated');
    expect(b.decrypts()).toBe(0);

    // A run admitted under the rule is held to it: without a usable connection now, its resume is refused.
    const saved = JSON.parse(b.core.ledger.runs.row(first.id)!.admission_json!);
    expect(saved).toMatchObject({ version: 3, connectionRequired: false });
    b.core.ledger.db
      .prepare('UPDATE runs SET admission_json = ? WHERE id = ?')
      .run(JSON.stringify({ ...saved, connectionRequired: true }), first.id);
    await expect(b.call('resumeRun', { runId: first.id })).rejects.toMatchObject({ code: 'configuration_incomplete', reason: 'ai_connection_required' });
  });
});

describe('redaction of the delivered key', () => {
  it('keeps the key out of the ledger file, the timeline, what a viewer receives, every response and the log', async () => {
    const b = await bed();
    const connection = await createConnection(b, { provider: 'custom', baseUrl: 'http://127.0.0.1:59999/v1', name: 'Custom' });
    // A command agent whose every channel carries the key: a printed variable, a Codex-style JSON error
    // line (which becomes a timeline entry), and a line that splits it across two writes.
    const script = [
      'echo "OPENAI_API_KEY=$OPENAI_API_KEY"',
      // {{ and }} are literal braces in a command template.
      'printf \'{{"type":"error","message":"401 for key %s"}}\\n\' "$OPENAI_API_KEY"',
      'printf "half=%s" "$(printf %s "$OPENAI_API_KEY" | cut -c1-12)"; sleep 0.2; printf "%s\\n" "$(printf %s "$OPENAI_API_KEY" | cut -c13-)"',
    ].join('; ');
    const agent = await b.createAgent(['-c', script], { executablePath: '/bin/sh', ...sandboxed });
    await b.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await b.createTask();
    const started = await b.call('startRun', { taskId: task.id, agentId: agent.id });

    // A viewer subscribed from the start.
    const received: Uint8Array[] = [];
    const client = createClientChannel((event, payload) => {
      if (event === 'runOutput') received.push((payload as { bytes: Uint8Array }).bytes);
    });
    const opened = await b.core.dispatch('openRunOutput', { runId: started.id, from: 'start' }, { transport: 'browser', client });
    expect(opened.ok).toBe(true);
    const pushed: unknown[] = [];
    b.core.events.listen((event, payload) => pushed.push({ event, payload }));

    const run = await b.waitForRun(started.id, ended);
    expect(run.status, `${JSON.stringify(run.failure)} ${outputText(b, run.id)}`).toBe('succeeded');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const text = outputText(b, run.id);
    expect(text).toContain('OPENAI_API_KEY=[redacted]');
    expect(text).toContain('half=[redacted]');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(12));
    const viewer = Buffer.concat(received).toString('utf8');
    expect(viewer).toContain('[redacted]');
    expect(viewer).not.toContain(key);

    const { events } = await b.call('listRunEvents', { runId: run.id });
    const error = present(events.find((event) => event.kind === 'error'), 'error event');
    expect(error.data.message).toBe('401 for key [redacted]');

    const responses = JSON.stringify([
      await b.call('listConnections'),
      await b.call('listConnectionsForAgent', { agentId: agent.id }),
      await b.call('getRun', { runId: run.id }),
      events,
      await b.call('listNotices', { status: 'all' }),
      await b.call('listAgents'),
      await b.call('getVaultInfo'),
      await b.call('testConnection', { connectionId: connection.id }),
      pushed,
    ]);
    expect(responses).not.toContain(key);
    expect(JSON.stringify(b.log.lines)).not.toContain(key);

    // The ledger file itself, main database and write-ahead log, byte for byte.
    b.core.ledger.db.pragma('wal_checkpoint(PASSIVE)');
    const needle = Buffer.from(key, 'utf8');
    for (const file of [b.core.ledger.file, `${b.core.ledger.file}-wal`]) {
      if (existsSync(file)) expect(readFileSync(file).includes(needle), file).toBe(false);
    }
  });
});
