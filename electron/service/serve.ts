import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OperatorError } from '../../shared/errors';
import { resolveDataDir } from '../platform/data-dir';
import { isEntryPoint } from '../platform/entry-point';
import { isProcessAlive } from '../platform/process-group';
import { liveDataDirHolder } from '../platform/data-dir-lock';
import { hostTokenFromEnv, idleExitMsFromEnv, parseHostArguments, UsageError } from './console-service';
import { attachOrStartService, followServiceOutput, ServiceStartError, tryAttach } from './service-launcher';
import type { ServiceConnection } from './service-client';
import { serviceSocketPath } from './service-socket-path';

/**
 * `npm run serve -- [--port N] [--data-dir DIR]`: the console in any browser, served by the console
 * service of the data directory. It attaches to the service that runs there, or starts one (detached,
 * service-launcher.ts), and prints exactly one line on stdout, the service's address with its token
 * (scripts and the e2e launcher read it). It stays attached until Ctrl-C or SIGTERM: then the service
 * stops if no run is going and no other app is attached, and otherwise keeps its runs going in the
 * background, which this says. `--stop` stops the data directory's service now.
 */

export async function main(argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const tell = (line: string) => process.stderr.write(`${line}\n`);
  let stopFlag: boolean;
  let hostArgs: string[];
  let dataDir: string;
  let port: number;
  try {
    // --stop is this command's own; the rest are the service's flags, checked as it will check them.
    stopFlag = argv.includes('--stop');
    hostArgs = argv.filter((arg) => arg !== '--stop');
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

  let attached;
  try {
    attached = await attachOrStartService({ dataDir, port, client: 'browser-launcher', serviceEntry: serviceEntryPath(), env });
  } catch (error) {
    if (error instanceof ServiceStartError) {
      tell(error.message);
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

async function stopService(socketPath: string, dataDir: string, tell: (line: string) => void): Promise<number> {
  let connection: ServiceConnection | undefined;
  try {
    connection = await tryAttach(socketPath, 'browser-launcher');
  } catch (error) {
    if (!(error instanceof OperatorError) || error.code !== 'service_version_mismatch') throw error;
    // A service of another version answers, but not to this client: a stop is what the refusal
    // advises, so it goes by the pid the lock's owner file names (SIGTERM: every version's clean shutdown).
    const holder = liveDataDirHolder(dataDir);
    if (!holder || holder.kind !== 'console-service') {
      tell(`Operator Console: ${error.message}`);
      return 1;
    }
    process.kill(holder.pid, 'SIGTERM');
    const gone = await processGone(holder.pid, 30_000);
    tell(
      gone
        ? `Operator Console: the console service of another version (pid ${holder.pid}) stopped; runs it had going were stopped and can be resumed.`
        : `Operator Console: the console service (pid ${holder.pid}) did not stop in 30 s; end it with kill ${holder.pid}.`,
    );
    return gone ? 0 : 1;
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

async function processGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
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
