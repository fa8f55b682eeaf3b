import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHost, type BrowserHost } from '../../e2e/launchers/browser-host';
import { OperatorError } from '../../shared/errors';
import { contractVersion } from '../../shared/service-hello';
import { ensureConsoleBuilt, repoRoot } from '../testing/built-console';
import { fixtureAgentPath, floodReport } from '../testing/output-test-kit';
import { gitInit } from '../testing/run-test-kit';
import { connectToService, type ServiceConnection } from './service-client';
import { serviceSocketPath } from './service-socket-path';

/**
 * The console service as an operator meets it: real launchers (`node dist/electron/serve.js`), the
 * detached service each finds or starts, real PTYs and the real SQLite ledger, and clients on its
 * socket in this process (the Node client the desktop shell uses) and in processes of their own.
 */

beforeAll(ensureConsoleBuilt, 120_000);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A data directory under the home (as the per-user default is) or under the temporary directory. */
function dataDirIn(where: 'home' | 'tmp'): string {
  const dir = mkdtempSync(path.join(where === 'home' ? homedir() : tmpdir(), 'oc-service-data-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function projectDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'oc-service-project-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  gitInit(dir);
  return dir;
}

async function launch(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<BrowserHost> {
  const host = await startBrowserHost({ dataDir, env });
  cleanups.push(() => host.stop());
  return host;
}

async function attach(dataDir: string): Promise<ServiceConnection> {
  const connection = await connectToService(serviceSocketPath(dataDir), { client: 'node-client' });
  cleanups.push(() => connection.close());
  return connection;
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The run's output as the ledger file holds it, read with SQLite directly (not through the service). */
function ledgerOutput(dataDir: string, runId: string): Buffer {
  const db = new Database(path.join(dataDir, 'ledger.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT byte_offset, bytes FROM output_chunks WHERE run_id = ? ORDER BY byte_offset').all(runId) as Array<{ byte_offset: number; bytes: Buffer }>;
    let expected = 0;
    for (const row of rows) {
      expect(row.byte_offset).toBe(expected);
      expected += row.bytes.length;
    }
    return Buffer.concat(rows.map((row) => row.bytes));
  } finally {
    db.close();
  }
}

/** A terminal opened on a run: the replay from the ledger, acknowledged as it is drawn, checked for gaps. */
async function replay(connection: ServiceConnection, runId: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let subscription: string | undefined;
  let next = 0;
  const early: Array<{ subscriptionId: string; offset: number; bytes: Uint8Array }> = [];
  const take = (message: { subscriptionId: string; offset: number; bytes: Uint8Array }) => {
    expect(message.offset).toBe(next);
    next += message.bytes.length;
    parts.push(Buffer.from(message.bytes));
    connection.ack(message.subscriptionId, message.bytes.length);
  };
  const stop = connection.onEvent((event, payload) => {
    if (event === 'runOutputSkipped' && (payload as { runId: string }).runId === runId) throw new Error('the replay skipped output');
    if (event !== 'runOutput') return;
    const message = payload as { subscriptionId: string; runId: string; offset: number; bytes: Uint8Array };
    if (message.runId !== runId) return;
    if (subscription === undefined) early.push(message);
    else if (message.subscriptionId === subscription) take(message);
  });
  try {
    const opened = await connection.call('openRunOutput', { runId, from: 'start' });
    subscription = opened.subscriptionId;
    for (const message of early.splice(0)) if (message.subscriptionId === subscription) take(message);
    await waitUntil(`the replay of ${runId}`, () => Promise.resolve(next >= opened.totalBytes), 30_000);
    await connection.call('closeRunOutput', { subscriptionId: opened.subscriptionId });
    return Buffer.concat(parts);
  } finally {
    stop();
  }
}

describe('the console service, with real processes', () => {
  it('finishes 4 flooding runs whole when their client is killed, and replays each byte for byte to a new client', async () => {
    const dataDir = dataDirIn('home');
    const project = projectDir();
    await launch(dataDir);
    const socketPath = serviceSocketPath(dataDir);
    const floodBytes = 4_000_000;

    // The client that is killed: a process of its own, its windows on all four runs never acknowledging.
    const client = spawn(process.execPath, [path.join(repoRoot, 'e2e', 'fixtures', 'service-flood-client.mjs'), socketPath, project, fixtureAgentPath, '4', String(floodBytes)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => void client.kill('SIGKILL'));
    let clientErr = '';
    client.stderr.on('data', (chunk: Buffer) => (clientErr += chunk.toString()));
    const runIds = await new Promise<string[]>((resolve, reject) => {
      createInterface({ input: client.stdout }).once('line', (line) => resolve((JSON.parse(line) as { runIds: string[] }).runIds));
      client.once('exit', (code) => reject(new Error(`the client exited (${code}):\n${clientErr}`)));
    });
    expect(runIds).toHaveLength(4);

    const watcher = await attach(dataDir);
    // Mid-flood: every run has output stored, none has finished.
    await waitUntil('output from all four runs', async () => (await Promise.all(runIds.map((runId) => watcher.call('getRun', { runId })))).every((run) => run.outputBytes > 0), 30_000);
    const midFlood = await Promise.all(runIds.map((runId) => watcher.call('getRun', { runId })));
    expect(midFlood.filter((run) => run.status === 'succeeded')).toHaveLength(0);
    const exited = new Promise((resolve) => client.once('exit', resolve));
    client.kill('SIGKILL');
    await exited;

    await waitUntil('all four runs to end', async () => (await Promise.all(runIds.map((runId) => watcher.call('getRun', { runId })))).every((run) => run.status !== 'running' && run.status !== 'preparing' && run.status !== 'admitted' && run.status !== 'queued'), 120_000);
    const newClient = await attach(dataDir);
    for (const runId of runIds) {
      const run = await newClient.call('getRun', { runId });
      expect(run.status).toBe('succeeded');
      const stored = ledgerOutput(dataDir, runId);
      expect(stored.length).toBe(run.outputBytes);
      // Every byte of the flood is in the ledger: its text hashes to what the agent said it wrote.
      const report = floodReport(stored.toString('utf8'));
      expect(report, `the flood's end in ${runId}`).toBeDefined();
      expect(report!.bytes).toBeGreaterThanOrEqual(floodBytes);
      expect(Buffer.byteLength(report!.body)).toBe(report!.bytes);
      const { createHash } = await import('node:crypto');
      expect(createHash('sha256').update(report!.body).digest('hex')).toBe(report!.sha256);
      // A terminal opened on it now replays exactly what the ledger holds.
      const replayed = await replay(newClient, runId);
      expect(replayed.equals(stored)).toBe(true);
    }
  }, 240_000);

  it('serves two clients on one service: what one does, the other sees and is told', async () => {
    const dataDir = dataDirIn('tmp');
    const host = await launch(dataDir);
    const [one, two] = [await attach(dataDir), await attach(dataDir)];
    expect(one.welcome.pid).toBe(host.pid);
    expect(two.welcome.pid).toBe(host.pid);
    // The socket gives the browser address with its token: the operator's own processes only can read it.
    expect(one.welcome.url).toBe(host.url);
    const told: string[] = [];
    two.onEvent((event) => told.push(event));
    const project = projectDir();
    await one.call('addProject', { path: project });
    await waitUntil('the second client to be told', () => Promise.resolve(told.includes('projectsChanged')), 5_000);
    expect((await two.call('listProjects')).map((row) => row.path)).toEqual([project]);
  }, 60_000);

  it('refuses a client of another version with service_version_mismatch, naming the version it runs and the two ways on', async () => {
    const dataDir = dataDirIn('tmp');
    const host = await launch(dataDir);
    const socketPath = serviceSocketPath(dataDir);
    for (const other of [{ consoleVersion: '99.0.0' }, { contractVersion: `${contractVersion}-other` }]) {
      const refused = await connectToService(socketPath, { client: 'desktop-app', ...other }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(OperatorError);
      expect((refused as OperatorError).code).toBe('service_version_mismatch');
      expect((refused as OperatorError).message).toContain(`The console service running here is version ${__APP_VERSION__} (contract ${contractVersion})`);
      expect((refused as OperatorError).message).toContain('It is running 0 runs. Either let them finish and switch afterwards');
      expect((refused as OperatorError).message).toContain('or restart it now with `npm run serve -- --stop` and start again: runs still going are stopped and marked stranded, and each can be resumed.');
    }
    // Refusing a client leaves the service as it was.
    expect((await attach(dataDir)).welcome.pid).toBe(host.pid);
  }, 60_000);

  it('keeps its socket 0600 in a 0700 folder, and another user cannot connect to it', async () => {
    const dataDir = dataDirIn('tmp');
    // The data directory itself open to others, so that only the socket's folder and mode keep them out.
    chmodSync(dataDir, 0o755);
    await launch(dataDir);
    const socketPath = serviceSocketPath(dataDir);
    expect(socketPath).toBe(path.join(dataDir, 'service', 'console.sock'));
    expect(statSync(path.dirname(socketPath)).mode & 0o777).toBe(0o700);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(statSync(socketPath).isSocket()).toBe(true);

    const connectAs = (user: string) =>
      spawnSync('runuser', ['-u', user, '--', process.execPath, '-e', `require('net').connect(${JSON.stringify(socketPath)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (error) => { console.log(error.code); process.exit(0); });`], {
        encoding: 'utf8',
        timeout: 10_000,
      }).stdout.trim();
    expect(connectAs('octest')).toBe('EACCES');
    // The socket's own mode holds too, with its folder opened up for a moment.
    chmodSync(path.dirname(socketPath), 0o755);
    try {
      expect(connectAs('octest')).toBe('EACCES');
    } finally {
      chmodSync(path.dirname(socketPath), 0o700);
    }
    // The operator can (the check above is not a broken command).
    expect(connectAs(execFileSync('id', ['-un'], { encoding: 'utf8' }).trim())).toBe('connected');
  }, 60_000);

  it('after the service is killed with SIGKILL, the next start strands its run and Resume takes it up again', async () => {
    const dataDir = dataDirIn('tmp');
    const project = projectDir();
    const first = await launch(dataDir);
    const client = await attach(dataDir);
    const projectRow = await client.call('addProject', { path: project });
    // The fixture standing in for Codex CLI (`exec … [resume <thread>]`): a run with a native session to resume.
    const agent = await client.call('createAgent', { name: 'Fixture Codex', providerId: 'codex', model: 'gpt-5.5', profileId: 'default', executablePath: fixtureAgentPath });
    await client.call('setLayerVariables', { layer: 'agent', ownerId: agent.id, variables: [{ name: 'FIXTURE_AGENT_FLAGS', secret: false, value: '--lines 600 --delay-ms 50' }] });
    const task = await client.call('createTask', { projectId: projectRow.id, title: 'Long job', prompt: 'Run for a while' });
    const run = await client.call('startRun', { taskId: task.id, agentId: agent.id });
    await waitUntil('the run to be running with output', async () => {
      const detail = await client.call('getRun', { runId: run.id });
      return detail.status === 'running' && detail.outputBytes > 0;
    }, 30_000);

    const closed = new Promise<void>((resolve) => client.onClose(resolve));
    await first.crash();
    // The client finds out at once that the service is gone.
    await closed;

    const next = await launch(dataDir);
    expect(next.pid).not.toBe(first.pid);
    const again = await attach(dataDir);
    const stranded = await again.call('getRun', { runId: run.id });
    expect(stranded.status).toBe('stranded');
    expect(stranded.canResume).toBe(true);
    await again.call('resumeRun', { runId: run.id });
    await waitUntil('the resumed attempt to run', async () => {
      const detail = await again.call('getRun', { runId: run.id });
      return detail.status === 'running' && detail.attempts.length === 2;
    }, 30_000);
    await again.call('stopRun', { runId: run.id });
  }, 120_000);
});
