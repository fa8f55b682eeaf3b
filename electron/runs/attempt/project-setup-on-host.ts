import { RemoteSession } from '../../hosts/remote-run/remote-session';
import { startOnHost } from '../../hosts/remote-run/remote-supervisor';
import { takeStop } from './abortable';
import { need, type AttemptScope } from './attempt-scope';
import { confinedCommandOnHost } from './confine-on-host';
import { modelTunnelOnHost } from './model-tunnel-on-host';
import { adoptConfined } from './confined-process';
import { runProjectSetup, setupConnectionBaseUrl, type StartSetup } from './project-setup';
import { hostGaveUp, hostReachability, type HostProcessLocator } from './spawn-and-follow-on-host';

/**
 * Step 3, for a run on an SSH host: the project's setup command runs there, in the run's view on the
 * host, before the agent, as a local run's does (project-setup.ts does all but where it starts). It is
 * confined by the code that confines the agent there (`confinedCommandOnHost`: the same sandbox and
 * network mode, without the connection's key or the model tunnel; in the provider-only mode through
 * the run's egress proxy here, allowed what a local run's setup is), started under the console's
 * supervisor in a folder of its own beside the attempt's (`<attempt>-setup`: its spool, its exit), and
 * followed through the same session a host's agent is. Unlike the agent, it is not left running when
 * the console closes: the run stays Setting up and the next start strands it (and stops it there,
 * should this console die first: its locator names its folder and holds no spool offset to resume from).
 */
export function projectSetupOnHost(scope: AttemptScope, signal: AbortSignal): Promise<void> {
  return runProjectSetup(scope, signal, startSetupOnHost);
}

/** The setup's folder on the host, beside the attempt's own (Clean up's kill of leftovers covers both). */
export function setupFolderId(attemptId: string): string {
  return `${attemptId}-setup`;
}

const startSetupOnHost: StartSetup = async (scope, owner, command) => {
  const { context, active } = scope;
  const attempt = need(scope.attempt, 'attempt');
  const { connection, layout } = need(scope.host, 'host');
  const sandbox = active.admission.environmentKind === 'sandboxed' ? 'bubblewrap' : 'none';
  // In the provider-only mode the setup reaches what a local run's setup may, through the run's egress proxy here (no key, no model tunnel).
  const tunnel = await modelTunnelOnHost(scope, { for: 'setup', connectionBaseUrl: setupConnectionBaseUrl(scope) });
  let confined;
  try {
    confined = await confinedCommandOnHost(scope, { executable: '/bin/sh', args: ['-c', command], profileEnv: {}, delivery: null, tunnel });
  } catch (error) {
    await tunnel?.close();
    throw error;
  }
  const { argv, env } = confined;
  const launch = { executable: argv[0]!, args: argv.slice(1), env, sandbox, cleanup: async () => void (await tunnel?.close()) } as const;
  active.launch = launch;
  takeStop(owner.signal);
  const folder = setupFolderId(attempt.id);
  const { pid } = await startOnHost(connection, layout, folder, { argv, env, cwd: layout.taskRoot.view, cols: active.size.cols, rows: active.size.rows });
  const session = new RemoteSession({
    connection,
    layout,
    attemptId: folder,
    pid,
    executablePath: launch.executable,
    onReachability: (reachable, detail) => hostReachability(context, active, connection.name, reachable, detail),
    onGaveUp: () => {
      context.log.warn('the run’s host did not confirm its setup’s stop', { runId: active.runId, host: connection.name });
      context.note(active.runId, attempt.id, 'host_stop_unconfirmed', { host: connection.name });
      hostGaveUp(context, active, connection.name);
    },
    // A closing console stops the setup too: only an agent goes on on the host without it.
    leaveRunning: () => false,
  });
  // No spool offset: a console that dies meanwhile leaves nothing to take up, and the next start stops it there.
  const locator: HostProcessLocator = { hostId: connection.hostId, attemptDir: layout.attemptDir(folder), remotePid: pid, attempt: active.attemptNumber };
  try {
    return adoptConfined(owner, launch, session, locator);
  } catch (error) {
    await session.stop({ graceMs: 0 });
    throw error;
  }
};
