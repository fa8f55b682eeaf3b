import { homedir } from 'node:os';
import type { Notice, Project, RunDetail, RunEvent, RunNetwork, RunSummary } from '../../shared/entities';
import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import type { StoredAgent } from '../ledger/agents-repository';
import { newId } from '../ledger/ids';
import type { SessionRequest } from '../providers/launch';
import {
  admissionConfigRevision,
  admitRun,
  configFingerprint,
  describeConfigChange,
  savedAdmission,
  type Admission,
  type AdmissionResult,
  type DiskSpace,
} from './admission';
import type { ConnectionState } from '../connections/connection-problem';
import { DiskFullNotices } from './notices/disk-full-notices';
import { AttemptPipeline } from './attempt/attempt-steps';
import { subscribeAttemptNotices } from './notices/attempt-notices';
import { subscribeNetworkNotices } from './notices/network-notice-reactions';
import { subscribeDiskFullNotices } from './notices/disk-full-reactions';
import { subscribeBudgetNotices } from './notices/budget-notice-reactions';
import { strandOrphanedRuns } from './recovery';
import { RunAttempt } from './attempt/attempt-record';
import type { RunRow } from '../ledger/runs-repository';
import { stopAttemptOnHost } from '../hosts/remote-run/remote-supervisor';
import { InputNotSent } from '../hosts/remote-run/remote-session';
import { RunContext, type RunServiceOptions, type SandboxProbeSource } from './run-context';
import { NetworkNotices } from './notices/network-notices';
import { RunNotices } from './notices/run-notices';
import { RunQueries } from './run-queries';
import { RunScheduler } from './run-scheduler';
import { endedStatuses } from './run-transitions';
import { RunWorkspace } from './run-workspace';
import { fetchHostWorkAgain } from './host-work';
import { hostWorkNoticeKind } from './notices/host-work-notices';

export type { RunServiceOptions, SandboxProbeSource } from './run-context';

const noSandboxProbe: SandboxProbeSource = { current: () => null, ready: () => Promise.resolve(null) };

/**
 * The runs, as the operator acts on them: start, stop, resume, Run again, input, archive, delete, and
 * the console's start-up and shutdown. The lifecycle itself is in its parts: the table of status
 * changes (run-transitions.ts), when runs start (run-scheduler.ts), one attempt from preparation to
 * its outcome (attempt/attempt-steps.ts, attempt/attempt-outcome.ts), and what is shown (run-queries.ts).
 */
export class RunService {
  /** The run's folder on disk: its diff, its confinement, its cleanup. */
  readonly workspace: RunWorkspace;
  private readonly context: RunContext;
  private readonly scheduler: RunScheduler;
  private readonly attempts: AttemptPipeline;
  private readonly queries: RunQueries;
  /** The owner-action and stranded-run notices runs raise and resolve, and Run again. */
  private readonly runNotices: RunNotices;
  /** "Network request blocked": raised by a run's egress proxy, resolved by its environment. */
  private readonly networkNotices: NetworkNotices;
  /** "Disk full": raised by a run refused or ended for a full data directory disk, resolved when space is back. */
  private readonly diskFull: DiskFullNotices;
  /** Set once the console service hands over to another version (closeIntake). */
  private intakeClosed: OperatorErrorShape | null = null;

  constructor(private readonly options: RunServiceOptions) {
    const sandboxProbe = options.sandboxProbe ?? noSandboxProbe;
    this.context = new RunContext(options);
    this.workspace = new RunWorkspace({
      ledger: options.ledger,
      dataDir: options.dataDir,
      operatorHome: options.operatorHome ?? homedir(),
      sandbox: () => sandboxProbe.ready(),
      log: options.log,
      now: this.context.now,
      hosts: options.hosts,
    });
    this.diskFull = new DiskFullNotices({
      dataDir: options.dataDir,
      ledger: options.ledger,
      notices: options.notices,
      log: options.log,
      minFreeBytes: options.minFreeDiskBytes,
      checkIntervalMs: options.diskCheckIntervalMs,
    });
    this.runNotices = new RunNotices({
      ledger: options.ledger,
      notices: options.notices,
      log: options.log,
      admit: (agent) => this.admit(agent),
      start: (taskId, agentId) => this.start(taskId, agentId),
      budgets: options.budgets,
      diskFull: this.diskFull,
    });
    this.networkNotices = new NetworkNotices(options.ledger, options.notices, options.log);
    this.attempts = new AttemptPipeline(this.context, {
      workspace: this.workspace,
      sandboxProbe,
      scheduleRetry: (active, retryAt) => this.scheduler.scheduleRetry(active, retryAt),
      hosts: options.hosts ?? null,
    });
    this.scheduler = new RunScheduler(this.context, {
      admit: (agent, taskId) => this.admitToRun(agent, taskId),
      runNotices: this.runNotices,
      launch: (active, session, cause) => this.attempts.run(active, session, cause),
    });
    // First to hear a run's end: its wait is forgotten and what was queued behind it may start.
    options.lifecycle.on('runEnded', ({ runId }) => this.scheduler.runEnded(runId));
    // A run's files went with its work still on its host (the operator confirmed): its notice has nothing left to ask.
    this.workspace.onFilesRemoved((runId) =>
      this.runNotices.resolveRunNotices(runId, [hostWorkNoticeKind], 'The run’s files were removed: the work left on its host was discarded with them.'),
    );
    // Reactions to the run lifecycle's events (run-events.ts): viewers mark where an attempt's bytes
    // begin, owner-action notices are raised and resolved, a blocked request raises its notice, and a run stopped by a full disk joins the Disk full notice, one stopped by its budget the budget's.
    options.lifecycle.on('attemptStarted', ({ runId }) => options.fanout.attemptStarted(runId));
    subscribeAttemptNotices(options.lifecycle, this.runNotices, options.ledger);
    subscribeNetworkNotices(options.lifecycle, this.networkNotices);
    subscribeDiskFullNotices(options.lifecycle, this.runNotices);
    subscribeBudgetNotices(options.lifecycle, this.runNotices, options.ledger);
    this.queries = new RunQueries(this.context, this.workspace, sandboxProbe);
  }

  // Operator actions ------------------------------------------------------------------------------

  /**
   * The console service is handing over to another version once its runs end: from now on a new run,
   * a Run again and a Resume are refused with `refusal` (nothing is made), while runs already going or
   * queued go on to their end.
   */
  closeIntake(refusal: OperatorErrorShape): void {
    this.intakeClosed = refusal;
  }

  /** Starts a run of a task on an agent: refused at once when it cannot succeed, else queued. */
  start(taskId: string, agentId: string): RunSummary {
    if (this.intakeClosed) throw new OperatorError(this.intakeClosed);
    const { context } = this;
    const task = context.ledger.tasks.get(taskId);
    if (!task) throw new OperatorError({ code: 'not_found', message: 'That task is no longer in the console.', actionUrl: actionRoute({ kind: 'tasks' }) });
    if (task.archived) {
      throw new OperatorError({ code: 'conflict', message: `“${task.title}” is archived. Unarchive it to run it again.`, actionUrl: actionRoute({ kind: 'tasks' }) });
    }
    const agent = context.requireAgent(agentId);
    const runId = newId('run');
    const verdict = this.admitToRun(agent, taskId);
    if (!verdict.admitted && !verdict.deferred) {
      // Refused: an owner action, not a failure. Nothing was started, so nothing is retried or undone.
      context.ledger.runs.insert({ id: runId, taskId, agentId, status: 'refused', createdAt: context.now(), failure: verdict.failure });
      this.runNotices.raiseOwnerNotice(runId, agent, { id: task.id, title: task.title }, verdict.failure);
      context.log.info('run refused', { runId, code: verdict.failure.code, reason: verdict.failure.reason });
      context.announce(runId);
      context.lifecycle.emit('runEnded', { runId, status: 'refused', failure: verdict.failure });
      return this.summary(runId);
    }
    context.ledger.runs.insert({ id: runId, taskId, agentId, status: 'queued', createdAt: context.now() });
    if (!verdict.admitted) this.scheduler.noteDeferral(runId, verdict);
    context.announce(runId);
    this.scheduler.pump();
    return this.summary(runId);
  }

  /** Run again, from a notice whose cause is gone: each refused task it stands for, once. */
  runAgain(noticeId: string): { notice: Notice; runs: RunSummary[]; alreadyRan: boolean } {
    return this.runNotices.runAgain(noticeId);
  }

  /**
   * Stop reaches the run wherever it is: a queued run is cancelled; one waiting between attempts ends
   * at once; one being prepared stops at its next step (a wait for a busy connection ends now); a
   * running one's process group gets SIGTERM, then SIGKILL after the profile's grace.
   */
  stop(runId: string): RunSummary {
    const { context } = this;
    const row = context.requireRun(runId);
    const active = context.active.get(runId);
    if (row.status === 'queued') {
      context.end(runId, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator before it started.' });
      return this.summary(runId);
    }
    if (!active) {
      throw new OperatorError({ code: 'conflict', message: 'This run is not running, so there is nothing to stop.' });
    }
    active.stopping.abort('operator');
    this.scheduler.cancelRetry(active);
    return this.summary(runId);
  }

  /**
   * Relaunches a run that has ended, in the same task root, with the CLI's native resume arguments (a
   * follow-up turn when a prompt is given). The run keeps the admission it was made under, but if the
   * agent's model or profile has changed since, the old session does not fit: a fresh one is started
   * and the timeline says why.
   */
  resume(runId: string, prompt?: string): RunSummary {
    if (this.intakeClosed) throw new OperatorError(this.intakeClosed);
    const { context } = this;
    const row = context.requireRun(runId);
    if (row.archived_at !== null) {
      throw new OperatorError({ code: 'conflict', message: 'This run was archived and its worktree removed, so it cannot be resumed. Run again starts the task over.' });
    }
    if (row.files_removed_at !== null) {
      throw new OperatorError({
        code: 'conflict',
        message: `This run’s files were removed on ${new Date(row.files_removed_at).toISOString()}, so it cannot be resumed. Run again starts the task over.`,
      });
    }
    // Its work is being landed, pushed or removed: the agent must not write to it meanwhile.
    const busy = this.workspace.operations.refusal(runId);
    if (busy) throw busy;
    if (context.active.has(runId) || !endedStatuses.includes(row.status) || row.status === 'refused') {
      throw new OperatorError({ code: 'conflict', message: 'Only a run that has ended (and was not refused) can be resumed.' });
    }
    const saved = savedAdmission(row.admission_json);
    const session = context.ledger.runs.locators(runId).find((locator) => locator.kind === 'session');
    const sessionId = typeof session?.data.id === 'string' ? session.data.id : null;
    const provider = saved ? this.options.catalog.findProvider(saved.providerId) : undefined;
    if (!saved || !sessionId || !provider || !provider.definition.launch.resumable) {
      throw new OperatorError({
        code: 'conflict',
        message: 'This run has no native session to resume. Run again starts the task over.',
        actionUrl: actionRoute({ kind: 'run', runId }),
      });
    }
    const agent = context.requireAgent(row.agent_id);
    const verdict = this.admitToRun(agent, row.task_id, saved);
    if (!verdict.admitted) throw new OperatorError(verdict.failure);
    const admission = verdict.admission;
    const sameConfig = configFingerprint(admission) === row.config_fingerprint;
    const moved = context.transition(runId, 'admitted', {
      failure: null,
      endedAt: null,
      admissionJson: JSON.stringify(admission),
      configFingerprint: configFingerprint(admission),
    });
    if (!moved) throw new OperatorError({ code: 'conflict', message: 'The run changed while it was being resumed. Try again.' });
    this.runNotices.resolveRunNotices(runId, ['run_stranded'], 'The run was resumed.');
    const active = this.scheduler.activate(runId, admission);
    if (sameConfig) {
      context.note(runId, null, 'resumed', { sessionId, prompt: prompt ?? null });
    } else {
      context.note(runId, null, 'fresh_session', { reason: describeConfigChange(saved, admission), previousSessionId: sessionId });
    }
    const request: SessionRequest = sameConfig ? { mode: 'resume', sessionId, sessionDir: typeof session?.data.dir === 'string' ? session.data.dir : null } : { mode: 'new' };
    // The operator's action, not a retry: recorded so, and the separator and notifications say so.
    void this.attempts.run(active, request, prompt === undefined ? 'resume' : 'follow_up', prompt);
    return this.summary(runId);
  }

  /** Fetch the work again (host-work.ts), as the one change under way to the run. */
  fetchWorkAgain(runId: string): Promise<{ run: RunSummary; alreadyBack: boolean }> {
    return this.workspace.operations.exclusive(runId, 'fetch_work', async () => {
      const { alreadyBack } = await fetchHostWorkAgain(this.context, this.workspace, this.options.hosts ?? null, runId);
      return { run: this.summary(runId), alreadyBack };
    });
  }

  /**
   * Input for the run's terminal. A run whose SSH host cannot be reached right now refuses it
   * (`ssh_failed`, reason `unreachable`), saying so: a keystroke is never taken and thrown away.
   */
  sendInput(runId: string, data: string): { accepted: boolean } {
    const active = this.context.active.get(runId);
    const session = active?.session;
    if (!active || !session || session.exit) return { accepted: false };
    const hostName = active.admission.host?.name;
    if (hostName && this.context.ledger.runs.hostUnreachableSince(runId) !== null) throw hostUnreachableForInput(hostName);
    try {
      session.write(data);
    } catch (error) {
      if (error instanceof InputNotSent) throw hostUnreachableForInput(error.host);
      // The PTY closed between the check and the write: the run is ending, the keystroke has nowhere to go.
      return { accepted: false };
    }
    return { accepted: true };
  }

  resize(runId: string, cols: number, rows: number): { accepted: boolean } {
    const active = this.context.active.get(runId);
    if (!active) return { accepted: false };
    active.size = { cols, rows };
    if (!active.session || active.session.exit) return { accepted: false };
    try {
      active.session.resize(cols, rows);
    } catch {
      // The PTY closed under the resize (EBADF): the size is kept for a next attempt.
      return { accepted: false };
    }
    return { accepted: true };
  }

  /**
   * Keeps the run's record and removes its worktree, the way Clean up does (a summary of its changes
   * stays in the ledger): an archived run is never resumed.
   */
  archive(runId: string): Promise<RunSummary> {
    return this.workspace.operations.exclusive(runId, 'archive', async () => {
      this.requireEnded(runId, 'archived');
      await this.workspace.removeFiles(runId);
      this.runNotices.resolveRunNotices(runId, ['run_stranded'], 'The run was archived: it will not be resumed.');
      this.context.ledger.runs.update(runId, { archivedAt: this.context.now() });
      this.context.announce(runId);
      return this.summary(runId);
    });
  }

  /**
   * Removes the run's worktree and its record. Its output, the bulk of what it holds in the ledger, goes
   * first, on the ledger writer's thread in slices, and its room goes back to the disk (ledger-space.ts):
   * on a full disk, deleting runs is what frees it.
   */
  delete(runId: string): Promise<{ runId: string }> {
    return this.workspace.operations.exclusive(runId, 'delete', async () => {
      const row = this.requireEnded(runId, 'deleted');
      // Deleting a run throws away all it holds, also work never brought back from its host (the dialog says so).
      await this.workspace.removeWorktree(row, { discardWorkOnHost: true });
      const { ledger } = this.context;
      await ledger.space.deleteOutput([runId], this.context.log);
      // Before the record goes: a stranded notice about it has nothing left to point at.
      this.runNotices.resolveRunNotices(runId, ['run_stranded', hostWorkNoticeKind], 'The run was deleted.');
      ledger.runs.delete(runId);
      this.context.announce(runId);
      // What the record itself held (attempts, events) goes back too.
      await ledger.space.reclaimLogged(this.context.log);
      return { runId };
    });
  }

  private requireEnded(runId: string, verb: string) {
    const row = this.context.requireRun(runId);
    if (this.context.active.has(runId) || !endedStatuses.includes(row.status)) {
      throw new OperatorError({ code: 'conflict', message: `A run that is queued or running cannot be ${verb}. Stop it first.` });
    }
    return row;
  }

  // Queries ---------------------------------------------------------------------------------------

  summary(runId: string): RunSummary {
    return this.queries.summary(runId);
  }

  detail(runId: string): RunDetail {
    return this.queries.detail(runId);
  }

  /** The run's timeline after event `afterId` (from the start by default), a page of `limit` events. */
  events(runId: string, afterId = 0, limit = 500): { events: RunEvent[]; lastId: number } {
    return this.queries.events(runId, afterId, limit);
  }

  network(runId: string): RunNetwork {
    return this.queries.network(runId);
  }

  /** Resume would take the run up again: it ended (not refused), its files are there, its session can be resumed. */
  canResume(runId: string): boolean {
    return this.queries.canResume(runId);
  }

  /** The run is being driven now (preparing, running, or waiting between attempts). */
  isActive(runId: string): boolean {
    return this.context.active.has(runId);
  }

  /** Whether any run is being driven now. */
  anyActive(): boolean {
    return this.context.active.size > 0;
  }

  /** Tells the renderer the run changed (its landing state, say). */
  announce(runId: string): void {
    this.context.announce(runId);
  }

  hasOpenRuns(agentId: string): boolean {
    return this.context.ledger.runs.hasOpenRuns(agentId);
  }

  // Admission -------------------------------------------------------------------------------------

  /**
   * Admission for a new run of the agent (or a resumed one, held to its saved admission). The one
   * place runs, the agent's Test and its verification ask, so they always agree.
   */
  admit(
    agent: StoredAgent & { deleted: boolean },
    saved?: Admission,
    connection: ConnectionState | undefined = this.options.connections.state(agent.connectionId),
    disk?: DiskSpace,
    project?: Project,
    variables?: OperatorErrorShape | null,
  ): AdmissionResult {
    // A deleted environment admits no new run; a run resumed from its saved admission needs only that.
    const environment = this.context.ledger.environments.get(saved?.environmentId ?? agent.environmentId);
    // A resumed run goes back to the host it ran on, whatever its environment names now.
    const hostId = saved ? (saved.host?.id ?? null) : (environment?.hostId ?? null);
    return admitRun({
      agent,
      environment: environment && (!environment.deleted || saved) ? environment : undefined,
      host: hostId ? this.context.ledger.hosts.get(hostId) : undefined,
      catalog: this.options.catalog,
      sandbox: this.options.sandbox?.() ?? null,
      connection,
      saved,
      // A resumed run keeps its admission: its budgets are not asked.
      budgets: saved ? [] : this.budgetsOf(agent, connection),
      prices: this.options.budgets?.priceTable(),
      disk,
      project,
      variables,
      now: this.context.now(),
    });
  }

  /** Admission for a run of the task about to start (new, dequeued or resumed): the disk rule too, with free space asked now, and its project's. */
  private admitToRun(agent: StoredAgent & { deleted: boolean }, taskId: string, saved?: Admission): AdmissionResult {
    const task = this.context.ledger.tasks.get(taskId);
    const project = task ? this.context.ledger.projects.get(task.projectId) : undefined;
    const variables = task ? this.context.options.projectSetup.unreadableVariable({ projectId: task.projectId, agentId: agent.id, taskId }) : null;
    return this.admit(agent, saved, undefined, this.diskFull.space(), project, variables);
  }

  /** The budgets on the agent and on the connection it would be given (admission keeps those that hold the run). */
  private budgetsOf(agent: Pick<StoredAgent, 'id'>, connection: ConnectionState | undefined) {
    return this.options.budgets?.holding({ agentId: agent.id, connectionId: connection?.id ?? null }) ?? [];
  }

  /** What admission's answer for the agent depends on; verification waits for it to change. */
  admissionRevision(agent: StoredAgent & { deleted: boolean }): string {
    const connection = this.options.connections.state(agent.connectionId);
    const environment = this.context.ledger.environments.get(agent.environmentId);
    return admissionConfigRevision({
      agent,
      environment,
      host: environment?.hostId ? this.context.ledger.hosts.get(environment.hostId) : undefined,
      catalog: this.options.catalog,
      connection,
      sandbox: this.options.sandbox?.() ?? null,
      budgets: this.budgetsOf(agent, connection),
      prices: this.options.budgets?.priceTable(),
    });
  }

  /** An environment changed (or went): its "Network request blocked" notices whose host it now allows resolve. */
  reviewEnvironmentNotices(environmentId: string): void {
    this.networkNotices.review(environmentId);
  }

  /** Looks again at open admission notices (for these agents, or all): called whenever an agent, a connection or the sandbox changes. */
  reviewNotices(agentIds?: Iterable<string>): void {
    this.runNotices.reviewNotices(agentIds);
  }

  // Start-up and shutdown -------------------------------------------------------------------------

  /**
   * At start: a run that was waiting between attempts goes on waiting for its recorded time; the other
   * runs a console that is gone left live are stranded (see recovery.ts). Queued runs just go on.
   */
  async recover(): Promise<void> {
    const { context } = this;
    this.diskFull.start();
    const waiting = this.scheduler.restoreRetries(context.ledger.runs.withStatus(['running']));
    for (const runId of this.takeUpHostRuns(context.ledger.runs.withStatus(['running']))) waiting.add(runId);
    await strandOrphanedRuns({
      ledger: context.ledger,
      catalog: this.options.catalog,
      notices: this.options.notices,
      log: context.log,
      now: context.now,
      resumed: waiting,
      stopOnHost: async (hostId, attemptDir) => {
        if (!this.options.hosts || !context.ledger.hosts.get(hostId)) return;
        await stopAttemptOnHost(await this.options.hosts.connection(hostId), attemptDir, 0);
      },
      stranded: (runId, failure) => {
        context.announce(runId);
        context.lifecycle.emit('runEnded', { runId, status: 'stranded', failure });
      },
    });
    this.scheduler.pump();
  }

  /**
   * Runs on SSH hosts a closing console left running there (their process locator says how far their
   * spool is in the ledger): followed again from that byte, not stranded. One a console that died left
   * there has no such record and is stranded, and stopped on its host.
   */
  private takeUpHostRuns(rows: readonly RunRow[]): string[] {
    const { context } = this;
    const taken: string[] = [];
    if (!this.options.hosts) return taken;
    for (const row of rows) {
      const admission = savedAdmission(row.admission_json);
      const last = context.ledger.runs.lastAttempt(row.id);
      const locator = context.ledger.runs.locators(row.id).find((each) => each.kind === 'process')?.data ?? {};
      const { hostId, spoolOffset, remotePid, attempt, sealedRunToken } = locator;
      const task = context.ledger.tasks.get(row.task_id);
      if (!admission?.host || last?.status !== 'running' || attempt !== last.number || !task) continue;
      if (hostId !== admission.host.id || typeof spoolOffset !== 'number' || typeof remotePid !== 'number') continue;
      if (!context.ledger.agents.get(admission.agentId)) continue;
      const active = this.scheduler.activate(row.id, admission);
      active.attemptId = last.id;
      const record = RunAttempt.adopt(context, {
        runId: row.id,
        attemptId: last.id,
        attemptNumber: last.number,
        agent: { id: admission.agentId, name: admission.agentName },
        providerName: active.provider.displayName,
        task: { id: task.id, title: task.title },
      });
      active.attempt = record;
      context.log.info('run on its host taken up again', { runId: row.id, host: admission.host.name, spoolOffset });
      void this.attempts.takeUpOnHost(active, { task, attempt: record, hostId, pid: remotePid, spoolOffset, sealedRunToken: typeof sealedRunToken === 'string' ? sealedRunToken : null });
      taken.push(row.id);
    }
    return taken;
  }

  /**
   * The console is closing: every run is stopped where it is (a preparation at its next step, a
   * process group by SIGTERM), and its output waited for until it is in the ledger. The runs stay as
   * they are; the next start strands them and offers Resume, and a run waiting to retry keeps waiting.
   */
  async shutdown(): Promise<void> {
    const { context } = this;
    context.closing = true;
    this.scheduler.close();
    this.diskFull.close();
    const actives = [...context.active.values()];
    for (const active of actives) active.stopping.abort('shutdown');
    // A run waiting between attempts has no attempt going (attemptDone is the last one's, or null).
    await Promise.allSettled(actives.flatMap((active) => active.attemptDone ?? []));
    await this.diskFull.settled();
    context.close();
  }
}

/** Input for a run whose host the console cannot reach right now: refused with what happens next. */
function hostUnreachableForInput(hostName: string): OperatorError {
  return new OperatorError({
    code: 'ssh_failed',
    reason: 'unreachable',
    message: `${hostName} cannot be reached right now, so this input was not sent to the run. Its terminal takes input again as soon as ${hostName} answers; the console reconnects by itself.`,
  });
}
