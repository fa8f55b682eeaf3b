import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { OperatorError } from '../../shared/errors';
import { resolveDataDir } from '../platform/data-dir';
import { restoreLedgerCommand } from '../ledger/restore-ledger-command';
import { isEntryPoint } from '../platform/entry-point';
import { hostTokenFromEnv, idleExitMsFromEnv, parseHostArguments, UsageError } from './console-service';
import { attachOrStartService, followServiceOutput, handOverAfterRuns, processGone, ServiceStartError, stopServiceOfAnotherVersion, tryAttach, type AttachOptions } from './service-launcher';
import { ServiceVersionMismatchError, type ServiceConnection } from './service-client';
import { contractVersion, versionMismatchMessage } from '../../shared/service-hello';
import { serviceSocketPath } from './service-socket-path';

/**
 * `npm run serve -- [--port N] [--data-dir DIR]`: the console in any browser, served by the console
 * service of the data directory. It attaches to the service that runs there, or starts one (detached,
 * service-launcher.ts), and prints exactly one line on stdout, the service's address with its token
 * (scripts and the e2e launcher read it). It stays attached until Ctrl-C or SIGTERM: then the service
 * stops if no run is going and no other app is attached, and otherwise keeps its runs going in the
 * background, which this says. `--stop` stops the data directory's service now.
 *
 * A service of another version is not attached to: this says which version runs how many runs, and the
 * two ways on. `--after-runs` lets those runs finish and switches afterwards (the older service takes no
 * new run and stops when its last run ends; this version's starts by itself then). `--restart-now`
 * stops it now (its runs strand, and can be resumed) and starts this version.
 */

export async function main(argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const tell = (line: string) => process.stderr.write(`${line}\n`);
  let stopFlag: boolean;
  let afterRuns: boolean;
  let restartNow: boolean;
  let hostArgs: string[];
  let dataDir: string;
  let port: number;
  try {
    // --stop is this command's own; the rest are the service's flags, checked as it will check them.
    stopFlag = argv.includes('--stop');
    afterRuns = argv.includes('--after-runs');
    restartNow = argv.includes('--restart-now');
    if ([stopFlag, afterRuns, restartNow].filter(Boolean).length > 1) throw new UsageError('Give one of --stop, --after-runs and --restart-now.');
    hostArgs = argv.filter((arg) => !ownFlags.includes(arg));
    const parsed = parseHostArguments(hostArgs);
    port = parsed.port;
    dataDir = resolveDataDir({ flag: parsed.dataDir, env });
    hostTokenFromEnv(env);
    idleExitMsFromEnv(env);
  } catch (error) {
    tell(error instanceof UsageError ? error.message : `Operator Console: ${String(error)}`);
    process.exitCode = 2;
    return;
  }
  const socketPath = serviceSocketPath(dataDir, env);

  if (stopFlag) {
    process.exitCode = await stopService(socketPath, dataDir, tell);
    return;
  }

  const start = { dataDir, port, serviceEntry: serviceEntryPath(), env };
  if (afterRuns) {
    const switching = await switchAfterRuns(socketPath, start, tell);
    if (switching !== 'attach') {
      process.exitCode = switching;
      return;
    }
  }
  if (restartNow) {
    const restarted = await restartOtherVersion(socketPath, dataDir, tell);
    if (restarted !== 0) {
      process.exitCode = restarted;
      return;
    }
  }

  let attached;
  try {
    attached = await attachOrStartService({ ...start, client: 'browser-launcher' });
  } catch (error) {
    if (error instanceof ServiceVersionMismatchError) {
      tell(`Operator Console: ${versionChoice(error)}`);
      process.exitCode = 1;
      return;
    }
    if (error instanceof ServiceStartError) {
      tell(error.message);
      // A damaged ledger with a backup, at a terminal: offered as the desktop app offers it.
      if (error.ledgerDamaged?.newestBackup && process.stdin.isTTY && process.stderr.isTTY && (await restoreAtTerminal(dataDir, error.ledgerDamaged.newestBackup, tell))) {
        return main(argv, env);
      }
      process.exitCode = error.usage ? 2 : 1;
      return;
    }
    if (error instanceof OperatorError) {
      tell(`Operator Console: ${error.message}`);
      process.exitCode = 1;
      return;
    }
    throw error;
  }
  const { connection, started } = attached;
  // The service's warnings and errors reach this terminal while it is attached, as when the core ran here.
  const stopFollowing = followServiceOutput(attached.output, (text) => process.stderr.write(text));
  const { welcome } = connection;
  if (!started) {
    const wantedPort = port !== 0 && !welcome.url.startsWith(`http://127.0.0.1:${port}/`);
    const wantedToken = hostTokenFromEnv(env);
    if (wantedToken !== undefined && new URL(welcome.url).searchParams.get('token') !== wantedToken) {
      tell(`Operator Console: the console service for ${dataDir} already runs with another token; OPERATOR_CONSOLE_HOST_TOKEN applies when it starts again (stop it with npm run serve -- --stop).`);
    }
    if (wantedPort) tell(`Operator Console: the console service for ${dataDir} already runs at ${origin(welcome.url)}; --port ${port} applies when it starts again (stop it with npm run serve -- --stop).`);
    if (welcome.liveRuns > 0) tell(`Operator Console: attached to the console service (pid ${welcome.pid}), ${runsGoing(welcome.liveRuns)} in the background.`);
  }

  let quitting = false;
  connection.onClose(() => {
    stopFollowing();
    if (quitting) return;
    tell(`Operator Console: the console service (pid ${welcome.pid}) stopped; its log is in ${path.join(dataDir, 'logs')}. Run npm run serve again to start it.`);
    process.exit(1);
  });
  const quit = (signal: NodeJS.Signals) => {
    if (quitting) return;
    quitting = true;
    setTimeout(() => process.exit(1), 20_000).unref();
    void quitService(connection, signal, tell).then((code) => process.exit(code));
  };
  process.once('SIGINT', quit);
  process.once('SIGTERM', quit);

  process.stdout.write(`Operator Console: ${welcome.url}\n`);
}

/**
 * This launcher goes away. The service decides: it stops when nothing needs it (and this waits until
 * its process is gone, so the port and the data directory are free), or it goes on with its runs.
 */
async function quitService(connection: ServiceConnection, signal: NodeJS.Signals, tell: (line: string) => void): Promise<number> {
  const { welcome } = connection;
  let result;
  try {
    result = await connection.control('quit');
  } catch {
    return 0;
  }
  if (!result.stopping) {
    const why = [result.liveRuns > 0 ? `${runsGoing(result.liveRuns)} in the background` : '', result.otherClients > 0 ? `${result.otherClients} other app${result.otherClients === 1 ? ' is' : 's are'} attached` : '']
      .filter(Boolean)
      .join(', and ');
    tell(
      `Operator Console: ${signal} received; the console service (pid ${welcome.pid}) goes on: ${why}. ` +
        `It stops by itself once nothing needs it; open ${origin(welcome.url)} again with npm run serve, or stop it now with npm run serve -- --stop.`,
    );
    await connection.close();
    return 0;
  }
  tell(`Operator Console: ${signal} received, shutting down.`);
  return (await processGone(welcome.pid, 15_000)) ? 0 : 1;
}

/**
 * The service refused a damaged ledger: asks at the terminal whether to put its newest backup in its
 * place (what `npm run ledger:restore` does: the damaged file is moved aside, never deleted), and does
 * it. True once restored, for the console to start again. Only at a terminal: a script gets the one line.
 */
async function restoreAtTerminal(dataDir: string, backupFile: string, tell: (line: string) => void): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await new Promise<string>((resolve) => {
    prompt.question(`Restore the newest backup (${backupFile}) now and start the console? [y/N] `, resolve);
    prompt.once('close', () => resolve(''));
  });
  prompt.close();
  if (!/^y(es)?$/i.test(answer.trim())) {
    tell('Operator Console: nothing was changed.');
    return false;
  }
  return (await restoreLedgerCommand(['--data-dir', dataDir, backupFile], { out: tell, err: tell })) === 0;
}

/** This command's own flags; the rest are the service's. */
const ownFlags = ['--stop', '--after-runs', '--restart-now'];

/**
 * What a launcher of this version says when the service runs another: which version runs how many
 * runs, and the two ways on with this command's flag for each. Composed here, from what the service said
 * of itself, so that the commands are this version's; a service too old to say it is quoted instead.
 */
function versionChoice(error: ServiceVersionMismatchError): string {
  if (!error.service) return `${error.message} Let its runs finish and switch afterwards: npm run serve -- --after-runs; or restart now: npm run serve -- --restart-now.`;
  return versionMismatchMessage(error.service, { type: 'hello', consoleVersion: __APP_VERSION__, contractVersion, client: 'browser-launcher' });
}

/** `--after-runs` (handOverAfterRuns): 'attach' goes on as a plain `npm run serve`; otherwise the exit code, once what happens is said. */
async function switchAfterRuns(socketPath: string, start: Omit<AttachOptions, 'client'>, tell: (line: string) => void): Promise<number | 'attach'> {
  const outcome = await handOverAfterRuns(socketPath, start, 'browser-launcher');
  if (outcome.kind === 'attach') return 'attach';
  const { older } = outcome;
  if (outcome.kind === 'stuck') {
    tell(`Operator Console: the console service of version ${older.consoleVersion} (pid ${older.pid}) did not stop in 30 s; end it with kill ${older.pid}.`);
    return 1;
  }
  tell(
    `Operator Console: version ${older.consoleVersion} of the console service (pid ${older.pid}) finishes its ${runsGoing(older.liveRuns)} and starts no new run; ` +
      `version ${__APP_VERSION__} starts by itself when ${older.liveRuns === 1 ? 'it ends' : 'they end'} (run npm run serve then for its address). ` +
      'To switch now instead: npm run serve -- --restart-now (runs still going are stopped and can be resumed).',
  );
  return 0;
}

/** `--restart-now`: a service of another version is stopped now (its runs strand, and can be resumed); then this version starts. */
async function restartOtherVersion(socketPath: string, dataDir: string, tell: (line: string) => void): Promise<number> {
  try {
    const running = await tryAttach(socketPath, 'browser-launcher');
    // None, or one of this version: nothing to restart.
    await running?.close();
    return 0;
  } catch (error) {
    if (!(error instanceof ServiceVersionMismatchError)) throw error;
    return stopOtherVersion(dataDir, error, tell);
  }
}

/** A service of another version answers, but not to this client: stopped by its pid (stopServiceOfAnotherVersion). */
async function stopOtherVersion(dataDir: string, refusal: OperatorError, tell: (line: string) => void): Promise<number> {
  const stopped = await stopServiceOfAnotherVersion(dataDir);
  if (!stopped) {
    tell(`Operator Console: ${refusal.message}`);
    return 1;
  }
  tell(
    stopped.gone
      ? `Operator Console: the console service of another version (pid ${stopped.pid}) stopped; runs it had going were stopped and can be resumed.`
      : `Operator Console: the console service (pid ${stopped.pid}) did not stop in 30 s; end it with kill ${stopped.pid}.`,
  );
  return stopped.gone ? 0 : 1;
}

async function stopService(socketPath: string, dataDir: string, tell: (line: string) => void): Promise<number> {
  let connection: ServiceConnection | undefined;
  try {
    connection = await tryAttach(socketPath, 'browser-launcher');
  } catch (error) {
    if (!(error instanceof OperatorError) || error.code !== 'service_version_mismatch') throw error;
    return stopOtherVersion(dataDir, error, tell);
  }
  if (!connection) {
    tell(`Operator Console: no console service runs for ${dataDir}.`);
    return 0;
  }
  const { pid, liveRuns } = connection.welcome;
  await connection.control('stop');
  const gone = await processGone(pid, 30_000);
  tell(
    gone
      ? `Operator Console: the console service (pid ${pid}) stopped${liveRuns > 0 ? `; ${runsGoing(liveRuns)} were stopped and can be resumed` : ''}.`
      : `Operator Console: the console service (pid ${pid}) did not stop in 30 s; end it with kill ${pid}.`,
  );
  return gone ? 0 : 1;
}

function runsGoing(count: number): string {
  return count === 1 ? '1 run going' : `${count} runs going`;
}

/** The address without its token, for sentences. */
function origin(url: string): string {
  return new URL(url).origin;
}

/** dist/electron/service.js, beside this file once built. */
export function serviceEntryPath(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'service.js');
}

if (isEntryPoint(import.meta.url)) void main();
