import type { AttemptCause, Task } from '../../../shared/entities';
import { OperatorError, type OperatorErrorShape } from '../../../shared/errors';
import { describeError, detailsInLog } from '../../platform/log';
import type { SessionRequest } from '../../providers/launch';
import { isDiskFullFailure, runDiskFullFailure } from '../notices/disk-full-notices';
import { stopReason, type ActiveRun, type RunContext } from '../run-context';
import { abortable, AttemptStopped } from './abortable';
import type { AttemptEnd, AttemptOutcomeNote, RunAttempt } from './attempt-record';
import type { AttemptScope, AttemptServices } from './attempt-scope';
import { beginAttempt } from './begin-attempt';
import { cliNotFound } from './cli-not-found';
import { confine } from './confine';
import { undoConfinement } from './confined-process';
import { judge } from './judge';
import { openCredential } from './open-credential';
import { prepareTaskRoot } from './prepare-task-root';
import { projectSetup } from './project-setup';
import { tellDiskFull } from './output-lost';
import { spawnAndFollow } from './spawn-and-follow';
import { confineOnHost } from './confine-on-host';
import { prepareOnHost } from './prepare-on-host';
import { projectSetupOnHost } from './project-setup-on-host';
import { followOnHost, spawnAndFollowOnHost } from './spawn-and-follow-on-host';
import { reopenTunnelOnHost } from './model-tunnel-on-host';
import { remoteRunLayout } from '../../hosts/remote-run/remote-supervisor';
import { bringWorkBack } from './bring-work-back';
import { openTaskRoot } from '../../task-root/task-root';

/**
 * One attempt of a run, as its steps in order. Each step is a file of this folder, `(scope, signal)`:
 * it reads what earlier steps left in the scope and adds its own. The run's stop signal goes into
 * the steps' awaits (a Stop ends a long wait at once); a step that must finish despite a Stop says so.
 * What happens because of an attempt (notices, usage, cleanup) subscribes to its events (run-events.ts)
 * and is not a step.
 */
type AttemptStep = (scope: AttemptScope, signal: AbortSignal) => Promise<void>;

const steps: ReadonlyArray<AttemptStep> = [prepareTaskRoot, beginAttempt, projectSetup, openCredential, confine, spawnAndFollow, judge];

/**
 * A run on an SSH host (its admission names one): the same steps, with the host's variants where
 * the work happens there: its task root prepared there too, the project's setup command run there,
 * the launch confined for it, the agent started and followed there, and its work brought back.
 */
const hostSteps: ReadonlyArray<AttemptStep> = [prepareTaskRoot, prepareOnHost, beginAttempt, projectSetupOnHost, openCredential, confineOnHost, spawnAndFollowOnHost, bringWorkBack, judge];

export function attemptSteps(admission: { host?: { id: string } }): ReadonlyArray<AttemptStep> {
  return admission.host ? hostSteps : steps;
}

/** A run on an SSH host a closing console left running there, as its locator and its last attempt say. */
export interface TakenUpOnHost {
  task: Task;
  attempt: RunAttempt;
  hostId: string;
  pid: number;
  spoolOffset: number;
  /** Its tunnel's token, sealed (null: its model was not in a tunnel). */
  sealedRunToken: string | null;
}

export class AttemptPipeline {
  constructor(
    private readonly context: RunContext,
    private readonly services: AttemptServices,
  ) {}

  /**
   * Starts the next attempt of an admitted (or retrying, or resumed) run, recording `cause`, why it
   * starts, with it. Never throws: the run ends instead.
   */
  run(active: ActiveRun, session: SessionRequest, cause: AttemptCause, followUp?: string): Promise<void> {
    // Nobody awaits an attempt (it is started and left to run): whatever escapes it is logged here,
    // never left to become an unhandled rejection that stops the console.
    const done = this.attempt(active, session, cause, followUp).catch((error: unknown) => {
      this.context.log.error('a run attempt failed unexpectedly', { runId: active.runId, error: describeError(error) });
      if (this.context.active.get(active.runId) === active && !this.context.closing) {
        this.context.endWhenWritable(active.runId, 'failed', { code: 'internal', message: `The run failed unexpectedly. ${detailsInLog(this.context.log)}` });
      }
    });
    active.attemptDone = done;
    return done;
  }

  /**
   * A run on an SSH host that a closing console left running there (its locator holds how far its
   * spool is in the ledger): its tunnel opened again, followed again from that byte, then judged as
   * any attempt. Never throws.
   */
  takeUpOnHost(active: ActiveRun, taken: TakenUpOnHost): Promise<void> {
    const done = this.takeUp(active, taken).catch((error: unknown) => {
      this.context.log.error('a run taken up again failed unexpectedly', { runId: active.runId, error: describeError(error) });
      if (this.context.active.get(active.runId) === active && !this.context.closing) {
        this.context.endWhenWritable(active.runId, 'failed', { code: 'internal', message: `The run failed unexpectedly. ${detailsInLog(this.context.log)}` });
      }
    });
    active.attemptDone = done;
    return done;
  }

  private async takeUp(active: ActiveRun, taken: TakenUpOnHost): Promise<void> {
    const { context, services } = this;
    const signal = active.stopping.signal;
    const scope: AttemptScope = {
      context,
      services,
      active,
      request: { session: { mode: 'new' }, cause: 'first', followUp: undefined },
      runEnded: false,
      task: taken.task,
      attempt: taken.attempt,
    };
    try {
      if (!services.hosts) throw new Error('This console was started without SSH hosts.');
      const connection = await abortable(services.hosts.connection(taken.hostId), signal);
      scope.host = { connection, layout: remoteRunLayout(connection, active.runId) };
      const taskRoot = await openTaskRoot(context.options.dataDir, active.runId);
      if (taskRoot) scope.taskRoot = taskRoot;
      // Its model and network, through a tunnel that died with the console that opened it; closed with the attempt, as a launch's is.
      scope.sealedRunToken = taken.sealedRunToken;
      const closeTunnel = taskRoot ? await reopenTunnelOnHost(scope, taken.sealedRunToken) : () => Promise.resolve();
      active.launch = { executable: active.provider.displayName, args: [], env: {}, sandbox: active.admission.environmentKind === 'sandboxed' ? 'bubblewrap' : 'none', cleanup: closeTunnel };
      await followOnHost(scope, signal, { pid: taken.pid, executable: active.provider.displayName, startOffset: taken.spoolOffset, takenUp: true });
      if (scope.runEnded) return;
      // Its work comes back as a run's that was not taken up does (bring-work-back.ts).
      scope.projectId = taken.task.projectId;
      if (scope.taskRoot) await bringWorkBack(scope);
      await judge(scope);
    } catch (error) {
      await undoConfinement(active);
      this.attemptFailed(scope, error);
    }
  }

  private async attempt(active: ActiveRun, session: SessionRequest, cause: AttemptCause, followUp?: string): Promise<void> {
    const { context } = this;
    if (context.closing) return;
    if (!context.transition(active.runId, 'preparing')) {
      // Not where this attempt thought (refused, logged by the transition): nothing to drive.
      context.active.delete(active.runId);
      return;
    }
    const scope: AttemptScope = { context, services: this.services, active, request: { session, cause, followUp }, runEnded: false };
    try {
      for (const step of attemptSteps(active.admission)) {
        await step(scope, active.stopping.signal);
        if (scope.runEnded) return;
      }
    } catch (error) {
      // A confinement made for a process that never ran is undone, whatever went wrong.
      await undoConfinement(active);
      this.attemptFailed(scope, error);
    }
  }

  /**
   * A step threw: the run ends (cancelled by a Stop, failed otherwise) and so does its attempt, if one
   * began and no step ended it: no attempt is left running under a run that ended. A closing console
   * leaves both as they were: the next start finds them and strands them.
   */
  private attemptFailed(scope: AttemptScope, error: unknown): void {
    const { context, active } = scope;
    const endAttempt = (end: Pick<AttemptEnd, 'status' | 'failureCode'>, note?: AttemptOutcomeNote) => () => {
      if (scope.attempt?.running) scope.attempt.finish({ ...end, exitCode: null, signal: null, retryAt: null, endedAt: context.now() }, note);
    };
    if (error instanceof AttemptStopped) {
      if (stopReason(active) === 'shutdown') return;
      return context.endWhenWritable(
        active.runId,
        'cancelled',
        { code: 'cancelled', message: 'Stopped by the operator before it started.' },
        endAttempt({ status: 'cancelled', failureCode: 'cancelled' }),
      );
    }
    // The CLI's executable is missing (found so by its confinement or by the spawn): not a crash, an owner action.
    if (error instanceof OperatorError && error.code === 'spawn_failed' && scope.attempt?.running) return cliNotFound(scope, error);
    if (context.closing) return;
    if (isDiskFullFailure(error, context.options.dataDir)) {
      // The ledger or the task root could not be written: the disk's fault, not the run's. Its end
      // is written as soon as the ledger takes it; the Disk full notice says what to do.
      context.log.warn('run stopped: the disk is full', { runId: active.runId, error: String(error) });
      // git's own refusal (git_failed, reason disk_full) says the same: the run's code is disk_full either way.
      const failure = error instanceof OperatorError && error.code === 'disk_full' ? error.toShape() : runDiskFullFailure(context.options.dataDir, 'The run could not be prepared');
      tellDiskFull(context, active);
      return context.endWhenWritable(active.runId, 'failed', failure, endAttempt({ status: 'failed', failureCode: 'disk_full' }));
    }
    if (error instanceof OperatorError) {
      // An owner action (a configuration to fix), not a crash: its code and reason say it all.
      context.log.warn('run could not launch', { runId: active.runId, code: error.code, reason: error.reason });
    } else {
      context.log.error('run failed to launch', { runId: active.runId, error: describeError(error) });
    }
    const failure: OperatorErrorShape =
      error instanceof OperatorError ? error.toShape() : { code: 'internal', message: `The run could not be prepared. ${detailsInLog(context.log)}` };
    // A connection that became unusable (or unreadable) since admission is the owner's to fix: its notice hears the attempt's end;
    // before any attempt began (a secret variable that cannot be read now), it hears this.
    const ownerAction = failure.code === 'configuration_incomplete';
    if (ownerAction && !scope.attempt?.running) tellPreparationFailed(context, active, failure);
    context.endWhenWritable(active.runId, 'failed', failure, endAttempt({ status: 'failed', failureCode: failure.code }, { failure, ownerAction }));
  }
}

/** A run that failed before any attempt began, for a reason its owner must fix: its notice hears it (notices/attempt-notices.ts). */
function tellPreparationFailed(context: RunContext, active: ActiveRun, failure: OperatorErrorShape): void {
  const taskId = context.ledger.runs.row(active.runId)?.task_id ?? null;
  const task = taskId ? context.ledger.tasks.get(taskId) : undefined;
  context.lifecycle.emit('preparationFailed', { runId: active.runId, agent: { id: active.agentId, name: active.admission.agentName }, task: { id: taskId, title: task?.title ?? 'a task' }, failure });
}
