import { actionRoute } from '../../../shared/routes';
import { RemoteSession } from '../../hosts/remote-run/remote-session';
import { startOnHost } from '../../hosts/remote-run/remote-supervisor';
import { stopReason, type ActiveRun, type RunContext } from '../run-context';
import { takeStop } from './abortable';
import { need, type AttemptScope } from './attempt-scope';
import { adoptConfined } from './confined-process';
import { followAgent } from './spawn-and-follow';

/**
 * Step 6, for a run on an SSH host: the confined launch started under the console's supervisor there
 * (its own session, its PTY, its output spooled on the host), then followed as a local agent is
 * (`followAgent`): its output into the ledger and to viewers through the same pipeline, Stop, input
 * and resize through the same session interface (remote-session.ts), its exit awaited. A dropped
 * connection resumes from the next spool byte; a host that cannot be reached raises a notice and
 * marks the run, until it answers again.
 */
export async function spawnAndFollowOnHost(scope: AttemptScope, signal: AbortSignal): Promise<void> {
  const { active } = scope;
  const attempt = need(scope.attempt, 'attempt');
  const launch = need(scope.launch, 'confined launch');
  const { connection, layout } = need(scope.host, 'host');
  takeStop(signal);
  const { pid } = await startOnHost(connection, layout, attempt.id, {
    argv: [launch.executable, ...launch.args],
    env: launch.env,
    cwd: layout.taskRoot.view,
    cols: active.size.cols,
    rows: active.size.rows,
  });
  await followOnHost(scope, signal, { pid, executable: launch.executable, startOffset: 0, takenUp: false });
}

/**
 * The agent on the host, followed from `startOffset` of its spool until its exit: a new one, or one
 * a previous console left running there (`takenUp`, from the spool offset it had stored). A console
 * that closes leaves it running and records where in the spool its ledger stands, for the next start.
 */
export async function followOnHost(
  scope: AttemptScope,
  signal: AbortSignal,
  agent: { pid: number; executable: string; startOffset: number; takenUp: boolean },
): Promise<void> {
  const { context, active } = scope;
  const attempt = need(scope.attempt, 'attempt');
  const { connection, layout } = need(scope.host, 'host');
  const session = new RemoteSession({
    connection,
    layout,
    attemptId: attempt.id,
    pid: agent.pid,
    executablePath: agent.executable,
    startOffset: agent.startOffset,
    unreachableAtStart: context.ledger.runs.hostUnreachableSince(active.runId) !== null,
    onReachability: (reachable, detail) => hostReachability(context, active, connection.name, reachable, detail),
    onGaveUp: () => {
      context.log.warn('the run’s host did not confirm its stop', { runId: active.runId, host: connection.name });
      context.note(active.runId, attempt.id, 'host_stop_unconfirmed', { host: connection.name });
    },
    leaveRunning: () => stopReason(active) === 'shutdown',
  });
  const owner = { context, active, attemptId: attempt.id, signal };
  const locator: HostProcessLocator = {
    hostId: connection.hostId,
    attemptDir: layout.attemptDir(attempt.id),
    remotePid: agent.pid,
    attempt: active.attemptNumber,
    ...(scope.sealedRunToken ? { sealedRunToken: scope.sealedRunToken } : {}),
  };
  const launch = active.launch ?? { executable: agent.executable, args: [], env: {}, sandbox: 'bubblewrap' as const, cleanup: () => Promise.resolve() };
  let agentProcess;
  try {
    agentProcess = adoptConfined(owner, launch, session, locator);
  } catch (error) {
    await session.stop({ graceMs: 0 });
    throw error;
  }
  try {
    await followAgent(scope, agentProcess, { takenUp: agent.takenUp });
  } finally {
    if (session.gaveUp) hostGaveUp(context, active, connection.name);
    else if (!session.left) hostReachability(context, active, connection.name, true, '');
  }
  // Every byte received is in the ledger now: the next start follows the spool from there.
  if (session.left) context.saveLocator(active.runId, 'process', { ...locator, spoolOffset: session.offset });
}

/**
 * Where a run's agent on a host is: its host, its attempt's folder there, (once a closing console left
 * it) how far its spool is in the ledger, and its tunnel's token sealed by the console's vault (the
 * agent holds it as its key), with which a restarted console opens the run's tunnel again.
 */
export type HostProcessLocator = {
  hostId: string;
  attemptDir: string;
  remotePid: number;
  attempt: number;
  spoolOffset?: number;
  sealedRunToken?: string;
};

/** The run ended here without the host's word: its notice says so, and what makes sure nothing is left there. */
export function hostGaveUp(context: RunContext, active: ActiveRun, hostName: string): void {
  const dedupeKey = `host-unreachable:${active.runId}`;
  context.ledger.runs.setHostUnreachableSince(active.runId, null);
  context.announce(active.runId);
  const open = context.options.notices.latestForKey(dedupeKey);
  if (open?.status === 'open') {
    context.options.notices.revise(open.id, {
      message: `${hostName} did not answer, so the run was ended here without its word that the agent stopped there. Its supervisor there stops the agent when asked again: Clean up of the run (once ${hostName} answers) kills whatever is left of it and removes its folder.`,
      actionUrl: actionRoute({ kind: 'cleanup' }),
      actionLabel: 'Open Clean up',
    });
  }
}

/** The run's host stopped answering (a notice, the run marked unverifiable), or answers again (both cleared). */
export function hostReachability(context: RunContext, active: ActiveRun, hostName: string, reachable: boolean, detail: string): void {
  const { runId } = active;
  const dedupeKey = `host-unreachable:${runId}`;
  const since = reachable ? null : context.now();
  if (context.ledger.runs.hostUnreachableSince(runId) === since || (reachable && context.ledger.runs.hostUnreachableSince(runId) === null)) return;
  context.ledger.runs.setHostUnreachableSince(runId, since);
  context.announce(runId);
  if (active.attemptId) context.note(runId, active.attemptId, reachable ? 'host_reachable' : 'host_unreachable', { host: hostName, ...(detail ? { detail } : {}) });
  const notices = context.options.notices;
  if (!reachable) {
    const row = context.ledger.runs.row(runId);
    const task = row ? context.ledger.tasks.get(row.task_id) : undefined;
    notices.raise({
      kind: 'host_unreachable',
      severity: 'warning',
      title: 'SSH host unreachable',
      message: `${hostName} cannot be reached (${detail}), so whether “${task?.title ?? 'the task'}” still runs there is not known: it is shown as Unverifiable. The run goes on on the host if it can; the console reconnects by itself and loses no output. Check the host or the network. The run’s terminal takes no input meanwhile, and again once the host answers.`,
      actionUrl: actionRoute({ kind: 'run', runId }),
      actionLabel: 'Open the run',
      code: 'ssh_failed',
      runId,
      agentId: active.agentId,
      taskId: row?.task_id ?? null,
      dedupeKey,
    });
    return;
  }
  const open = notices.latestForKey(dedupeKey);
  if (open?.status === 'open') notices.resolve(open.id, `${hostName} answers again: the run's output is followed from where it stopped.`);
}
