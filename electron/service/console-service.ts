import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createCore, type Core } from '../core';
import { resolveDataDir } from '../platform/data-dir';
import { acquireDataDirLock, DataDirLockedError, type DataDirLock } from '../platform/data-dir-lock';
import { LedgerDamagedError } from '../ledger/ledger-damage';
import { LedgerLockedError, LedgerVersionError } from '../ledger/ledger-db';
import { createConsoleLog, isConsoleLog, type ConsoleLog, type Logger } from '../platform/log';
import { startHostServer, type HostServer } from '../host/host-server';
import { startLocalSocketServer, type LocalSocketServer } from '../host/local-socket-server';
import type { HostSocketGreeting } from '../host/host-socket';
import { liveStatuses } from '../runs/run-transitions';
import { contractVersion, versionMismatchMessage, type ServiceControlResult, type ServiceWelcome } from '../../shared/service-hello';
import { prepareServiceSocketFolder, serviceSocketPath } from './service-socket-path';
import { HeldNotifications } from './held-notifications';

/**
 * The console service in one process: it holds the data directory's lock, makes the core (ledger,
 * PTYs, confinement, connections, notices), and serves it twice over one contract: to browsers on
 * 127.0.0.1 (HTTP + WebSocket, with the token and the Origin/Host checks, host/host-server.ts) and to
 * apps on its local socket (host/local-socket-server.ts, `<data dir>/service/console.sock`). Its process
 * is service-main.ts, started detached by service-launcher.ts; tests start it in their own process here.
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
  constructor(
    message: string,
    /** The ledger is damaged: its newest backup, which the launcher offers to restore (null: none). */
    readonly ledgerDamage?: { newestBackup: string | null },
  ) {
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

/**
 * dist/electron/service.js serves dist/renderer: `entryUrl` is the entry's import.meta.url (this
 * module is bundled into a chunk, so its own URL says nothing). The env override is for running from elsewhere.
 */
export function resolveRendererDir(env: NodeJS.ProcessEnv, entryUrl: string | undefined): string {
  const override = env.OPERATOR_CONSOLE_RENDERER_DIR;
  if (override) return path.resolve(override);
  if (!entryUrl) throw new StartupError('the renderer folder is not known: set OPERATOR_CONSOLE_RENDERER_DIR.');
  return path.resolve(path.dirname(fileURLToPath(entryUrl)), '..', 'renderer');
}

/** The statuses of a run that is going on: it keeps the service up. Queued runs start on their own. */
const goingStatuses = [...liveStatuses, 'queued'] as const;

export interface RunningService {
  server: HostServer;
  socket: LocalSocketServer;
  core: Core;
  /** What the service says of itself to a client it accepts. */
  welcome(): ServiceWelcome;
  /** Runs going on now (queued included). */
  liveRuns(): number;
  /** Closes both servers, then the core (and with it the ledger), then gives up the data dir lock. Safe to call more than once. */
  stop(): Promise<void>;
  /** Settles once stop() has finished, whoever asked (a client's stop or quit, a signal, the idle timer). */
  readonly stopped: Promise<void>;
}

export interface ConsoleServiceOptions {
  log?: Logger;
  env?: NodeJS.ProcessEnv;
  /** The console version the service says it runs (tests pretend another to see a mismatch refused). */
  consoleVersion?: string;
  /**
   * How long the service waits, with no run going and no app attached, before it stops by itself.
   * Default: OPERATOR_CONSOLE_SERVICE_IDLE_MINUTES (minutes), else 10; 0 keeps it up until it is stopped.
   */
  idleExitMs?: number;
  /** The entry module's URL (service-main.ts's), which the built renderer is found beside. */
  entryUrl?: string;
}

/**
 * Starts the service. Given no log, it makes the console's own and closes it on stop; given a console
 * log (service-main.ts), it opens the log file in the data directory and leaves closing to the caller.
 */
export async function startConsoleService(argv: readonly string[], options: ConsoleServiceOptions = {}): Promise<RunningService> {
  const env = options.env ?? process.env;
  const ownLog: ConsoleLog | undefined = options.log ? undefined : createConsoleLog();
  const log: Logger = options.log ?? ownLog!;
  const args = parseHostArguments(argv);
  const token = hostTokenFromEnv(env);
  const consoleVersion = options.consoleVersion ?? __APP_VERSION__;
  const idleExitMs = options.idleExitMs ?? idleExitMsFromEnv(env);

  const staticDir = resolveRendererDir(env, options.entryUrl);
  if (!existsSync(path.join(staticDir, 'index.html'))) {
    throw new StartupError(`the renderer is not built (no index.html in ${staticDir}). Run \`npm run build\` first.`);
  }

  const dataDir = resolveDataDir({ flag: args.dataDir, env });
  // Before the core: making the core runs start-up recovery, which would stop another console's runs.
  let lock: DataDirLock;
  try {
    lock = await acquireDataDirLock({ dataDir, owner: { kind: 'console-service' }, log });
  } catch (error) {
    if (error instanceof DataDirLockedError) throw error;
    throw new StartupError(`could not open the data directory ${dataDir}: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Once the data directory is this console's: a refused second console never rotates the first's log.
  if (isConsoleLog(log)) log.writeToFile(dataDir);
  let core: Core;
  try {
    core = createCore({
      dataDir,
      transport: 'browser',
      appVersion: consoleVersion,
      log,
      // Started by the desktop app, the service runs on Electron's binary as Node: its SQLite addon is
      // the copy built for Electron's ABI (shell/native-binding.ts), which the app names here.
      sqliteNativeBinding: env.OPERATOR_CONSOLE_SQLITE_BINDING || undefined,
    });
  } catch (error) {
    await lock.release();
    // A refused ledger's message is the whole story (the file, why, and what to do: the newest backup
    // and the command that restores it, the console to update, the program to close).
    if (error instanceof LedgerDamagedError) throw new StartupError(error.message, { newestBackup: error.newestBackup?.file ?? null });
    if (error instanceof LedgerVersionError || error instanceof LedgerLockedError) throw new StartupError(error.message);
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

  const startedAt = new Date().toISOString();
  const liveRuns = () => core.ledger.runs.withStatus(goingStatuses).length;
  const welcome = (): ServiceWelcome => ({
    type: 'welcome',
    consoleVersion,
    contractVersion,
    pid: process.pid,
    dataDir,
    url: server.url,
    startedAt,
    liveRuns: liveRuns(),
  });

  let stopping: Promise<void> | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let socket: LocalSocketServer | undefined;
  const held = new HeldNotifications(core.events, core.ledger.notifications, () => server.socketCount() > 0 || (socket?.clients().some((client) => showsNotifications(client.hello?.client)) ?? false), log);
  server.onSocketAccepted((page) => held.deliverTo(page));
  let idleTimer: NodeJS.Timeout | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      clearTimeout(idleTimer);
      held.close();
      try {
        await socket?.close();
        await server.close();
        await core.close();
      } finally {
        // Last: until the core has closed, another console must not start recovery on this directory.
        await lock.release();
        await ownLog?.close();
        resolveStopped();
      }
    })());

  /**
   * "Let those runs finish and switch afterwards", asked by a client of `version`: no new run is taken
   * (new runs and resumes are refused, saying why; queued ones go on), every page says so, and the
   * service stops once its last run has ended, whoever is attached. The newer version's service,
   * started by that client, waits for this process to be gone and then starts by itself.
   */
  let handingOverTo: string | null = null;
  const handOverAfterRuns = (version: string) => {
    if (handingOverTo === null) {
      handingOverTo = version;
      log.info('service hands over after its runs', { toVersion: version, liveRuns: liveRuns() });
      core.runs.closeIntake({
        code: 'service_handing_over',
        message:
          `This console (version ${consoleVersion}) is finishing its runs before version ${version} takes over, and starts no new run meanwhile. ` +
          'Start it once the switch is done (it happens by itself when the last run ends), or restart now with `npm run serve -- --restart-now` (runs still going are stopped and can be resumed).',
      });
      core.system.handOverTo(version);
      core.lifecycle.on('runEnded', stopOnceRunsEnd);
    }
    stopOnceRunsEnd();
  };
  const stopOnceRunsEnd = () => {
    // After the run's end is settled (its own runEnded listeners first).
    setImmediate(() => {
      if (liveRuns() > 0 || stopping) return;
      log.info('service stopping: its last run ended, handing over', { toVersion: handingOverTo });
      void stop();
    });
  };

  const greeting: HostSocketGreeting = {
    hello: (hello, asking) => {
      const service = welcome();
      if (hello.consoleVersion !== consoleVersion || hello.contractVersion !== contractVersion) {
        if (hello.handover === 'after-runs') {
          handOverAfterRuns(hello.consoleVersion);
          return { ok: false, handingOver: { type: 'handing-over', consoleVersion, pid: process.pid, liveRuns: liveRuns() } };
        }
        log.warn('service client refused: another version', { client: hello.client, clientVersion: hello.consoleVersion, clientContract: hello.contractVersion, consoleVersion, contractVersion });
        const otherVersion = { type: 'other-version' as const, consoleVersion, contractVersion, pid: process.pid, liveRuns: service.liveRuns, handingOverTo };
        return { ok: false, otherVersion, error: { code: 'service_version_mismatch', message: versionMismatchMessage(otherVersion, hello) } };
      }
      log.info('service client attached', { client: hello.client });
      clearTimeout(idleTimer);
      // After the welcome, which the client waits for first: what was told while no app was attached.
      if (showsNotifications(hello.client)) setImmediate(() => held.deliverTo(asking));
      return { ok: true, welcome: service };
    },
    // Held in memory only (HandedKeyVault); what the app opens is sealed again at once. Never logged.
    secrets: (secrets) =>
      secrets.action === 'unlock' ? core.desktopSecrets.unlock(Buffer.from(secrets.key, 'base64'), { keyring: secrets.noKeyring !== true }) : core.desktopSecrets.reseal(secrets.secrets),
    control: (control, asking): Promise<ServiceControlResult> => {
      if (control.action === 'stop') {
        log.info('service stopping: a client asked', { client: asking.hello?.client });
        setImmediate(() => void stop());
        return Promise.resolve({ stopping: true, liveRuns: 0, otherClients: 0 });
      }
      // quit: the asking launcher goes away; the service goes on while anything needs it.
      const otherClients = socket!.clients().filter((client) => client !== asking).length;
      const going = liveRuns();
      if (going === 0 && otherClients === 0) {
        log.info('service stopping: its last client quit with no run going', { client: asking.hello?.client });
        setImmediate(() => void stop());
        return Promise.resolve({ stopping: true, liveRuns: 0, otherClients: 0 });
      }
      log.info('service goes on after a client quit', { client: asking.hello?.client, liveRuns: going, otherClients });
      return Promise.resolve({ stopping: false, liveRuns: going, otherClients });
    },
  };

  try {
    const socketPath = serviceSocketPath(dataDir, env);
    prepareServiceSocketFolder(socketPath);
    socket = await startLocalSocketServer({ core, socketPath, log, greeting });
  } catch (error) {
    await server.close();
    await core.close();
    await lock.release();
    throw new StartupError(`could not open the console service's socket: ${error instanceof Error ? error.message : String(error)}`);
  }

  // The refusal names this service by its address (the token stays out of the lock's owner file).
  lock.recordUrl(server.url);

  /**
   * With no run going and nothing attached (no app on the socket, no page open), the service stops after
   * idleExitMs: runs kept in the background have ended and nobody is looking. Counted again from when a
   * client goes or a run ends, and looked at again every idleExitMs while anything still needs it.
   */
  const considerIdleExit = () => {
    clearTimeout(idleTimer);
    if (idleExitMs <= 0 || stopping) return;
    idleTimer = setTimeout(() => {
      if (liveRuns() > 0 || (socket?.clients().length ?? 0) > 0 || server.socketCount() > 0) return considerIdleExit();
      log.info('service stopping: idle, no run going and no app attached', { idleMinutes: idleExitMs / 60_000 });
      void stop();
    }, idleExitMs);
    idleTimer.unref();
  };
  socket.onClientGone(considerIdleExit);
  core.lifecycle.on('runEnded', considerIdleExit);
  considerIdleExit();

  return { server, socket, core, welcome, liveRuns, stop, stopped };
}

/** `npm run serve` is attached while the operator works in a browser, but shows no notification itself. */
function showsNotifications(client: string | undefined): boolean {
  return client !== undefined && client !== 'browser-launcher';
}

/** OPERATOR_CONSOLE_SERVICE_IDLE_MINUTES: how long an idle service waits before it stops (0: never). */
export function idleExitMsFromEnv(env: NodeJS.ProcessEnv): number {
  const value = env.OPERATOR_CONSOLE_SERVICE_IDLE_MINUTES?.trim();
  if (!value) return 10 * 60_000;
  if (!/^\d+(\.\d+)?$/.test(value)) throw new UsageError(`OPERATOR_CONSOLE_SERVICE_IDLE_MINUTES must be a number of minutes (0 keeps the service up until it is stopped), not ${JSON.stringify(value)}.`);
  return Number(value) * 60_000;
}
