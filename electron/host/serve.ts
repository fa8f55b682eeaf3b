import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createCore, type Core } from '../core';
import { resolveDataDir } from '../platform/data-dir';
import { acquireDataDirLock, DataDirLockedError, type DataDirLock } from '../platform/data-dir-lock';
import { installCrashHandlers, crashLine } from '../platform/crash-handlers';
import { isDiskFullError } from '../platform/disk-space';
import { LedgerDamagedError } from '../ledger/ledger-damage';
import { LedgerLockedError, LedgerVersionError } from '../ledger/ledger-db';
import { createConsoleLog, describeError, isConsoleLog, type ConsoleLog, type Logger } from '../platform/log';
import { startHostServer, type HostServer } from './host-server';
import { isEntryPoint } from '../platform/entry-point';

/**
 * `npm run serve -- [--port N] [--data-dir DIR]`: the console in any browser. Stdout carries exactly
 * one line, the address to open (scripts and the e2e launcher read it). The terminal (stderr) gets
 * sentences only: a refusal's one line, warnings and errors; every record goes to
 * `<data dir>/logs/console.log` (platform/log.ts, platform/log-file.ts).
 */

/** A mistake on the command line: reported in one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Something that stops the host from starting (no build, port taken, newer or damaged ledger): exit code 1. So
 * does a DataDirLockedError (another console on the data directory), whose message is its whole line.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

export interface HostArguments {
  port: number;
  dataDir: string | undefined;
}

export function parseHostArguments(argv: readonly string[]): HostArguments {
  let values: { port?: string | undefined; 'data-dir'?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { port: { type: 'string' }, 'data-dir': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}. Usage: npm run serve -- [--port N] [--data-dir DIR]`);
  }
  let port = 0;
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) {
      throw new UsageError(`--port must be a number from 0 to 65535 (0 picks a free port), not ${JSON.stringify(values.port)}.`);
    }
    port = Number(values.port);
  }
  const dataDir = values['data-dir'];
  if (dataDir !== undefined && dataDir.trim() === '') throw new UsageError('--data-dir needs a directory.');
  return { port, dataDir };
}

/**
 * OPERATOR_CONSOLE_HOST_TOKEN keeps the token across a restart, so pages already open reconnect by
 * themselves; without it each launch makes a new one, and open pages say the console was restarted.
 * An environment variable, not a flag: a command line is visible to every user of the machine.
 */
export function hostTokenFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.OPERATOR_CONSOLE_HOST_TOKEN;
  if (token === undefined || token === '') return undefined;
  if (!/^[A-Za-z0-9_-]{32,256}$/.test(token)) {
    throw new UsageError('OPERATOR_CONSOLE_HOST_TOKEN must be 32 to 256 letters, digits, "-" or "_" (it is the key to the console); unset it for a fresh one per launch.');
  }
  return token;
}

/** dist/electron/serve.js serves dist/renderer; the env override is for running from elsewhere. */
export function resolveRendererDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.OPERATOR_CONSOLE_RENDERER_DIR;
  if (override) return path.resolve(override);
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'renderer');
}

export interface RunningHost {
  server: HostServer;
  core: Core;
  /** Closes the server, then the core (and with it the ledger), then gives up the data dir lock. Safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * Starts the host. Given no log, it makes the console's own and closes it on stop; given a console
 * log (main below), it opens the log file in the data directory and leaves closing to the caller.
 */
export async function runHost(argv: readonly string[], options: { log?: Logger; env?: NodeJS.ProcessEnv } = {}): Promise<RunningHost> {
  const env = options.env ?? process.env;
  const ownLog: ConsoleLog | undefined = options.log ? undefined : createConsoleLog();
  const log: Logger = options.log ?? ownLog!;
  const args = parseHostArguments(argv);
  const token = hostTokenFromEnv(env);

  const staticDir = resolveRendererDir(env);
  if (!existsSync(path.join(staticDir, 'index.html'))) {
    throw new StartupError(`the renderer is not built (no index.html in ${staticDir}). Run \`npm run build\` first.`);
  }

  const dataDir = resolveDataDir({ flag: args.dataDir, env });
  // Before the core: making the core runs start-up recovery, which would stop another console's runs.
  let lock: DataDirLock;
  try {
    lock = await acquireDataDirLock({ dataDir, owner: { kind: 'browser-host' }, log });
  } catch (error) {
    if (error instanceof DataDirLockedError) throw error;
    throw new StartupError(`could not open the data directory ${dataDir}: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Once the data directory is this console's: a refused second console never rotates the first's log.
  if (isConsoleLog(log)) log.writeToFile(dataDir);
  let core: Core;
  try {
    core = createCore({ dataDir, transport: 'browser', appVersion: __APP_VERSION__, log });
  } catch (error) {
    await lock.release();
    // A refused ledger's message is the whole story (the file, why, and what to do: the newest backup
    // and the command that restores it, the console to update, the program to close).
    if (error instanceof LedgerDamagedError || error instanceof LedgerVersionError || error instanceof LedgerLockedError) throw new StartupError(error.message);
    throw new StartupError(`could not open the data directory ${dataDir}: ${error instanceof Error ? error.message : String(error)}`);
  }

  let server: HostServer;
  try {
    server = await startHostServer({ core, staticDir, port: args.port, host: '127.0.0.1', log, ...(token ? { token } : {}) });
  } catch (error) {
    await core.close();
    await lock.release();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new StartupError(`port ${args.port} is already in use. Pick another with --port, or 0 for a free one.`);
    throw new StartupError(`could not start the browser host: ${error instanceof Error ? error.message : String(error)}`);
  }

  // The refusal names this host by its address (the token stays out of the lock's owner file).
  lock.recordUrl(server.url);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      try {
        await server.close();
        await core.close();
      } finally {
        // Last: until the core has closed, another console must not start recovery on this directory.
        await lock.release();
        await ownLog?.close();
      }
    })());
  return { server, core, stop };
}

/** The command: start, print the address, and shut down cleanly on SIGINT/SIGTERM. */
export async function main(argv: readonly string[] = process.argv.slice(2), log: ConsoleLog = createConsoleLog()): Promise<void> {
  let host: RunningHost | undefined;
  // A crash is logged with its stack, the host stops as cleanly as it still can, and the operator is
  // told in one line where the details are.
  const uninstallCrashHandlers = installCrashHandlers({
    log,
    // A write the full disk refused is no reason to stop: the Disk full notice says what to do.
    survivable: isDiskFullError,
    onCrash: (crash) => {
      log.tell(crashLine(crash), 'error');
      setTimeout(() => process.exit(1), 5_000).unref();
      void (host?.stop() ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => log.close())
        .finally(() => process.exit(1));
    },
  });
  try {
    host = await runHost(argv, { log });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // One line, and only it: the refusal already names the console ("Another Operator Console is
    // already using ..."). The log file, when this console got as far as opening it, keeps it too.
    log.tell(error instanceof DataDirLockedError ? message : `Operator Console: ${message}`, 'error');
    process.exitCode = error instanceof UsageError ? 2 : 1;
    uninstallCrashHandlers();
    await log.close();
    return;
  }
  const running = host;

  const shutDown = (signal: NodeJS.Signals) => {
    log.tell(`Operator Console: ${signal} received, shutting down.`);
    // Closing is bounded, but a wedged handle must not keep the process alive forever.
    setTimeout(() => process.exit(1), 5_000).unref();
    running.stop().then(
      () => log.close().finally(() => process.exit(0)),
      (error: unknown) => {
        log.error('shutdown failed', { error: describeError(error) }, { terminal: false });
        log.tell(`Operator Console: shutdown failed: ${error instanceof Error ? error.message : String(error)}`, 'error');
        void log.close().finally(() => process.exit(1));
      },
    );
  };
  process.once('SIGINT', shutDown);
  process.once('SIGTERM', shutDown);

  process.stdout.write(`Operator Console: ${running.server.url}\n`);
}

if (isEntryPoint(import.meta.url)) void main();
