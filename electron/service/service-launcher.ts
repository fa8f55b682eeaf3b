import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ServiceClientKind } from '../../shared/service-hello';
import { ensureDataDir } from '../platform/data-dir';
import { isProcessAlive } from '../platform/process-group';
import type { ServiceStartReport } from './service-main';
import { connectToService, ServiceUnreachableError, type ServiceConnection } from './service-client';
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

  ensureDataDir(options.dataDir);
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  keepOutputSmall(outputFile);
  const output = openSync(outputFile, 'a', 0o600);
  const offset = sizeOf(outputFile);
  let child;
  try {
    // Its own session (setsid): the terminal's Ctrl-C and the launcher's exit do not reach it.
    child = spawn(options.execPath ?? process.execPath, [options.serviceEntry, '--data-dir', options.dataDir, '--port', String(options.port)], {
      detached: true,
      stdio: ['ignore', output, output, 'ipc'],
      env,
    });
  } finally {
    closeSync(output);
  }
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

  if (reportOrExit.kind === 'failed') throw new ServiceStartError(reportOrExit.message, reportOrExit.usage);
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
