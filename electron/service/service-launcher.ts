import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ServiceClientKind, ServiceHandingOver } from '../../shared/service-hello';
import { liveDataDirHolder } from '../platform/data-dir-lock';
import { ensureDataDir } from '../platform/data-dir';
import { isProcessAlive } from '../platform/process-group';
import type { ServiceStartReport } from './service-main';
import { askServiceToHandOver, connectToService, ServiceUnreachableError, type ServiceConnection } from './service-client';
import { serviceSocketPath } from './service-socket-path';

/**
 * Finds the console service of a data directory, or starts one, and attaches to it: what `npm run
 * serve`, `npm start` and the desktop app do instead of running a core of their own.
 *
 * A service runs when its socket answers a hello. A socket file nobody answers on is a dead service's
 * (killed with SIGKILL): the new service replaces it, and its start-up strands the dead one's runs, as
 * any start does. Two launchers racing to start one: the second service finds the lock taken, says
 * `locked`, and its launcher attaches to the first.
 */

/** The service's stdout and stderr: its sentences and anything a crash prints outside the log. */
export const serviceOutputFileName = 'service-output.log';
const outputKeptBytes = 1024 * 1024;

export interface AttachOptions {
  /** Resolved already (resolveDataDir). */
  dataDir: string;
  /** For a service this starts: the port to listen on (0: a free one). A running one keeps its own. */
  port: number;
  client: ServiceClientKind;
  /** dist/electron/service.js. */
  serviceEntry: string;
  /** The program that runs it: Node (process.execPath), or Electron's binary as Node. */
  execPath?: string;
  env?: NodeJS.ProcessEnv;
  /** How long a starting service may take to answer (a ledger conversion at start takes a while). */
  startTimeoutMs?: number;
}

export interface AttachedService {
  connection: ServiceConnection;
  /** True when this call started the service. */
  started: boolean;
  /**
   * The service's output file, and where in it what concerns this launcher begins (the start of this
   * start, or its end when attached to a running one): followServiceOutput shows it at the terminal.
   */
  output: { file: string; offset: number };
}

/** The service could not start: its one line (a damaged ledger, a taken port, a bad flag). */
export class ServiceStartError extends Error {
  constructor(
    message: string,
    readonly usage: boolean,
    /** The service refused a damaged ledger: its newest backup (null: none), for the launcher to offer to restore. */
    readonly ledgerDamaged?: { newestBackup: string | null },
  ) {
    super(message);
    this.name = 'ServiceStartError';
  }
}

export async function attachOrStartService(options: AttachOptions): Promise<AttachedService> {
  const env = options.env ?? process.env;
  const socketPath = serviceSocketPath(options.dataDir, env);
  const logDir = path.join(options.dataDir, 'logs');
  const outputFile = path.join(logDir, serviceOutputFileName);
  const running = await tryAttach(socketPath, options.client);
  if (running) return { connection: running, started: false, output: { file: outputFile, offset: sizeOf(outputFile) } };

  const { child, offset } = spawnService(options, []);
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const reportOrExit = await new Promise<ServiceStartReport | { kind: 'exited'; code: number | null } | { kind: 'timeout' }>((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'timeout' }), startTimeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as ServiceStartReport);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ kind: 'exited', code });
    });
    child.once('error', () => {
      clearTimeout(timer);
      resolve({ kind: 'exited', code: null });
    });
  });
  if (child.connected) child.disconnect();
  child.unref();
  const startupOutput = () => readFrom(outputFile, offset);

  if (reportOrExit.kind === 'failed') throw new ServiceStartError(reportOrExit.message, reportOrExit.usage, reportOrExit.ledgerDamaged);
  if (reportOrExit.kind === 'exited') {
    throw new ServiceStartError(
      `Operator Console: the console service exited (code ${reportOrExit.code}) before it was ready. ${startupOutput().trim() || `See ${outputFile}.`}`,
      false,
    );
  }
  if (reportOrExit.kind === 'timeout') {
    if (child.pid !== undefined && isProcessAlive(child.pid)) child.kill('SIGTERM');
    throw new ServiceStartError(`Operator Console: the console service did not get ready in ${Math.round(startTimeoutMs / 1000)} s; see ${outputFile} and ${path.join(logDir, 'console.log')}.`, false);
  }
  // ready, or locked: another launcher's service holds the directory and is still starting, or ready.
  const deadline = Date.now() + (reportOrExit.kind === 'locked' ? startTimeoutMs : 5_000);
  for (;;) {
    const connection = await tryAttach(socketPath, options.client);
    if (connection) {
      const started = reportOrExit.kind === 'ready';
      return { connection, started, output: { file: outputFile, offset: started ? offset : sizeOf(outputFile) } };
    }
    if (Date.now() >= deadline) {
      throw new ServiceStartError(reportOrExit.kind === 'locked' ? reportOrExit.message : `Operator Console: the console service started but does not answer on ${socketPath}.`, false);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts the service detached: its own session (setsid), so the terminal's Ctrl-C and the launcher's
 * exit do not reach it, its output appended to the service's output file, and an IPC channel on which
 * it reports how its start went (service-main.ts).
 */
function spawnService(options: Omit<AttachOptions, 'client'>, extraArgs: string[]): { child: ChildProcess; offset: number } {
  const logDir = path.join(options.dataDir, 'logs');
  const outputFile = path.join(logDir, serviceOutputFileName);
  ensureDataDir(options.dataDir);
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  keepOutputSmall(outputFile);
  const output = openSync(outputFile, 'a', 0o600);
  const offset = sizeOf(outputFile);
  try {
    const child = spawn(options.execPath ?? process.execPath, [options.serviceEntry, '--data-dir', options.dataDir, '--port', String(options.port), ...extraArgs], {
      detached: true,
      stdio: ['ignore', output, output, 'ipc'],
      env: options.env ?? process.env,
    });
    return { child, offset };
  } finally {
    closeSync(output);
  }
}

/**
 * The second half of "let those runs finish and switch afterwards": this version's service, started
 * now, detached, waits for the older service (`predecessorPid`, which has agreed to stop once its last
 * run ends) to be gone, and then starts by itself, whoever is still around. Resolves once it waits.
 */
export async function startServiceAfter(options: Omit<AttachOptions, 'client'>, predecessorPid: number): Promise<void> {
  const { child } = spawnService(options, ['--after-pid', String(predecessorPid)]);
  const report = await new Promise<ServiceStartReport | { kind: 'exited'; code: number | null }>((resolve) => {
    child.once('message', (message) => resolve(message as ServiceStartReport));
    child.once('exit', (code) => resolve({ kind: 'exited', code }));
    child.once('error', () => resolve({ kind: 'exited', code: null }));
  });
  if (child.connected) child.disconnect();
  child.unref();
  if (report.kind === 'failed') throw new ServiceStartError(report.message, report.usage);
  if (report.kind === 'exited') throw new ServiceStartError(`Operator Console: the console service to switch to exited (code ${report.code}) before it could wait; see ${path.join(options.dataDir, 'logs', serviceOutputFileName)}.`, false);
}

/** The running service, or undefined when none answers (a version mismatch is thrown: it is an answer). */
export async function tryAttach(socketPath: string, client: ServiceClientKind): Promise<ServiceConnection | undefined> {
  try {
    return await connectToService(socketPath, { client });
  } catch (error) {
    if (error instanceof ServiceUnreachableError) return undefined;
    throw error;
  }
}

/**
 * Shows at the terminal what the service writes to its output file from `offset` on (its warnings
 * and errors, as sentences), while a launcher is attached. Returns the function that stops following.
 */
export function followServiceOutput(output: { file: string; offset: number }, write: (text: string) => void, intervalMs = 200): () => void {
  let offset = output.offset;
  const look = () => {
    const size = sizeOf(output.file);
    // Rotated by a later start: follow the new file from its beginning.
    if (size < offset) offset = 0;
    if (size === offset) return;
    const bytes = readBytesFrom(output.file, offset);
    offset += bytes.length;
    if (bytes.length > 0) write(bytes.toString('utf8'));
  };
  look();
  const timer = setInterval(look, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    look();
  };
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function keepOutputSmall(file: string): void {
  try {
    if (statSync(file).size > outputKeptBytes) renameSync(file, `${file}.1`);
  } catch {
    // None yet.
  }
}

function readFrom(file: string, offset: number): string {
  return readBytesFrom(file, offset).toString('utf8');
}

/** At most 64 KiB from `offset` (a follower reads the rest at its next look). */
function readBytesFrom(file: string, offset: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const length = Math.min(Math.max(size - offset, 0), 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, offset);
    return buffer;
  } finally {
    closeSync(fd);
  }
}

/**
 * "Let those runs finish and switch afterwards", for a client of this version that found a service of
 * another: that service agrees to take no new run and to stop when its last run ends, and this version's
 * service, started now (startServiceAfter), waits for it and then starts by itself. `attach`: nothing to
 * wait for (no service answers, one of this version does, or the older one had no run and is gone now).
 * `stuck`: it had no run but did not stop.
 */
export async function handOverAfterRuns(
  socketPath: string,
  start: Omit<AttachOptions, 'client'>,
  client: ServiceClientKind,
): Promise<{ kind: 'attach' } | { kind: 'waiting' | 'stuck'; older: ServiceHandingOver }> {
  let answer;
  try {
    answer = await askServiceToHandOver(socketPath, { client });
  } catch (error) {
    if (error instanceof ServiceUnreachableError) return { kind: 'attach' };
    throw error;
  }
  if (!('handingOver' in answer)) {
    await answer.close();
    return { kind: 'attach' };
  }
  const older = answer.handingOver;
  if (older.liveRuns === 0) return (await processGone(older.pid, 30_000)) ? { kind: 'attach' } : { kind: 'stuck', older };
  await startServiceAfter(start, older.pid);
  return { kind: 'waiting', older };
}

/**
 * "Restart now" for a service of another version, which answers but not to this client: SIGTERM (every
 * version's clean shutdown: its runs stop, strand, and can be resumed) to the pid the data directory's
 * lock names. Undefined when the lock names no console service.
 */
export async function stopServiceOfAnotherVersion(dataDir: string): Promise<{ pid: number; gone: boolean } | undefined> {
  const holder = liveDataDirHolder(dataDir);
  if (!holder || holder.kind !== 'console-service') return undefined;
  process.kill(holder.pid, 'SIGTERM');
  return { pid: holder.pid, gone: await processGone(holder.pid, 30_000) };
}

/** Whether the process is gone within `timeoutMs`. */
export async function processGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
