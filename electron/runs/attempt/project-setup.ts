import { OperatorError } from '../../../shared/errors';
import { effectiveBaseUrl } from '../../providers/credential-delivery';
import type { PtyExit } from '../../pty/pty-session';
import { framedSetupOutput, saveRunSetup, setupClosing, setupFailure, setupOpening } from './attempt-setup';
import { stopReason } from '../run-context';
import { AttemptStopped } from './abortable';
import type { AttemptOutcomeNote } from './attempt-record';
import { need, type AttemptScope } from './attempt-scope';
import { confineProcess, spawnConfined, type ConfinedProcess, type ConfinedProcessOwner } from './confined-process';
import { outputLost } from './output-lost';

/**
 * Step 3: the project's setup command, before the agent: `sh -c <command>` in the view, confined as
 * the agent is (the same confinement, without the connection's key, which setup has no use for), on
 * a PTY of its own whose output goes into the run's output between two "setup" lines. The run shows
 * Setting up meanwhile; Stop ends it. When it fails, the run has ended `failed` with setup_failed (an
 * owner action: no retry, no agent) and `scope.runEnded` says so. Nothing to do when the project has
 * no setup command, or a previous attempt of the run got through it.
 */
export function projectSetup(scope: AttemptScope, signal: AbortSignal): Promise<void> {
  return runProjectSetup(scope, signal, startSetupHere);
}

/** The setup command confined and started on this machine's PTY, with the proxy for its network. */
/**
 * What the setup's egress proxy lets it reach besides the allowed hosts: what the agent may, the
 * connection's base URL (metadata only: no secret is opened for setup), else the provider's API.
 */
export function setupConnectionBaseUrl(scope: AttemptScope): string | null {
  const { context, active } = scope;
  const connection = active.admission.homeMode === 'isolated' && active.admission.connection ? context.options.connections.state(active.admission.connection.id) : undefined;
  return connection ? effectiveBaseUrl(active.provider.definition, connection) : null;
}

const startSetupHere: StartSetup = async (scope, owner, command) => {
  const confinement = need(scope.confinement, 'confinement');
  const launch = await confineProcess(owner, {
    ...confinement,
    spec: { executable: '/bin/sh', args: ['-c', command], env: {}, cwd: confinement.taskRoot.view, session: null },
    connectionBaseUrl: setupConnectionBaseUrl(scope),
    credential: null,
  });
  return spawnConfined(owner, launch, confinement.taskRoot.view);
};

/**
 * Where the setup command runs (this machine, or the run's SSH host: project-setup-on-host.ts):
 * `sh -c <command>` in the run's view, confined as the agent is without the connection's key,
 * started; the rest (the run Setting up, its output framed, Stop, its outcome) is `runProjectSetup`'s.
 */
export type StartSetup = (scope: AttemptScope, owner: ConfinedProcessOwner, command: string) => Promise<ConfinedProcess>;

export async function runProjectSetup(scope: AttemptScope, signal: AbortSignal, startSetup: StartSetup): Promise<void> {
  const { context, active } = scope;
  const prepared = need(scope.setup, 'setup');
  const command = prepared.command;
  if (command === null) return;
  const attempt = need(scope.attempt, 'attempt');
  const { runId } = active;
  const startedAt = context.now();
  // A setup command that ran first started the run: its start stays the run's.
  if (!context.transition(runId, 'setting_up', { startedAt: context.requireRun(runId).started_at ?? startedAt })) {
    throw new Error('The run moved while its setup was about to start.');
  }
  scope.setupRan = true;
  const record = {
    ...prepared.record,
    setup: { status: 'running' as const, attempt: active.attemptNumber, exitCode: null, signal: null, startedAt: new Date(startedAt).toISOString(), endedAt: null },
  };
  const finishSetup = (status: 'succeeded' | 'failed' | 'cancelled', exit: PtyExit | null) =>
    saveRunSetup(context, runId, {
      ...record,
      setup: { ...record.setup, status, exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, endedAt: new Date(context.now()).toISOString() },
    });
  const finishAttempt = (status: 'failed' | 'cancelled', failureCode: string, exit: PtyExit | null, note?: AttemptOutcomeNote) =>
    attempt.finish({ status, failureCode, exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, retryAt: null, endedAt: context.now() }, note);
  saveRunSetup(context, runId, record);
  context.note(runId, attempt.id, 'setup_started', { command });

  const owner = { context, active, attemptId: attempt.id, signal };
  let setupProcess: ConfinedProcess;
  try {
    setupProcess = await startSetup(scope, owner, command);
  } catch (error) {
    if (error instanceof AttemptStopped) {
      // A closing console leaves the attempt for the next start to strand.
      if (stopReason(active) === 'operator') {
        finishAttempt('cancelled', 'cancelled', null);
        finishSetup('cancelled', null);
      }
      throw error;
    }
    finishAttempt('failed', error instanceof OperatorError ? error.code : 'internal', null);
    finishSetup('failed', null);
    throw error;
  }
  setupProcess.follow({ source: framedSetupOutput(setupProcess.session, setupOpening(command), (exit) => setupClosing(exit, stopReason(active) !== null)) });
  context.log.info('run setup started', { runId, attempt: active.attemptNumber, pid: setupProcess.pid });

  const { exit, endOffset, storageFailure } = await setupProcess.finished();
  if (storageFailure && stopReason(active) !== 'shutdown') {
    finishSetup(stopReason(active) === 'operator' ? 'cancelled' : 'failed', exit);
    outputLost(context, active, exit, endOffset);
    scope.runEnded = true;
    return;
  }
  if (stopReason(active) !== null) {
    // A closing console leaves the run setting up: the next start strands it.
    if (stopReason(active) === 'operator') {
      finishAttempt('cancelled', 'cancelled', exit);
      finishSetup('cancelled', exit);
    }
    throw new AttemptStopped();
  }
  if (exit.exitCode === 0 && exit.signal === null) {
    finishSetup('succeeded', exit);
    context.note(runId, attempt.id, 'setup_finished', { exitCode: 0 });
    context.lifecycle.emit('attemptProgressed', { ...attempt.parties, milestone: 'setup_succeeded' });
    return;
  }
  finishSetup('failed', exit);
  const failure = setupFailure(need(scope.projectId, 'project'), command, exit);
  // The owner must fix the command: the notice (a subscriber of the attempt's end) links to it.
  finishAttempt('failed', 'setup_failed', exit, { failure, ownerAction: true });
  context.note(runId, attempt.id, 'setup_failed', { exitCode: exit.exitCode, signal: exit.signal });
  context.log.warn('run setup failed', { runId, exitCode: exit.exitCode, signal: exit.signal });
  context.end(runId, 'failed', failure);
  scope.runEnded = true;
}
