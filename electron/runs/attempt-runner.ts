import { homedir } from 'node:os';
import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { prepareTaskRoot } from '../confinement/task-root';
import { effectiveBaseUrl, modelArgumentFor } from '../connections/credential-delivery';
import type { AttemptCause, Task } from '../../shared/entities';
import { newId } from '../ledger/ids';
import { describeBytes } from '../disk-space';
import { describeError, detailsInLog } from '../log';
import type { LaunchSpec, SessionRequest } from '../providers/launch';
import type { PtyExit } from '../pty/pty-session';
import { judgeAttempt } from './attempt-outcome';
import { abortable, AttemptStopped, takeStop } from './attempt/abortable';
import { confineProcess, spawnConfined, type ConfinedProcess } from './attempt/confined-process';
import { RunAttempt } from './attempt/attempt-record';
import { budgetStoppingRetry, endOverBudget } from './budget-stop';
import { followTimeline } from './attempt-timeline';
import type { ConfineLaunchInput } from './attempt-confinement';
import { framedSetupOutput, prepareRunSetup, saveRunSetup, setupClosing, setupFailure, setupOpening, type PreparedSetup } from './attempt-setup';
import { isDiskFullFailure, runDiskFullFailure } from './disk-full-notices';
import { digest, stopReason, type ActiveRun, type RunContext, type SandboxProbeSource } from './run-context';
import { credentialFor } from './run-credentials';
import type { NetworkNotices } from './network-notices';
import { fixedBySuccessCodes, type RunNotices } from './run-notices';
import type { RunWorkspace } from './run-workspace';
import { buildWorkerPrompt } from './worker-prompt';

/** How much of an attempt's output the failure classifier reads. */
const classifierTailBytes = 64 * 1024;

function throwIfStopped(active: ActiveRun): void {
  takeStop(active.stopping.signal);
}

const unlessStopped = <T>(active: ActiveRun, promise: Promise<T>): Promise<T> => abortable(promise, active.stopping.signal);

export interface AttemptRunnerOptions {
  workspace: RunWorkspace;
  sandboxProbe: SandboxProbeSource;
  runNotices: RunNotices;
  networkNotices: NetworkNotices;
  /** A failed attempt the retry policy gives another go: the scheduler waits until `retryAt`. */
  scheduleRetry: (active: ActiveRun, retryAt: number) => void;
}

/**
 * One attempt of a run: prepare its task root → confine the launch → spawn the CLI in a PTY → await
 * its exit and all of its output → judge the outcome. A Stop reaches every step: each await is
 * followed by a look at the run's stop signal, and the long ones end on it.
 */
export class AttemptRunner {
  constructor(
    private readonly context: RunContext,
    private readonly options: AttemptRunnerOptions,
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

  private async attempt(active: ActiveRun, sessionRequest: SessionRequest, cause: AttemptCause, followUp?: string): Promise<void> {
    const { context } = this;
    if (context.closing) return;
    if (!context.transition(active.runId, 'preparing')) {
      // Not where this attempt thought (refused, logged by the transition): nothing to drive.
      context.active.delete(active.runId);
      return;
    }
    try {
      await this.launchAttempt(active, sessionRequest, cause, followUp);
    } catch (error) {
      if (error instanceof AttemptStopped) {
        // A closing console leaves the run as it was: the next start finds it and strands it.
        if (stopReason(active) === 'shutdown') return;
        return context.endWhenWritable(active.runId, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator before it started.' });
      }
      if (context.closing) return;
      if (isDiskFullFailure(error, context.options.dataDir)) {
        // The ledger or the task root could not be written: the disk's fault, not the run's. Its end
        // is written as soon as the ledger takes it; the Disk full notice says what to do.
        context.log.warn('run stopped: the disk is full', { runId: active.runId, error: String(error) });
        // git's own refusal (git_failed, reason disk_full) says the same: the run's code is disk_full either way.
        const failure = error instanceof OperatorError && error.code === 'disk_full' ? error.toShape() : runDiskFullFailure(context.options.dataDir, 'The run could not be prepared');
        this.raiseDiskFull(active);
        return context.endWhenWritable(active.runId, 'failed', failure);
      }
      if (error instanceof OperatorError) {
        // An owner action (a configuration to fix), not a crash: its code and reason say it all.
        context.log.warn('run could not launch', { runId: active.runId, code: error.code, reason: error.reason });
      } else {
        context.log.error('run failed to launch', { runId: active.runId, error: describeError(error) });
      }
      const failure: OperatorErrorShape =
        error instanceof OperatorError ? error.toShape() : { code: 'internal', message: `The run could not be prepared. ${detailsInLog(context.log)}` };
      context.endWhenWritable(active.runId, 'failed', failure);
    }
  }

  /** The run joins the Disk full notice (which may not be writable itself: it says so in the log). */
  private raiseDiskFull(active: ActiveRun): void {
    let taskId: string | null = null;
    try {
      taskId = this.context.ledger.runs.row(active.runId)?.task_id ?? null;
    } catch {
      // Reading a full disk's ledger still works; if it did not, the notice names no task.
    }
    this.options.runNotices.raiseOwnerNotice(active.runId, { id: active.agentId, name: active.admission.agentName }, { id: taskId, title: '' }, { code: 'disk_full', message: '' });
  }

  /**
   * The ledger gave up storing the attempt's output (a full disk), and its process was stopped: the
   * attempt and the run end with what was stored, and are not retried. A Stop that came first wins.
   */
  private outputLost(active: ActiveRun, exit: PtyExit, storedBytes: number): void {
    const { context } = this;
    const stopped = stopReason(active) === 'operator';
    // The disk is full: the attempt's end and the run's are retried together until the ledger takes them.
    const endedAt = context.now();
    // Retried with the run's end until the ledger takes both: once the attempt's end is in, it is not ended again.
    const finishAttempt = () => {
      if (!active.attempt?.running) return;
      active.attempt.finish({
        exitCode: exit.exitCode,
        signal: exit.signal,
        retryAt: null,
        endedAt,
        status: stopped ? 'cancelled' : 'failed',
        failureCode: stopped ? 'cancelled' : 'disk_full',
      });
    };
    context.log.warn('run stopped: its output could not be stored', { runId: active.runId, storedBytes });
    this.raiseDiskFull(active);
    if (stopped) return context.endWhenWritable(active.runId, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator.' }, finishAttempt);
    context.endWhenWritable(
      active.runId,
      'failed',
      runDiskFullFailure(context.options.dataDir, `The run’s output could not be stored after ${describeBytes(storedBytes)}, so it was stopped`),
      finishAttempt,
    );
  }

  private async launchAttempt(active: ActiveRun, sessionRequest: SessionRequest, cause: AttemptCause, followUp?: string): Promise<void> {
    const { context } = this;
    const { options: service } = context;
    const row = context.requireRun(active.runId);
    const task = context.ledger.tasks.get(row.task_id);
    const project = task ? context.ledger.projects.get(task.projectId) : undefined;
    if (!task || !project) {
      throw new OperatorError({ code: 'not_found', message: 'The run’s task or project was removed from the console.' });
    }
    const { definition } = active.provider;
    const probe = await unlessStopped(active, this.options.sandboxProbe.ready());
    // A sandboxed run's writable roots belong to the sandbox's user (nobody, when the console is root).
    const owner = active.admission.environmentKind === 'sandboxed' ? (probe?.setup?.user ?? null) : null;
    const tools = await unlessStopped(active, this.options.workspace.toolsFor(active.admission, 'read'));
    // The task root is made whole even if a Stop comes meanwhile (half a worktree is worse than one
    // the operator can delete), and then the Stop is taken.
    const taskRoot = await prepareTaskRoot({ dataDir: service.dataDir, runId: active.runId, project, owner, tools });
    context.ledger.runs.update(active.runId, { taskRoot: taskRoot.root, cwd: taskRoot.view, baseRevision: taskRoot.baseRevision });
    // Landing's default target: the branch the run started from.
    context.ledger.runs.recordBaseBranch(active.runId, taskRoot.baseBranch);
    throwIfStopped(active);
    // The project's files and the run's variables, at every preparation; the setup command further on.
    const setup = await prepareRunSetup(context, active, { projectId: project.id, taskId: task.id, taskRoot, owner });
    throwIfStopped(active);

    const prompt = followUp ?? buildWorkerPrompt(task);
    // Pi through a connection's base URL addresses the model by the console's provider entry.
    const deliveredConnection =
      active.admission.homeMode === 'isolated' && active.admission.connection ? (service.connections.state(active.admission.connection.id) ?? null) : null;
    const spec: LaunchSpec = definition.launch.build(active.provider, {
      task,
      agent: { model: modelArgumentFor(definition, deliveredConnection, active.admission.model), profile: active.profile },
      taskRoot,
      prompt,
      session: sessionRequest,
      environmentKind: active.admission.environmentKind,
    });
    active.sessionId = spec.session?.id ?? null;
    active.sessionDir = spec.session?.dir ?? null;
    active.sessionSource = spec.session?.source ?? null;

    active.attemptNumber += 1;
    const attemptId = newId('att');
    active.attemptId = attemptId;
    active.attemptEvents = [];
    const attempt = RunAttempt.start(context, { id: attemptId, runId: active.runId, number: active.attemptNumber, cause, startedAt: context.now() });
    active.attempt = attempt;
    // Viewers hear where it begins before any of its bytes, so the separator lands in place (the
    // previous attempt's bytes are all in the ledger by now: its end was awaited before this).
    service.fanout.attemptStarted(active.runId);

    // One confinement for the setup command and the agent: the same sandbox, network rules, egress
    // allow-list and variables. Anything a launch is confined by belongs here, so neither can differ.
    const confinement: Omit<ConfineLaunchInput, 'spec' | 'connectionBaseUrl' | 'credential'> = {
      taskRoot,
      provider: active.provider,
      profile: active.profile,
      admission: active.admission,
      operatorEnv: service.operatorEnv ?? process.env,
      operatorHome: service.operatorHome ?? homedir(),
      dataDir: service.dataDir,
      sandbox: probe,
      onEgressDecision: (decision) => {
        context.note(active.runId, attemptId, 'egress', { ...decision });
        // A host that is no host at all cannot be allowed: the Network panel shows it, no notice offers it.
        if (decision.allowed || decision.invalidHost) return;
        this.options.networkNotices.blocked({
          runId: active.runId,
          agent: { id: active.agentId, name: active.admission.agentName },
          task: { id: task.id, title: task.title },
          environmentId: active.admission.environmentId,
          host: decision.host,
          port: decision.port,
        });
      },
      layerVariables: setup.env,
    };
    if (setup.command !== null) {
      const succeeded = await this.runSetupCommand(active, { task, projectId: project.id, setup, command: setup.command, confinement, attemptId, startedAt: row.started_at });
      if (!succeeded) return;
    }

    const processOwner = { context, active, attemptId, signal: active.stopping.signal };
    let agentProcess: ConfinedProcess;
    try {
      // The connection's secret is opened here, at launch, and nowhere earlier: a refused run never
      // decrypts anything. It lives on in the delivered files (removed when the attempt ends), the
      // child's environment and the redactor. A connection being updated is waited for, unless Stop.
      const credential = await credentialFor(active, service.connections, (idle) => unlessStopped(active, idle));
      throwIfStopped(active);
      const launch = await confineProcess(processOwner, {
        ...confinement,
        spec,
        connectionBaseUrl: credential?.baseUrl ?? null,
        credential: credential?.delivery ?? null,
      });
      agentProcess = await spawnConfined(processOwner, launch, spec.cwd);
    } catch (error) {
      if (error instanceof AttemptStopped) {
        // A closing console leaves the attempt for the next start to strand, as it does a running one.
        if (stopReason(active) === 'operator') {
          attempt.finish({ status: 'cancelled', failureCode: 'cancelled', exitCode: null, signal: null, retryAt: null, endedAt: context.now() });
        }
        throw error;
      }
      if (error instanceof OperatorError && error.code === 'spawn_failed') return this.spawnFailed(active, task, error);
      const code = error instanceof OperatorError ? error.code : 'internal';
      attempt.finish({ status: 'failed', failureCode: code, exitCode: null, signal: null, retryAt: null, endedAt: context.now() });
      // A connection that became unusable (or unreadable) since admission is the owner's to fix.
      if (error instanceof OperatorError && error.code === 'configuration_incomplete') {
        const agent = context.ledger.agents.get(active.agentId);
        if (agent) this.options.runNotices.raiseOwnerNotice(active.runId, agent, { id: task.id, title: task.title }, error.toShape());
      }
      throw error;
    }
    this.options.runNotices.resolveFixedBy(active.agentId, ['spawn_failed'], `A later run of ${active.admission.agentName} found its CLI and started.`);

    // The process (and the CLI's session, where it names one up front) must be findable again before
    // the run is awaited: if the console dies from here on, recovery starts from these.
    if (active.sessionId) context.saveSessionLocator(active);

    const agentFrom = context.ledger.output.totalBytes(active.runId);
    const pipeline = agentProcess.follow({ startOffset: agentFrom });
    const eventFormat = active.profile.eventFormat ?? definition.events.format;
    followTimeline(context, active, pipeline, eventFormat === 'text' ? null : eventFormat, { resumed: sessionRequest.mode === 'resume' });

    // A setup command that ran first started the run: its start stays the run's.
    context.transition(active.runId, 'running', { startedAt: context.ledger.runs.row(active.runId)?.started_at ?? context.now() });
    context.log.info('run attempt started', { runId: active.runId, attempt: active.attemptNumber, pid: agentProcess.pid });

    const { exit, endOffset, storageFailure } = await agentProcess.finished();
    // A closing console leaves the run as it was: the next start finds it and strands it, with Resume.
    if (context.closing) return;
    if (storageFailure) return this.outputLost(active, exit, endOffset);
    this.attemptEnded(active, task, exit, endOffset, setup.command !== null ? agentFrom : null);
  }

  /** `agentFrom`: where the agent's output began, when a setup command's output came before it in this attempt. */
  private attemptEnded(active: ActiveRun, task: Task, exit: PtyExit, endOffset: number, agentFrom: number | null): void {
    const { context } = this;
    const attemptId = active.attemptId!;
    const attempt = active.attempt!;
    const finished = { exitCode: exit.exitCode, signal: exit.signal, endedAt: context.now() };
    if (stopReason(active) === 'operator') {
      attempt.finish({ ...finished, status: 'cancelled', failureCode: 'cancelled', retryAt: null });
      return context.end(active.runId, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator.' });
    }
    // What a setup command printed before the agent is not the agent's failure: the tail stops at it.
    const tailBytes = agentFrom === null ? classifierTailBytes : Math.min(classifierTailBytes, Math.max(0, endOffset - agentFrom));
    const tail = context.ledger.output.tail(active.runId, tailBytes);
    const outcome = judgeAttempt({
      provider: active.provider,
      profile: active.profile,
      model: active.admission.model,
      agentId: active.agentId,
      attemptNumber: active.attemptNumber,
      exit,
      outputTail: new TextDecoder().decode(tail.bytes),
      events: active.attemptEvents,
      now: context.now(),
      closing: context.closing,
    });
    if (outcome.kind === 'succeeded') {
      attempt.finish({ ...finished, status: 'succeeded', failureCode: null, retryAt: null });
      context.ledger.runs.update(active.runId, {
        submissionJson: JSON.stringify({ readyForReview: outcome.readyForReview, artifactIdentity: artifactIdentity(task) }),
      });
      this.options.runNotices.resolveFixedBy(active.agentId, fixedBySuccessCodes, `A later run of ${active.admission.agentName} succeeded.`);
      return context.end(active.runId, 'succeeded', null);
    }
    const { failure } = outcome;
    if (failure.quota) context.note(active.runId, attemptId, 'quota_observed', { ...failure.quota });
    // A run that crossed its budget during this attempt is not given another one.
    const overBudget = outcome.kind === 'retry' ? budgetStoppingRetry(context, active) : null;
    const retryAt = outcome.kind === 'retry' && !overBudget ? outcome.retryAt : null;
    attempt.finish({ ...finished, status: 'failed', failureCode: failure.code, retryAt });
    if (overBudget) return endOverBudget(context, this.options.runNotices, active, overBudget);
    if (outcome.kind === 'retry') {
      context.note(active.runId, attemptId, 'retry_scheduled', {
        code: failure.code,
        nextAttempt: active.attemptNumber + 1,
        retryAt: new Date(outcome.retryAt).toISOString(),
        message: failure.message,
      });
      context.announce(active.runId);
      return this.options.scheduleRetry(active, outcome.retryAt);
    }
    if (outcome.notifyOwner) {
      const agent = context.ledger.agents.get(active.agentId);
      if (agent) this.options.runNotices.raiseOwnerNotice(active.runId, agent, { id: task.id, title: task.title }, outcome.shape);
    }
    context.end(active.runId, 'failed', outcome.shape);
  }

  /**
   * The project's setup command, before the agent: `sh -c <command>` in the view, confined as the
   * agent is (the same confinement, without the connection's key, which setup has no use for), on a
   * PTY of its own whose output goes into the run's output between two "setup" lines. The run shows
   * Setting up meanwhile; Stop ends it. True when it succeeded and the agent may start; false when it
   * failed (the run has ended `failed` with setup_failed, an owner action: no retry, no agent).
   */
  private async runSetupCommand(
    active: ActiveRun,
    input: {
      task: Task;
      projectId: string;
      setup: PreparedSetup;
      command: string;
      confinement: Omit<ConfineLaunchInput, 'spec' | 'connectionBaseUrl' | 'credential'>;
      attemptId: string;
      startedAt: number | null;
    },
  ): Promise<boolean> {
    const { context } = this;
    const { options: service } = context;
    const { runId } = active;
    const { taskRoot } = input.confinement;
    const startedAt = context.now();
    if (!context.transition(runId, 'setting_up', { startedAt: input.startedAt ?? startedAt })) {
      throw new Error('The run moved while its setup was about to start.');
    }
    const record = {
      ...input.setup.record,
      setup: { status: 'running' as const, attempt: active.attemptNumber, exitCode: null, signal: null, startedAt: new Date(startedAt).toISOString(), endedAt: null },
    };
    const finishSetup = (status: 'succeeded' | 'failed' | 'cancelled', exit: PtyExit | null) =>
      saveRunSetup(context, runId, {
        ...record,
        setup: { ...record.setup, status, exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, endedAt: new Date(context.now()).toISOString() },
      });
    const finishAttempt = (status: 'failed' | 'cancelled', failureCode: string, exit: PtyExit | null) =>
      active.attempt!.finish({ status, failureCode, exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, retryAt: null, endedAt: context.now() });
    saveRunSetup(context, runId, record);
    context.note(runId, input.attemptId, 'setup_started', { command: input.command });

    // The proxy lets setup reach what the agent may: the connection's base URL (metadata only: no
    // secret is opened for setup), else the provider's API, and the operator's allow-list.
    const connection = active.admission.homeMode === 'isolated' && active.admission.connection ? service.connections.state(active.admission.connection.id) : undefined;
    const processOwner = { context, active, attemptId: input.attemptId, signal: active.stopping.signal };
    let setupProcess: ConfinedProcess;
    try {
      const launch = await confineProcess(processOwner, {
        ...input.confinement,
        spec: { executable: '/bin/sh', args: ['-c', input.command], env: {}, cwd: taskRoot.view, session: null },
        connectionBaseUrl: connection ? effectiveBaseUrl(active.provider.definition, connection) : null,
        credential: null,
      });
      setupProcess = await spawnConfined(processOwner, launch, taskRoot.view);
    } catch (error) {
      if (error instanceof AttemptStopped) {
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
    setupProcess.follow({ source: framedSetupOutput(setupProcess.session, setupOpening(input.command), (exit) => setupClosing(exit, stopReason(active) !== null)) });
    context.log.info('run setup started', { runId, attempt: active.attemptNumber, pid: setupProcess.pid });

    const { exit, endOffset, storageFailure } = await setupProcess.finished();
    if (storageFailure && stopReason(active) !== 'shutdown') {
      finishSetup(stopReason(active) === 'operator' ? 'cancelled' : 'failed', exit);
      this.outputLost(active, exit, endOffset);
      return false;
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
      context.note(runId, input.attemptId, 'setup_finished', { exitCode: 0 });
      this.options.runNotices.resolveFixedBy(active.agentId, ['setup_failed'], `A later run of ${active.admission.agentName} got through its project’s setup.`);
      return true;
    }
    finishSetup('failed', exit);
    finishAttempt('failed', 'setup_failed', exit);
    const failure = setupFailure(input.projectId, input.command, exit);
    context.note(runId, input.attemptId, 'setup_failed', { exitCode: exit.exitCode, signal: exit.signal });
    context.log.warn('run setup failed', { runId, exitCode: exit.exitCode, signal: exit.signal });
    const agent = context.ledger.agents.get(active.agentId);
    if (agent) this.options.runNotices.raiseOwnerNotice(runId, agent, { id: input.task.id, title: input.task.title }, failure, 'Project setup failed');
    context.end(runId, 'failed', failure);
    return false;
  }

  private spawnFailed(active: ActiveRun, task: Task, error: OperatorError): void {
    const { context } = this;
    active.attempt!.finish({ status: 'failed', failureCode: 'spawn_failed', exitCode: null, signal: null, retryAt: null, endedAt: context.now() });
    const executable = active.profile.executable ?? active.provider.executable ?? 'the CLI';
    const shape: OperatorErrorShape = {
      code: 'spawn_failed',
      reason: 'executable_not_found',
      message: `${active.provider.displayName} could not be started: ${error.message} Install ${executable}${
        active.provider.definition.ownProgram ? '' : ` (the ${active.provider.displayName} CLI)`
      } or set the agent's executable path.`,
      actionUrl: actionRoute({ kind: 'agent-executable-path', agentId: active.agentId }),
    };
    const agent = context.ledger.agents.get(active.agentId);
    if (agent) this.options.runNotices.raiseOwnerNotice(active.runId, agent, { id: task.id, title: task.title }, shape, `${active.provider.displayName} not found`);
    context.end(active.runId, 'failed', shape);
  }
}

/** A stable identity for a task's artifacts: later runs of the same task share it. */
export function artifactIdentity(task: { id: string; planPath: string | null; reviewPath: string | null }): string {
  return digest({ kind: 'artifact-identity', taskId: task.id, planPath: task.planPath, reviewPath: task.reviewPath });
}
