import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { spawn as spawnPty } from 'node-pty';
import { openLedger } from '../ledger/ledger';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHost, type BrowserHost } from '../../e2e/launchers/browser-host';
import { otherVersionBuild as otherVersionBuildOf } from '../../e2e/launchers/other-version-build';
import { OperatorError } from '../../shared/errors';
import { contractVersion } from '../../shared/service-hello';
import { ensureConsoleBuilt, repoRoot } from '../testing/built-console';
import { fixtureAgentPath, floodReport } from '../testing/output-test-kit';
import { gitInit } from '../testing/run-test-kit';
import { startFixtureRun } from '../testing/service-test-kit';
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

async function launch(dataDir: string, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<BrowserHost> {
  const host = await startBrowserHost({ dataDir, env, args });
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

/** What a terminal opened on a run got: each piece at its offset, and what it was told it skipped. */
interface TerminalStream {
  pieces: Array<{ offset: number; bytes: Buffer }>;
  skippedBytes: number;
  /** Where the stream ended: every byte before it was either delivered or announced as skipped. */
  end: number;
}

/**
 * A terminal opened on a run from its first byte: the replay from the ledger, then live output while
 * the run goes on, acknowledged as it is drawn. Each message must continue exactly where the last one
 * ended (no gap, no duplicate); a viewer that falls behind a live flood is skipped forward, and told
 * so (DESIGN.md section 5). Done once the run has ended and every byte it wrote is accounted for.
 */
async function openTerminal(connection: ServiceConnection, runId: string): Promise<TerminalStream> {
  const stream: TerminalStream = { pieces: [], skippedBytes: 0, end: 0 };
  let subscription: string | undefined;
  const errors: string[] = [];
  type Message = { subscriptionId: string; runId: string; offset?: number; bytes?: Uint8Array; fromOffset?: number; toOffset?: number };
  const early: Array<[string, Message]> = [];
  const take = (event: string, message: Message) => {
    if (message.subscriptionId !== subscription) return;
    if (event === 'runOutputSkipped') {
      if (message.fromOffset !== stream.end) errors.push(`skip from ${message.fromOffset}, expected ${stream.end}`);
      stream.skippedBytes += message.toOffset! - message.fromOffset!;
      stream.end = message.toOffset!;
      return;
    }
    if (event !== 'runOutput') return;
    if (message.offset !== stream.end) errors.push(`output at ${message.offset}, expected ${stream.end}`);
    stream.pieces.push({ offset: message.offset!, bytes: Buffer.from(message.bytes!) });
    stream.end = message.offset! + message.bytes!.length;
    connection.ack(message.subscriptionId, message.bytes!.length);
  };
  const stop = connection.onEvent((event, payload) => {
    const message = payload as Message;
    if (message.runId !== runId) return;
    if (subscription === undefined) early.push([event, message]);
    else take(event, message);
  });
  try {
    const opened = await connection.call('openRunOutput', { runId, from: 'start' });
    subscription = opened.subscriptionId;
    for (const [event, message] of early.splice(0)) take(event, message);
    await waitUntil(
      `the terminal of ${runId}`,
      async () => {
        const run = await connection.call('getRun', { runId });
        return !['queued', 'admitted', 'preparing', 'setting_up', 'running'].includes(run.status) && stream.end >= run.outputBytes;
      },
      60_000,
    );
    await connection.call('closeRunOutput', { subscriptionId: opened.subscriptionId });
    expect(errors).toEqual([]);
    return stream;
  } finally {
    stop();
  }
}

/** A build of the console that says it is another version (e2e/launchers/other-version-build.ts), removed after the test. */
function otherVersionBuild(version: string): string {
  const build = otherVersionBuildOf(version);
  cleanups.push(() => build.remove());
  return build.serveEntry;
}

/** Runs a launcher to its exit (bounded): for one that is expected to refuse, or a --stop. */
function runToExit(serveEntry: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [serveEntry, ...args], { cwd: repoRoot, timeout: 40_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe('the console service, with real processes', () => {
  it('finishes 4 flooding runs whole when their client is killed; a new client attached mid-flood follows each to its end, then replays it byte for byte', async () => {
    const dataDir = dataDirIn('home');
    const project = projectDir();
    await launch(dataDir);
    const socketPath = serviceSocketPath(dataDir);
    const floodBytes = 8_000_000;

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

    // A new client attaches while the runs go on, and opens a terminal on each from its first byte.
    const newClient = await attach(dataDir);
    const atOpen = await Promise.all(runIds.map((runId) => newClient.call('getRun', { runId })));
    expect(atOpen.some((run) => run.status === 'running')).toBe(true);
    const followed = await Promise.all(runIds.map((runId) => openTerminal(newClient, runId)));
    for (const [index, runId] of runIds.entries()) {
      const run = await newClient.call('getRun', { runId });
      expect(run.status).toBe('succeeded');
      const stored = ledgerOutput(dataDir, runId);
      expect(stored.length).toBe(run.outputBytes);
      // Every byte of the flood is in the ledger: its text hashes to what the agent said it wrote.
      const report = floodReport(stored.toString('utf8'));
      expect(report, `the flood's end in ${runId}`).toBeDefined();
      expect(report!.bytes).toBeGreaterThanOrEqual(floodBytes);
      expect(Buffer.byteLength(report!.body)).toBe(report!.bytes);
      expect(createHash('sha256').update(report!.body).digest('hex')).toBe(report!.sha256);
      // The terminal followed it to its end: each byte it was sent is the ledger's at that offset, and
      // what it was not sent it was told it skipped (a viewer behind a live flood is skipped forward).
      const live = followed[index]!;
      expect(live.end).toBe(stored.length);
      for (const piece of live.pieces) expect(piece.bytes.equals(stored.subarray(piece.offset, piece.offset + piece.bytes.length))).toBe(true);
      expect(live.pieces.reduce((sum, piece) => sum + piece.bytes.length, 0) + live.skippedBytes).toBe(stored.length);
      // Opened again now the run is done, the terminal replays exactly what the ledger holds, nothing skipped.
      const replayed = await openTerminal(newClient, runId);
      expect(replayed.skippedBytes).toBe(0);
      expect(Buffer.concat(replayed.pieces.map((piece) => piece.bytes)).equals(stored)).toBe(true);
    }
  }, 180_000);

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
      expect((refused as OperatorError).message).toContain('It is running 0 runs. Either let them finish and switch afterwards: `npm run serve -- --after-runs`');
      expect((refused as OperatorError).message).toContain(
        'or restart now: `npm run serve -- --restart-now` (runs still going are stopped and marked stranded, and each can be resumed).',
      );
    }
    // Refusing a client leaves the service as it was.
    expect((await attach(dataDir)).welcome.pid).toBe(host.pid);
  }, 60_000);

  it('leaves a service of another version and its runs alone, says which version runs them, and stops it on --stop', async () => {
    const dataDir = dataDirIn('tmp');
    const olderServe = otherVersionBuild('0.0.9-older');
    // The older console, as an operator left it running.
    const older = spawn(process.execPath, [olderServe, '--data-dir', dataDir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let olderErr = '';
    older.stderr.on('data', (chunk: Buffer) => (olderErr += chunk.toString()));
    const olderExited = new Promise<number | null>((resolve) => older.once('exit', resolve));
    cleanups.push(async () => {
      older.kill('SIGKILL');
      await olderExited;
    });
    const olderLine = await new Promise<string>((resolve) => createInterface({ input: older.stdout }).once('line', resolve));
    expect(olderLine).toMatch(/^Operator Console: http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    const olderPid = (JSON.parse(readFileSync(path.join(dataDir, 'console-owner.json'), 'utf8')) as { pid: number }).pid;
    cleanups.push(() => {
      try {
        process.kill(olderPid, 'SIGKILL');
      } catch {
        // Stopped, as the test meant.
      }
    });

    // This version's launcher is refused, in one line that names the version running and the two ways on.
    const refused = await runToExit(path.join(repoRoot, 'dist', 'electron', 'serve.js'), ['--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`The console service running here is version 0.0.9-older (contract ${contractVersion}); this console (npm run serve) is version ${__APP_VERSION__}`);
    expect(refused.stderr).toContain('Either let them finish and switch afterwards');
    // The older service was not touched.
    expect(() => process.kill(olderPid, 0)).not.toThrow();

    // The second way on: stop it now, whatever its version.
    const stopped = await runToExit(path.join(repoRoot, 'dist', 'electron', 'serve.js'), ['--data-dir', dataDir, '--stop']);
    expect(stopped.stderr).toBe(`Operator Console: the console service of another version (pid ${olderPid}) stopped; runs it had going were stopped and can be resumed.\n`);
    expect(stopped.code).toBe(0);
    // Its launcher says so, and this version's starts on the directory.
    expect(await olderExited).toBe(1);
    expect(olderErr).toContain(`the console service (pid ${olderPid}) stopped`);
    const next = await launch(dataDir);
    expect(next.pid).not.toBe(olderPid);
  }, 90_000);

  it('lets the runs of a service of another version finish, then switches to this version by itself (--after-runs)', async () => {
    const dataDir = dataDirIn('tmp');
    const project = projectDir();
    const olderServe = otherVersionBuild('0.0.9-older');
    // The older console, as an operator left it running, with a run going.
    const older = spawn(process.execPath, [olderServe, '--data-dir', dataDir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    const olderExited = new Promise<number | null>((resolve) => older.once('exit', resolve));
    cleanups.push(async () => {
      older.kill('SIGKILL');
      await olderExited;
    });
    await new Promise<string>((resolve) => createInterface({ input: older.stdout }).once('line', resolve));
    const ownerPid = () => (JSON.parse(readFileSync(path.join(dataDir, 'console-owner.json'), 'utf8')) as { pid: number }).pid;
    const olderPid = ownerPid();
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    cleanups.push(() => void (alive(olderPid) && process.kill(olderPid, 'SIGKILL')));
    const olderClient = await connectToService(serviceSocketPath(dataDir), { client: 'node-client', consoleVersion: '0.0.9-older' });
    cleanups.push(() => olderClient.close());
    const { runId, agentId } = await startFixtureRun(olderClient, { project, args: ['--lines', '40', '--delay-ms', '100'], agentName: 'Long one', taskTitle: 'Older job' });
    await waitUntil('the run to be running', async () => (await olderClient.call('getRun', { runId })).status === 'running', 20_000);

    // This version's launcher offers the two ways on, with the command for each.
    const serveJs = path.join(repoRoot, 'dist', 'electron', 'serve.js');
    const refused = await runToExit(serveJs, ['--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`The console service running here is version 0.0.9-older (contract ${contractVersion}); this console (npm run serve) is version ${__APP_VERSION__}`);
    expect(refused.stderr).toContain('It is running 1 run. Either let it finish and switch afterwards: `npm run serve -- --after-runs`');
    expect(refused.stderr).toContain('or restart now: `npm run serve -- --restart-now`');

    // The first: the older service finishes its run and takes no new one; this version waits for it.
    const switching = await runToExit(serveJs, ['--data-dir', dataDir, '--after-runs']);
    expect(switching.stderr).toBe(
      `Operator Console: version 0.0.9-older of the console service (pid ${olderPid}) finishes its 1 run going and starts no new run; version ${__APP_VERSION__} starts by itself when it ends (run npm run serve then for its address). ` +
        'To switch now instead: npm run serve -- --restart-now (runs still going are stopped and can be resumed).\n',
    );
    expect(switching.code).toBe(0);
    expect(await olderClient.call('getServiceState')).toEqual({ consoleVersion: '0.0.9-older', handingOverTo: __APP_VERSION__ });
    const task = await olderClient.call('createTask', { projectId: (await olderClient.call('listProjects'))[0]!.id, title: 'Too late', prompt: 'Go' });
    const refusedRun = await olderClient.call('startRun', { taskId: task.id, agentId }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((refusedRun as OperatorError).code).toBe('service_handing_over');
    expect((refusedRun as OperatorError).message).toContain('This console (version 0.0.9-older) is finishing its runs before version');

    // The run ends on its own, whole; then the older service stops and this version's starts by itself.
    await waitUntil('the older service to stop once its run ended', () => Promise.resolve(!alive(olderPid)), 30_000);
    await waitUntil('this version\'s service to start', async () => {
      try {
        return ownerPid() !== olderPid && (await connectToService(serviceSocketPath(dataDir), { client: 'node-client' }).then((c) => (void c.close(), true), () => false));
      } catch {
        return false;
      }
    }, 30_000);
    const newerPid = ownerPid();
    cleanups.push(() => void (alive(newerPid) && process.kill(newerPid, 'SIGTERM')));
    const newer = await attach(dataDir);
    expect(newer.welcome.consoleVersion).toBe(__APP_VERSION__);
    const finished = await newer.call('getRun', { runId });
    expect(finished.status).toBe('succeeded');
    expect(finished.outputBytes).toBe(ledgerOutput(dataDir, runId).length);
    expect(ledgerOutput(dataDir, runId).toString('utf8')).toContain('line 40 of 40');
  }, 120_000);

  it('restarts a service of another version now on --restart-now: its run is stopped and stranded, and this version serves', async () => {
    const dataDir = dataDirIn('tmp');
    const project = projectDir();
    const older = spawn(process.execPath, [otherVersionBuild('0.0.9-older'), '--data-dir', dataDir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    const olderExited = new Promise<number | null>((resolve) => older.once('exit', resolve));
    cleanups.push(async () => {
      older.kill('SIGKILL');
      await olderExited;
    });
    await new Promise<string>((resolve) => createInterface({ input: older.stdout }).once('line', resolve));
    const olderPid = (JSON.parse(readFileSync(path.join(dataDir, 'console-owner.json'), 'utf8')) as { pid: number }).pid;
    cleanups.push(() => {
      try {
        process.kill(olderPid, 'SIGKILL');
      } catch {
        // Stopped, as the test meant.
      }
    });
    const olderClient = await connectToService(serviceSocketPath(dataDir), { client: 'node-client', consoleVersion: '0.0.9-older' });
    const { runId } = await startFixtureRun(olderClient, { project, args: ['--lines', '200', '--delay-ms', '100'], agentName: 'Long one', taskTitle: 'Older job' });
    await waitUntil('the run to be running', async () => (await olderClient.call('getRun', { runId })).status === 'running', 20_000);

    const host = await launch(dataDir, {}, ['--restart-now']);
    expect(host.stderr()).toContain(`Operator Console: the console service of another version (pid ${olderPid}) stopped; runs it had going were stopped and can be resumed.`);
    expect(host.pid).not.toBe(olderPid);
    const newer = await attach(dataDir);
    expect(newer.welcome.consoleVersion).toBe(__APP_VERSION__);
    const run = await newer.call('getRun', { runId });
    // Stranded, as any stop strands a run (one with a native session can be resumed: the SIGKILL test below).
    expect(run.status).toBe('stranded');
    expect(run.failure?.code).toBe('stranded');
  }, 90_000);

  it('offers to restore the newest backup at the terminal when the service refuses a damaged ledger, then starts on it', async () => {
    const dataDir = dataDirIn('tmp');
    const ledger = openLedger(dataDir);
    ledger.db.prepare("INSERT INTO projects (id, name, path, is_git_repo, created_at) VALUES ('prj_kept', 'kept', '/srv/kept', 0, 1)").run();
    const backup = await ledger.backups.takeDaily(ledger.db, Date.now());
    ledger.close();
    writeFileSync(path.join(dataDir, 'ledger.sqlite'), Buffer.alloc(64 * 1024, 0x5a));

    // An operator at a terminal (a script, with no terminal, gets the one line: terminal-output.spec).
    const terminal = spawnPty(process.execPath, [path.join(repoRoot, 'dist', 'electron', 'serve.js'), '--data-dir', dataDir], { cwd: repoRoot, cols: 400, rows: 40, env: process.env });
    let screen = '';
    terminal.onData((data) => (screen += data));
    const exited = new Promise<number>((resolve) => terminal.onExit(({ exitCode }) => resolve(exitCode)));
    cleanups.push(() => terminal.kill('SIGKILL'));
    await waitUntil('the offer to restore', () => Promise.resolve(screen.includes('now and start the console? [y/N]')), 30_000);
    expect(screen).toMatch(/Operator Console: The ledger .*ledger\.sqlite is damaged and cannot be read/);
    expect(screen).toContain(`Restore the newest backup (${backup.file}) now and start the console? [y/N]`);
    terminal.write('y\r');
    await waitUntil('the console to start on the backup', () => Promise.resolve(/Operator Console: http:\/\/127\.0\.0\.1:\d+\/\?token=/.test(screen)), 30_000);
    expect(screen).toContain(`Operator Console: restored ${path.join(dataDir, 'ledger.sqlite')} from ${backup.file}.`);
    const servicePid = (JSON.parse(readFileSync(path.join(dataDir, 'console-owner.json'), 'utf8')) as { pid: number }).pid;
    cleanups.push(() => {
      try {
        process.kill(servicePid, 'SIGKILL');
      } catch {
        // Stopped, as the test meant.
      }
    });
    expect((await (await attach(dataDir)).call('listProjects')).map((project) => project.name)).toEqual(['kept']);
    terminal.kill('SIGTERM');
    await exited;
  }, 90_000);

  it('keeps a run going in the background after its launcher quits, then stops by itself once idle', async () => {
    const dataDir = dataDirIn('tmp');
    const project = projectDir();
    const serve = spawn(process.execPath, [path.join(repoRoot, 'dist', 'electron', 'serve.js'), '--data-dir', dataDir], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A setting: a little over a second here, ten minutes by default.
      env: { ...process.env, OPERATOR_CONSOLE_SERVICE_IDLE_MINUTES: '0.02' },
    });
    let serveErr = '';
    serve.stderr.on('data', (chunk: Buffer) => (serveErr += chunk.toString()));
    const serveExited = new Promise<number | null>((resolve) => serve.once('exit', resolve));
    cleanups.push(() => void serve.kill('SIGKILL'));
    await new Promise<string>((resolve) => createInterface({ input: serve.stdout }).once('line', resolve));
    const servicePid = (JSON.parse(readFileSync(path.join(dataDir, 'console-owner.json'), 'utf8')) as { pid: number }).pid;
    const alive = () => {
      try {
        process.kill(servicePid, 0);
        return true;
      } catch {
        return false;
      }
    };
    cleanups.push(() => void (alive() && process.kill(servicePid, 'SIGKILL')));

    const client = await attach(dataDir);
    const { runId } = await startFixtureRun(client, { project, args: ['--lines', '30', '--delay-ms', '100'], agentName: 'Background runner', taskTitle: 'Background job' });
    await waitUntil('the run to be running', async () => (await client.call('getRun', { runId })).status === 'running', 20_000);

    // The launcher quits mid-run: the service keeps the run (and the other app), and the launcher's last line says so.
    serve.kill('SIGTERM');
    expect(await serveExited).toBe(0);
    expect(serveErr).toMatch(
      new RegExp(`SIGTERM received; the console service \\(pid ${servicePid}\\) goes on: 1 run going in the background, and 1 other app is attached\\. It stops by itself once nothing needs it`),
    );
    expect(alive()).toBe(true);
    // The other app goes too: nothing is attached while the run finishes.
    await client.close();

    // The run ends with nobody attached; a little later the service is gone, the directory given up.
    await waitUntil('the service to stop by itself', () => Promise.resolve(!alive()), 30_000);
    expect(statSync(path.join(dataDir, 'console.lock'), { throwIfNoEntry: false })).toBeUndefined();
    const db = new Database(path.join(dataDir, 'ledger.sqlite'), { readonly: true });
    try {
      const row = db.prepare('SELECT status FROM runs WHERE id = ?').get(runId) as { status: string };
      expect(row.status).toBe('succeeded');
      const output = ledgerOutput(dataDir, runId).toString('utf8');
      expect(output).toContain('line 30 of 30');
    } finally {
      db.close();
    }
    expect(readFileSync(path.join(dataDir, 'logs', 'console.log'), 'utf8')).toContain('service stopping: idle, no run going and no app attached');
  }, 90_000);

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

  it('keeps a notification held while no app was attached across the service killed with SIGKILL, and hands it once to the next app', async () => {
    const dataDir = dataDirIn('tmp');
    const project = projectDir();
    const first = await launch(dataDir);
    const operator = await attach(dataDir);
    const { runId } = await startFixtureRun(operator, { project, args: ['--lines', '5', '--delay-ms', '100'], agentName: 'Quick one', taskTitle: 'Background job' });
    // The operator closes the console's window: only `npm run serve` stays attached, which shows no notification.
    await operator.close();
    const held = () => {
      const db = new Database(path.join(dataDir, 'ledger.sqlite'), { readonly: true, fileMustExist: true });
      try {
        return db.prepare('SELECT id, delivered_at FROM held_notifications').all() as Array<{ id: string; delivered_at: number | null }>;
      } finally {
        db.close();
      }
    };
    // The service told the run's end (its log says so) while no app could show it.
    const serviceLog = path.join(dataDir, 'logs', 'console.log');
    await waitUntil('the run\'s notification', () => Promise.resolve(readFileSync(serviceLog, 'utf8').includes('desktop notification')), 30_000);

    // The service dies with what it held: nothing was delivered.
    await first.crash();
    await launch(dataDir);
    const seen: string[] = [];
    const next = await attach(dataDir);
    next.onEvent((event, payload) => event === 'desktopNotification' && seen.push((payload as { body: string }).body));
    await waitUntil('the held notification', () => Promise.resolve(seen.length > 0), 10_000);
    expect(seen).toEqual(['Quick one finished “Background job”. Open the run to review its changes.']);
    expect((await next.call('getRun', { runId })).status).toBe('succeeded');
    expect(held().every((row) => row.delivered_at !== null)).toBe(true);

    // Once: the next app, and the next service, do not get it again.
    const again: string[] = [];
    const other = await attach(dataDir);
    other.onEvent((event, payload) => event === 'desktopNotification' && again.push((payload as { body: string }).body));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(again).toEqual([]);
  }, 90_000);

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
