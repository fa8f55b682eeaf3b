import { DataDirLockedError, liveDataDirHolder } from '../platform/data-dir-lock';
import { resolveDataDir } from '../platform/data-dir';
import { installCrashHandlers, crashLine } from '../platform/crash-handlers';
import { isDiskFullError } from '../platform/disk-space';
import { createConsoleLog, describeError, type ConsoleLog } from '../platform/log';
import { isEntryPoint } from '../platform/entry-point';
import { parseHostArguments, startConsoleService, StartupError, UsageError, type RunningService } from './console-service';

/**
 * `node dist/electron/service.js [--port N] [--data-dir DIR]`: the console service's process. It is
 * started detached by service-launcher.ts (its own session, stdout and stderr into
 * `<data dir>/logs/service-output.log`), so it outlives the terminal, launcher or app that started it.
 *
 * It tells its starter how the start went over the IPC channel the launcher gives it, once: `ready`
 * with its pid, `locked` (another service holds the data directory: attach to that one), or `failed`
 * with the one line to show. Then it lets the channel go, so that its starter can exit.
 * SIGTERM or SIGINT stops it cleanly (runs still going are stopped, as at any shutdown).
 */

export type ServiceStartReport =
  | { kind: 'ready'; pid: number }
  | { kind: 'locked'; message: string }
  /** `ledgerDamaged`: the refusal is a damaged ledger's, whose newest backup the launcher offers to restore. */
  | { kind: 'failed'; message: string; usage: boolean; ledgerDamaged?: { newestBackup: string | null } }
  /** Started with `--after-pid`: it waits for that service to be gone (its launcher has let it go then). */
  | { kind: 'waiting'; predecessorPid: number };

/** Over the IPC channel its launcher gave it, then let go; without one (started by hand, or let go already) nowhere. */
function reportToLauncher(message: ServiceStartReport): void {
  if (!process.send || !process.connected) return;
  process.send(message, () => {
    if (process.connected) process.disconnect();
  });
}

export async function main(
  argv: readonly string[] = process.argv.slice(2),
  log: ConsoleLog = createConsoleLog(),
  report: (message: ServiceStartReport) => void = () => undefined,
): Promise<void> {
  let service: RunningService | undefined;
  const uninstallCrashHandlers = installCrashHandlers({
    log,
    // A write the full disk refused is no reason to stop: the Disk full notice says what to do.
    survivable: isDiskFullError,
    onCrash: (crash) => {
      log.tell(crashLine(crash), 'error');
      setTimeout(() => process.exit(1), 5_000).unref();
      void (service?.stop() ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => log.close())
        .finally(() => process.exit(1));
    },
  });
  try {
    const after = predecessorOf(argv);
    if (after) {
      // The switch to this version after the older service's runs: it starts once that one is gone.
      report({ kind: 'waiting', predecessorPid: after.pid });
      log.tell(`Operator Console service: waiting for the console service (pid ${after.pid}) to finish its runs; this version starts then.`);
      // Until it has given the data directory up (its lock's owner record names it, pid and start time,
      // so a pid reused by another process after it ended does not keep this waiting).
      const dataDir = resolveDataDir({ flag: parseHostArguments(after.rest).dataDir, env: process.env });
      while (liveDataDirHolder(dataDir)?.pid === after.pid) await new Promise((resolve) => setTimeout(resolve, predecessorPollMs));
      argv = after.rest;
    }
    service = await startConsoleService(argv, { log, entryUrl: import.meta.url });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // One line, and only it: the refusal already names the console ("Another Operator Console is
    // already using ..."). The log file, when this console got as far as opening it, keeps it too.
    const line = error instanceof DataDirLockedError ? message : `Operator Console: ${message}`;
    log.tell(line, 'error');
    // Written to the log file before the launcher hears of it: it may read the log (or exit, and its
    // caller read it) the moment it has the report.
    await log.flush().catch(() => undefined);
    const ledgerDamaged = error instanceof StartupError ? error.ledgerDamage : undefined;
    report(
      error instanceof DataDirLockedError
        ? { kind: 'locked', message: line }
        : { kind: 'failed', message: line, usage: error instanceof UsageError, ...(ledgerDamaged ? { ledgerDamaged } : {}) },
    );
    process.exitCode = error instanceof UsageError ? 2 : 1;
    uninstallCrashHandlers();
    await log.close();
    return;
  }
  const running = service;

  const shutDown = (signal: NodeJS.Signals) => {
    log.tell(`Operator Console service: ${signal} received, shutting down.`);
    void running.stop();
  };
  process.once('SIGINT', shutDown);
  process.once('SIGTERM', shutDown);
  // However it stops (a signal, a client's stop, idle), the process ends once the service has.
  void running.stopped.then(() => {
    // Closing is bounded, but a wedged handle must not keep the process alive forever.
    setTimeout(() => process.exit(1), 5_000).unref();
    log.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`Operator Console service: the log did not close: ${describeError(error)}\n`);
        process.exit(1);
      },
    );
  });

  log.info('console service ready', { pid: process.pid, socket: running.socket.socketPath, url: running.server.origin });
  report({ kind: 'ready', pid: process.pid });
}

const predecessorPollMs = 500;

/** `--after-pid N` (the launcher's, never the operator's): the service to wait for, and the other flags. */
function predecessorOf(argv: readonly string[]): { pid: number; rest: string[] } | undefined {
  const at = argv.indexOf('--after-pid');
  if (at < 0) return undefined;
  const pid = Number(argv[at + 1]);
  if (!Number.isInteger(pid) || pid <= 0) throw new UsageError(`--after-pid needs a process id, not ${JSON.stringify(argv[at + 1])}.`);
  return { pid, rest: [...argv.slice(0, at), ...argv.slice(at + 2)] };
}

if (isEntryPoint(import.meta.url)) void main(process.argv.slice(2), createConsoleLog(), reportToLauncher);
