import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import type { Notice, RunDetail, RunEvent, RunStatus, RunSummary } from '../../shared/entities';
import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { resolveAgentLaunch } from '../agents/agent-launch';
import type { ConnectionService } from '../connections/connection-service';
import { modelArgumentFor } from '../connections/credential-delivery';
import { SecretRedactor } from '../connections/secret-redaction';
import type { StoredAgent } from '../ledger/agents-repository';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import { detailsInLog, type Logger } from '../log';
import type { NoticeService } from '../notices/notice-service';
import { canonicalJson, type LaunchProfile, type ProviderCatalog, type ProviderEntry } from '../providers/catalog';
import { failurePatternsFor } from '../providers/definitions';
import type { LaunchSpec, SessionRequest } from '../providers/launch';
import { createEventParser } from '../providers/events/parse-event-line';
import { LineSplitter } from '../providers/events/line-splitter';
import type { TimelineEvent } from '../providers/events/timeline-event';
import { classifyAttempt, retryDelayMs, type AttemptFailure } from '../providers/failure-classifier';
import type { OutputFanout } from '../pty/output-fanout';
import { OutputPipeline } from '../pty/output-pipeline';
import { startPtySession, type PtyExit, type PtySession } from '../pty/pty-session';
import type { EventHub } from '../transport/event-hub';
import {
  admissionConfigRevision,
  admitRun,
  configFingerprint,
  describeConfigChange,
  savedAdmission,
  type Admission,
  type AdmissionResult,
  type ConnectionState,
  type SandboxState,
} from './admission';
import type { SandboxProbe } from '../confinement/sandbox-probe';
import { prepareTaskRoot } from '../confinement/task-root';
import { RunWorkspace } from './run-workspace';
import { confineLaunch, type ConfinedLaunch } from './launch-confinement';
import { processLocator } from './process-identity';
import { strandOrphanedRuns } from './recovery';
import { credentialFor } from './run-credentials';
import { attemptsWithOutput } from './attempt-output';
import { fixedBySuccessCodes, RunNotices } from './run-notices';
import { buildWorkerPrompt } from './worker-prompt';

export interface RunServiceOptions {
  ledger: Ledger;
  catalog: ProviderCatalog;
  events: EventHub;
  notices: NoticeService;
  /** AI connections: admission asks about the agent's, and a launch opens its secret. */
  connections: ConnectionService;
  fanout: OutputFanout;
  dataDir: string;
  log: Logger;
  /** The operator's environment: confinement copies only its allow-list from it. */
  operatorEnv?: NodeJS.ProcessEnv | undefined;
  operatorHome?: string | undefined;
  /** The sandbox probe's answer, once the console has probed (what admission asks). */
  sandbox?: () => SandboxState | null;
  /** The probe itself: how runs and the console's tools are sandboxed here. Null where nothing probes (tests without a sandbox). */
  sandboxProbe?: SandboxProbeSource;
  now?: () => number;
  /** Terminal size before the viewer has said how big its pane is. */
  initialSize?: { cols: number; rows: number };
}

/** A run the console is driving right now (queued runs are only in the ledger). */
interface ActiveRun {
  runId: string;
  agentId: string;
  admission: Admission;
  provider: ProviderEntry;
  profile: LaunchProfile;
  attemptNumber: number;
  attemptId: string | null;
  session: PtySession | null;
  launch: ConfinedLaunch | null;
  stopRequested: boolean;
  retryTimer: NodeJS.Timeout | null;
  /** The CLI's native session, once known (from the argv, or from its JSON stream). */
  sessionId: string | null;
  sessionDir: string | null;
  /**
   * Where the session id comes from. `argv`: the console chose it and resumes by it, whatever id the
   * CLI's stream reports (Pi reports an internal id of the session file the console named). `stream`:
   * only the stream knows it (Codex's thread id). Null: no session the console can resume (a command,
   * an ephemeral run); an id the stream reports is still recorded.
   */
  sessionSource: 'argv' | 'stream' | null;
  /** Timeline events of the current attempt, for the failure classifier. */
  attemptEvents: TimelineEvent[];
  size: { cols: number; rows: number };
  /** Resolves once the current attempt's output is all in the ledger. */
  outputFlushed: Promise<unknown> | null;
  /**
   * Every secret delivered to the run so far (a connection's key, per attempt). Cut out of its output,
   * its timeline and the console's own notes about it before they are written or sent.
   */
  secrets: Set<string>;
}

const endedStatuses: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'];
/** How much of an attempt's output the failure classifier reads. */
const classifierTailBytes = 64 * 1024;
/** Timeline updates are announced at most this often per run. */
const timelineNoticeMs = 100;

export interface SandboxProbeSource {
  /** The answer, or null while the probe has not answered yet. */
  current(): SandboxProbe | null;
  /** The answer, once there is one. */
  ready(): Promise<SandboxProbe | null>;
}

const noSandboxProbe: SandboxProbeSource = { current: () => null, ready: () => Promise.resolve(null) };

export function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** A stable identity for a task's artifacts: later runs of the same task share it. */
export function artifactIdentity(task: { id: string; planPath: string | null; reviewPath: string | null }): string {
  return digest({ kind: 'artifact-identity', taskId: task.id, planPath: task.planPath, reviewPath: task.reviewPath });
}

/**
 * The run lifecycle: queued → admitted → preparing → running → succeeded | failed | cancelled, plus
 * refused (admission said no; nothing started) and stranded (the console stopped while it ran).
 * Each run's process lives in a PTY; its locators are in the ledger before it is awaited.
 */
export class RunService {
  private readonly ledger: Ledger;
  /** The run's folder on disk: its diff, its confinement, its cleanup. */
  readonly workspace: RunWorkspace;
  private readonly sandboxProbe: SandboxProbeSource;
  private readonly active = new Map<string, ActiveRun>();
  private readonly now: () => number;
  private readonly timelineTimers = new Map<string, NodeJS.Timeout>();
  private closing = false;
  private pumping = false;
  /** A pump scheduled for runs deferred by admission (a connection being updated). */
  private pumpTimer: NodeJS.Timeout | null = null;
  /** Queued runs whose deferral the timeline already noted (one note per wait, not one per retry). */
  private readonly deferred = new Set<string>();
  /** The owner-action and stranded-run notices runs raise and resolve, and Run again. */
  private readonly runNotices: RunNotices;

  constructor(private readonly options: RunServiceOptions) {
    this.ledger = options.ledger;
    this.sandboxProbe = options.sandboxProbe ?? noSandboxProbe;
    this.workspace = new RunWorkspace({
      ledger: options.ledger,
      dataDir: options.dataDir,
      operatorHome: options.operatorHome ?? homedir(),
      sandbox: () => this.sandboxProbe.ready(),
    });
    this.now = options.now ?? Date.now;
    this.runNotices = new RunNotices({
      ledger: options.ledger,
      notices: options.notices,
      log: options.log,
      admit: (agent) => this.admit(agent),
      start: (taskId, agentId) => this.start(taskId, agentId),
    });
  }

  // Operator actions ------------------------------------------------------------------------------

  /** Starts a run of a task on an agent: refused at once when it cannot succeed, else queued. */
  start(taskId: string, agentId: string): RunSummary {
    const task = this.ledger.tasks.get(taskId);
    if (!task) throw new OperatorError({ code: 'not_found', message: 'That task is no longer in the console.', actionUrl: actionRoute({ kind: 'tasks' }) });
    if (task.archived) {
      throw new OperatorError({ code: 'conflict', message: `“${task.title}” is archived. Unarchive it to run it again.`, actionUrl: actionRoute({ kind: 'tasks' }) });
    }
    const agent = this.requireAgent(agentId);
    const runId = newId('run');
    const verdict = this.admit(agent);
    if (!verdict.admitted && !verdict.deferred) {
      // Refused: an owner action, not a failure. Nothing was started, so nothing is retried or undone.
      this.ledger.runs.insert({ id: runId, taskId, agentId, status: 'refused', createdAt: this.now(), failure: verdict.failure });
      this.runNotices.raiseOwnerNotice(runId, agent, { id: task.id, title: task.title }, verdict.failure);
      this.options.log.info('run refused', { runId, code: verdict.failure.code, reason: verdict.failure.reason });
      this.announce(runId);
      return this.summary(runId);
    }
    this.ledger.runs.insert({ id: runId, taskId, agentId, status: 'queued', createdAt: this.now() });
    if (!verdict.admitted) this.noteDeferral(runId, verdict);
    this.announce(runId);
    this.pump();
    return this.summary(runId);
  }

  /** Run again, from a notice whose cause is gone: each refused task it stands for, once. */
  runAgain(noticeId: string): { notice: Notice; runs: RunSummary[]; alreadyRan: boolean } {
    return this.runNotices.runAgain(noticeId);
  }

  stop(runId: string): RunSummary {
    const row = this.requireRun(runId);
    const active = this.active.get(runId);
    if (row.status === 'queued') {
      this.finishRun(runId, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator before it started.' });
      return this.summary(runId);
    }
    if (!active) {
      throw new OperatorError({ code: 'conflict', message: 'This run is not running, so there is nothing to stop.' });
    }
    active.stopRequested = true;
    if (active.retryTimer) {
      // Waiting between attempts: nothing runs, so stopping is immediate.
      clearTimeout(active.retryTimer);
      active.retryTimer = null;
      this.ledger.runs.clearRetry(runId);
      this.endActive(active, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator while waiting to retry.' });
    } else if (active.session) {
      void active.session.stop({ graceMs: active.profile.stopGraceMs });
    }
    return this.summary(runId);
  }

  /**
   * Relaunches a run that has ended, in the same task root, with the CLI's native resume arguments (a
   * follow-up turn when a prompt is given). The run keeps the admission it was made under, but if the
   * agent's model or profile has changed since, the old session does not fit: a fresh one is started
   * and the timeline says why.
   */
  resume(runId: string, prompt?: string): RunSummary {
    const row = this.requireRun(runId);
    if (row.archived_at !== null) {
      throw new OperatorError({ code: 'conflict', message: 'This run was archived and its worktree removed, so it cannot be resumed. Run again starts the task over.' });
    }
    if (this.active.has(runId) || !endedStatuses.includes(row.status) || row.status === 'refused') {
      throw new OperatorError({ code: 'conflict', message: 'Only a run that has ended (and was not refused) can be resumed.' });
    }
    const saved = savedAdmission(row.admission_json);
    const session = this.ledger.runs.locators(runId).find((locator) => locator.kind === 'session');
    const sessionId = typeof session?.data.id === 'string' ? session.data.id : null;
    const provider = saved ? this.options.catalog.findProvider(saved.providerId) : undefined;
    if (!saved || !sessionId || !provider || !provider.definition.launch.resumable) {
      throw new OperatorError({
        code: 'conflict',
        message: 'This run has no native session to resume. Run again starts the task over.',
        actionUrl: actionRoute({ kind: 'run', runId }),
      });
    }
    const agent = this.requireAgent(row.agent_id);
    const verdict = this.admit(agent, saved);
    if (!verdict.admitted) throw new OperatorError(verdict.failure);
    const admission = verdict.admission;
    this.runNotices.resolveRunNotices(runId, ['run_stranded'], 'The run was resumed.');
    const sameConfig = configFingerprint(admission) === row.config_fingerprint;
    const active = this.activate(runId, admission);
    active.attemptNumber = this.ledger.runs.attempts(runId).length;
    this.ledger.runs.update(runId, { status: 'admitted', failure: null, endedAt: null, admissionJson: JSON.stringify(admission), configFingerprint: configFingerprint(admission) });
    if (sameConfig) {
      this.note(runId, null, 'resumed', { sessionId, prompt: prompt ?? null });
    } else {
      this.note(runId, null, 'fresh_session', { reason: describeConfigChange(saved, admission), previousSessionId: sessionId });
    }
    this.announce(runId);
    const request: SessionRequest = sameConfig ? { mode: 'resume', sessionId, sessionDir: typeof session?.data.dir === 'string' ? session.data.dir : null } : { mode: 'new' };
    void this.prepareAndLaunch(active, request, prompt);
    return this.summary(runId);
  }

  sendInput(runId: string, data: string): { accepted: boolean } {
    const session = this.active.get(runId)?.session;
    if (!session || session.exit) return { accepted: false };
    try {
      session.write(data);
    } catch {
      // The PTY closed between the check and the write: the run is ending, the keystroke has nowhere to go.
      return { accepted: false };
    }
    return { accepted: true };
  }

  resize(runId: string, cols: number, rows: number): { accepted: boolean } {
    const active = this.active.get(runId);
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

  // Queries ---------------------------------------------------------------------------------------

  summary(runId: string): RunSummary {
    const summary = this.ledger.runs.summary(runId);
    if (!summary) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.', actionUrl: actionRoute({ kind: 'runs' }) });
    return summary;
  }

  detail(runId: string): RunDetail {
    const summary = this.summary(runId);
    const row = this.requireRun(runId);
    const agent = this.ledger.agents.get(row.agent_id);
    const admission = savedAdmission(row.admission_json);
    const locators = this.ledger.runs.locators(runId);
    const session = locators.find((locator) => locator.kind === 'session');
    const active = this.active.get(runId);
    const provider = this.options.catalog.findProvider(admission?.providerId ?? agent?.providerId ?? '');
    const ended = endedStatuses.includes(row.status);
    return {
      ...summary,
      providerId: admission?.providerId ?? agent?.providerId ?? 'unknown',
      model: admission?.model ?? agent?.model ?? 'unknown',
      profileId: admission?.profileId ?? agent?.profileId ?? 'unknown',
      profileRevision: admission?.profileRevision ?? null,
      configFingerprint: row.config_fingerprint,
      environmentId: admission?.environmentId ?? agent?.environmentId ?? 'env_local',
      homeMode: admission?.homeMode ?? agent?.homeMode ?? 'preconfigured',
      cwd: row.cwd,
      taskRoot: row.task_root,
      baseRevision: row.base_revision,
      failure: row.failure_json ? (JSON.parse(row.failure_json) as OperatorErrorShape) : null,
      attempts: attemptsWithOutput(this.ledger, runId),
      locators,
      submission: row.submission_json ? (JSON.parse(row.submission_json) as RunDetail['submission']) : null,
      outputBytes: this.ledger.output.totalBytes(runId),
      archived: row.archived_at !== null,
      confinement: this.workspace.confinementOf(admission, agent, row, this.sandboxProbe.current()),
      canStop: row.status === 'queued' || active !== undefined,
      canResume:
        ended &&
        row.status !== 'refused' &&
        row.archived_at === null &&
        typeof session?.data.id === 'string' &&
        admission !== undefined &&
        (provider ? provider.definition.launch.resumable : false),
      canSendInput: active?.session !== null && active?.session !== undefined && !active.session.exit,
      notice: this.options.notices.forRun(runId),
      connection: admission?.connection ? { id: admission.connection.id, name: admission.connection.name, provider: admission.connection.provider } : null,
    };
  }

  /** Keeps the run's record and removes its worktree: an archived run is never resumed. */
  async archive(runId: string): Promise<RunSummary> {
    const row = this.requireEnded(runId, 'archived');
    await this.workspace.removeWorktree(row);
    this.runNotices.resolveRunNotices(runId, ['run_stranded'], 'The run was archived: it will not be resumed.');
    this.ledger.runs.update(runId, { archivedAt: this.now() });
    this.announce(runId);
    return this.summary(runId);
  }

  async delete(runId: string): Promise<{ runId: string }> {
    const row = this.requireEnded(runId, 'deleted');
    await this.workspace.removeWorktree(row);
    // Before the record goes: a stranded notice about it has nothing left to point at.
    this.runNotices.resolveRunNotices(runId, ['run_stranded'], 'The run was deleted.');
    this.ledger.runs.delete(runId);
    this.announce(runId);
    return { runId };
  }

  private requireEnded(runId: string, verb: string) {
    const row = this.requireRun(runId);
    if (this.active.has(runId) || !endedStatuses.includes(row.status)) {
      throw new OperatorError({ code: 'conflict', message: `A run that is queued or running cannot be ${verb}. Stop it first.` });
    }
    return row;
  }

  events(runId: string, afterId: number, limit: number): { events: RunEvent[]; lastId: number } {
    this.requireRun(runId);
    const events = this.ledger.runs.events(runId, afterId, limit);
    return { events, lastId: events.at(-1)?.id ?? afterId };
  }

  hasOpenRuns(agentId: string): boolean {
    return this.ledger.runs.hasOpenRuns(agentId);
  }

  // Start-up and shutdown -------------------------------------------------------------------------

  /** At start: runs a console that is gone left live are stranded (see recovery.ts). Queued runs just go on. */
  async recover(): Promise<void> {
    await strandOrphanedRuns({
      ledger: this.ledger,
      catalog: this.options.catalog,
      notices: this.options.notices,
      log: this.options.log,
      now: this.now,
      stranded: (runId) => {
        this.deferred.delete(runId);
        this.announce(runId);
      },
    });
    this.pump();
  }

  /**
   * The console is closing: stop every run's process group and wait until its output is in the
   * ledger. The runs stay as they are; the next start strands them and offers Resume.
   */
  async shutdown(): Promise<void> {
    this.closing = true;
    if (this.pumpTimer) clearTimeout(this.pumpTimer);
    this.pumpTimer = null;
    const stops = [...this.active.values()].map(async (active) => {
      if (active.retryTimer) clearTimeout(active.retryTimer);
      active.retryTimer = null;
      if (active.session && !active.session.exit) await active.session.stop({ graceMs: Math.min(active.profile.stopGraceMs, 2000) });
      await active.outputFlushed;
    });
    await Promise.allSettled(stops);
    for (const timer of this.timelineTimers.values()) clearTimeout(timer);
    this.timelineTimers.clear();
  }

  // The lifecycle ---------------------------------------------------------------------------------

  /**
   * Admission for a new run of the agent (or a resumed one, held to its saved admission). The one
   * place runs, the agent's Test and its verification ask, so they always agree.
   */
  admit(
    agent: StoredAgent & { deleted: boolean },
    saved?: Admission,
    connection: ConnectionState | undefined = this.options.connections.state(agent.connectionId),
  ): AdmissionResult {
    return admitRun({
      agent,
      environment: this.ledger.agents.getEnvironment(saved?.environmentId ?? agent.environmentId),
      catalog: this.options.catalog,
      sandbox: this.options.sandbox?.() ?? null,
      connection,
      saved,
      now: this.now(),
    });
  }

  /** What admission's answer for the agent depends on; verification waits for it to change. */
  admissionRevision(agent: StoredAgent & { deleted: boolean }): string {
    return admissionConfigRevision({
      agent,
      environment: this.ledger.agents.getEnvironment(agent.environmentId),
      catalog: this.options.catalog,
      connection: this.options.connections.state(agent.connectionId),
      sandbox: this.options.sandbox?.() ?? null,
    });
  }

  /** Looks again at open admission notices (for these agents, or all): called whenever an agent, a connection or the sandbox changes. */
  reviewNotices(agentIds?: Iterable<string>): void {
    this.runNotices.reviewNotices(agentIds);
  }

  /** The timeline says once why a queued run waits; the pump looks again after the delay. */
  private noteDeferral(runId: string, verdict: Extract<AdmissionResult, { deferred: true }>): void {
    if (!this.deferred.has(runId)) {
      this.deferred.add(runId);
      this.note(runId, null, 'admission_deferred', {
        code: verdict.failure.code,
        message: verdict.failure.message,
        retryAt: new Date(this.now() + verdict.retryAfterMs).toISOString(),
      });
      this.options.log.info('run deferred', { runId, code: verdict.failure.code });
    }
    this.schedulePump(verdict.retryAfterMs);
  }

  private schedulePump(delayMs: number): void {
    if (this.closing || this.pumpTimer) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, delayMs);
  }

  /** Starts queued runs while their agents have capacity, oldest first. */
  private pump(): void {
    if (this.pumping || this.closing) return;
    this.pumping = true;
    try {
      for (const row of this.ledger.runs.withStatus(['queued'])) {
        const agent = this.ledger.agents.get(row.agent_id);
        if (!agent) continue;
        if (this.ledger.runs.activeCountByAgent(row.agent_id) >= agent.capacity) continue;
        // Admission is checked again at dequeue: the agent may have changed while the run waited.
        const verdict = this.admit(agent);
        if (!verdict.admitted && verdict.deferred) {
          // Stays queued: a connection being updated is a moment, not a failure.
          this.noteDeferral(row.id, verdict);
          continue;
        }
        this.deferred.delete(row.id);
        if (!verdict.admitted) {
          this.finishRun(row.id, 'refused', verdict.failure);
          const task = this.ledger.tasks.get(row.task_id);
          this.runNotices.raiseOwnerNotice(row.id, agent, { id: row.task_id, title: task?.title ?? 'a task' }, verdict.failure);
          continue;
        }
        const admission = verdict.admission;
        this.ledger.runs.update(row.id, {
          status: 'admitted',
          admissionJson: JSON.stringify(admission),
          configFingerprint: configFingerprint(admission),
        });
        this.announce(row.id);
        const active = this.activate(row.id, admission);
        void this.prepareAndLaunch(active, { mode: 'new' });
      }
    } finally {
      this.pumping = false;
    }
  }

  private activate(runId: string, admission: Admission): ActiveRun {
    const agent = this.requireAgent(admission.agentId);
    const { provider, profile } = resolveAgentLaunch(this.options.catalog, agent);
    const active: ActiveRun = {
      runId,
      agentId: admission.agentId,
      admission,
      provider,
      profile,
      attemptNumber: 0,
      attemptId: null,
      session: null,
      launch: null,
      stopRequested: false,
      retryTimer: null,
      sessionId: null,
      sessionDir: null,
      sessionSource: null,
      attemptEvents: [],
      size: this.options.initialSize ?? { cols: 120, rows: 32 },
      outputFlushed: null,
      secrets: new Set(),
    };
    this.active.set(runId, active);
    return active;
  }

  private async prepareAndLaunch(active: ActiveRun, session: SessionRequest, followUp?: string): Promise<void> {
    if (this.closing) return;
    try {
      this.ledger.runs.update(active.runId, { status: 'preparing' });
      this.announce(active.runId);
      await this.launchAttempt(active, session, followUp);
    } catch (error) {
      if (this.closing) return;
      if (error instanceof OperatorError) {
        // An owner action (a configuration to fix), not a crash: its code and reason say it all.
        this.options.log.warn('run could not launch', { runId: active.runId, code: error.code, reason: error.reason });
      } else {
        this.options.log.error('run failed to launch', { runId: active.runId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
      const failure: OperatorErrorShape =
        error instanceof OperatorError ? error.toShape() : { code: 'internal', message: `The run could not be prepared. ${detailsInLog(this.options.log)}` };
      this.endActive(active, 'failed', failure);
    }
  }

  private async launchAttempt(active: ActiveRun, sessionRequest: SessionRequest, followUp?: string): Promise<void> {
    const row = this.requireRun(active.runId);
    const task = this.ledger.tasks.get(row.task_id);
    const project = task ? this.ledger.projects.get(task.projectId) : undefined;
    if (!task || !project) {
      throw new OperatorError({ code: 'not_found', message: 'The run’s task or project was removed from the console.' });
    }
    const { definition } = active.provider;
    const probe = await this.sandboxProbe.ready();
    // A sandboxed run's writable roots belong to the sandbox's user (nobody, when the console is root).
    const owner = active.admission.environmentKind === 'sandboxed' ? (probe?.setup?.user ?? null) : null;
    const taskRoot = await prepareTaskRoot({
      dataDir: this.options.dataDir,
      runId: active.runId,
      project,
      owner,
      tools: await this.workspace.toolsFor(active.admission, 'read'),
    });
    this.ledger.runs.update(active.runId, { taskRoot: taskRoot.root, cwd: taskRoot.view, baseRevision: taskRoot.baseRevision });
    if (active.stopRequested) return this.endActive(active, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator before it started.' });

    const prompt = followUp ?? buildWorkerPrompt(task);
    // Pi through a connection's base URL addresses the model by the console's provider entry.
    const deliveredConnection =
      active.admission.homeMode === 'isolated' && active.admission.connection ? (this.options.connections.state(active.admission.connection.id) ?? null) : null;
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
    this.ledger.runs.insertAttempt({ id: attemptId, runId: active.runId, number: active.attemptNumber, startedAt: this.now() });
    // Viewers hear where it begins before any of its bytes, so the separator lands in place (the
    // previous attempt's bytes are all in the ledger by now: its end was awaited before this).
    this.options.fanout.attemptStarted(active.runId);

    let launch: ConfinedLaunch;
    let session: PtySession;
    try {
      // The connection's secret is opened here, at launch, and nowhere earlier: a refused run never
      // decrypts anything. It lives on in the delivered files (removed when the attempt ends), the
      // child's environment and the redactor.
      const credential = await credentialFor(active, this.options.connections);
      launch = await confineLaunch({
        spec,
        taskRoot,
        provider: active.provider,
        profile: active.profile,
        admission: active.admission,
        operatorEnv: this.options.operatorEnv ?? process.env,
        operatorHome: this.options.operatorHome ?? homedir(),
        dataDir: this.options.dataDir,
        sandbox: probe,
        onEgressDecision: (decision) => this.note(active.runId, attemptId, 'egress', { ...decision }),
        connectionBaseUrl: credential?.baseUrl ?? null,
        credential: credential?.delivery ?? null,
      });
      active.launch = launch;
      session = startPtySession({
        executable: launch.executable,
        args: launch.args,
        cwd: spec.cwd,
        env: launch.env,
        cols: active.size.cols,
        rows: active.size.rows,
      });
    } catch (error) {
      await active.launch?.cleanup();
      active.launch = null;
      if (error instanceof OperatorError && error.code === 'spawn_failed') return this.spawnFailed(active, task.title, error);
      const code = error instanceof OperatorError ? error.code : 'internal';
      this.ledger.runs.finishAttempt(attemptId, { status: 'failed', failureCode: code, exitCode: null, signal: null, retryAt: null, endedAt: this.now() });
      // A connection that became unusable (or unreadable) since admission is the owner's to fix.
      if (error instanceof OperatorError && error.code === 'configuration_incomplete') {
        const agent = this.ledger.agents.get(active.agentId);
        if (agent) this.runNotices.raiseOwnerNotice(active.runId, agent, { id: task.id, title: task.title }, error.toShape());
      }
      throw error;
    }
    active.session = session;
    this.runNotices.resolveFixedBy(active.agentId, ['spawn_failed'], `A later run of ${active.admission.agentName} found its CLI and started.`);

    // The process (and the CLI's session, where it names one up front) must be findable again before
    // the run is awaited: if the console dies from here on, recovery starts from these.
    this.saveLocator(active.runId, 'process', processLocator(session.pid, active.attemptNumber));
    if (active.sessionId) this.saveSessionLocator(active);

    const pipeline = new OutputPipeline({
      runId: active.runId,
      attemptId,
      session,
      output: this.ledger.output,
      log: this.options.log,
      redactor: this.redactorFor(active.runId),
    });
    this.options.fanout.attachLive(pipeline.feed);
    const eventFormat = active.profile.eventFormat ?? definition.events.format;
    this.followTimeline(active, pipeline, eventFormat === 'text' ? null : eventFormat);

    this.ledger.runs.update(active.runId, { status: 'running', startedAt: row.started_at ?? this.now() });
    this.announce(active.runId);
    this.options.log.info('run attempt started', { runId: active.runId, attempt: active.attemptNumber, pid: session.pid });

    active.outputFlushed = pipeline.whenFinished();
    const { exit } = await pipeline.whenFinished();
    await launch.cleanup();
    active.launch = null;
    active.session = null;
    // A closing console leaves the run as it was: the next start finds it and strands it, with Resume.
    if (this.closing) return;
    await this.attemptEnded(active, task, exit);
  }

  /** Parses the CLI's JSON-line stream into timeline entries, off the batches the pipeline cuts. */
  private followTimeline(active: ActiveRun, pipeline: OutputPipeline, format: string | null): void {
    if (!format) return;
    const parser = createEventParser(format);
    const splitter = new LineSplitter();
    const attemptId = active.attemptId;
    // The bytes are redacted already; the parsed values are checked again, as everything written is.
    const redactor = this.redactorFor(active.runId);
    const take = (lines: string[], end = false) => {
      const entries: Array<{ kind: string; data: Record<string, unknown> }> = [];
      const parsed = lines.flatMap((line) => (line.trim() === '' ? [] : parser.parseLine(line)));
      // At the end of the output, a message the CLI was still streaming is complete.
      if (end) parsed.push(...parser.flush());
      for (const event of parsed) {
        // Unparseable lines stay what they are: raw output, already in the ledger and the terminal.
        if (event.kind === 'raw') continue;
        active.attemptEvents.push(event);
        if (event.kind === 'session' && active.sessionSource !== 'argv' && event.sessionId !== active.sessionId) {
          active.sessionId = event.sessionId;
          this.saveSessionLocator(active);
        }
        const { kind, ...data } = event;
        // A message joined from streamed pieces can hold a secret no single piece showed: every value
        // is redacted as it is written.
        entries.push({ kind, data: redactor ? redactor.redactValue(data) : data });
      }
      if (entries.length) {
        this.ledger.runs.appendEvents(active.runId, attemptId, entries, this.now());
        this.announceTimeline(active.runId);
      }
    };
    pipeline.feed.onBatch((batch) => take(splitter.push(batch.bytes)));
    pipeline.feed.onEnd(() => take(splitter.flush(), true));
  }

  private async attemptEnded(active: ActiveRun, task: { id: string; title: string; planPath: string | null; reviewPath: string | null }, exit: PtyExit): Promise<void> {
    const attemptId = active.attemptId!;
    const finished = { exitCode: exit.exitCode, signal: exit.signal, endedAt: this.now() };
    if (active.stopRequested) {
      this.ledger.runs.finishAttempt(attemptId, { ...finished, status: 'cancelled', failureCode: 'cancelled', retryAt: null });
      return this.endActive(active, 'cancelled', { code: 'cancelled', message: 'Stopped by the operator.' });
    }
    const tail = this.ledger.output.tail(active.runId, classifierTailBytes);
    // Exit 0 is not enough: some CLIs (Pi) exit 0 when the model call failed and say so only in their
    // JSON stream. The classifier calls an attempt a success only when nothing fatal came after the
    // CLI's last answer.
    const classified = classifyAttempt({
      providerId: active.provider.id,
      providerName: active.provider.displayName,
      model: active.admission.model,
      exitCode: exit.exitCode,
      signal: exit.signal,
      outputTail: new TextDecoder().decode(tail.bytes),
      events: active.attemptEvents,
      cliPatterns: failurePatternsFor(active.provider.definition),
    });
    if (classified === null && exit.exitCode === 0 && exit.signal === null) {
      this.ledger.runs.finishAttempt(attemptId, { ...finished, status: 'succeeded', failureCode: null, retryAt: null });
      const fatal = active.attemptEvents.some((event) => event.kind === 'error' && event.fatal);
      this.ledger.runs.update(active.runId, {
        submissionJson: JSON.stringify({ readyForReview: !fatal, artifactIdentity: artifactIdentity(task) }),
      });
      this.runNotices.resolveFixedBy(active.agentId, fixedBySuccessCodes, `A later run of ${active.admission.agentName} succeeded.`);
      return this.endActive(active, 'succeeded', null);
    }
    const failure: AttemptFailure = classified ?? {
      code: 'process_exit',
      retryable: true,
      ownerAction: false,
      message: `The CLI exited with code ${exit.exitCode}.`,
      evidence: null,
      quota: null,
    };
    if (failure.quota) this.note(active.runId, attemptId, 'quota_observed', { ...failure.quota });

    const delay = this.closing ? null : retryDelayMs(failure, active.attemptNumber, active.profile, this.now());
    const retryAt = delay === null ? null : this.now() + delay;
    this.ledger.runs.finishAttempt(attemptId, { ...finished, status: 'failed', failureCode: failure.code, retryAt });

    if (retryAt !== null && delay !== null) {
      this.note(active.runId, attemptId, 'retry_scheduled', { code: failure.code, retryAt: new Date(retryAt).toISOString(), message: failure.message });
      this.announce(active.runId);
      active.retryTimer = setTimeout(() => {
        active.retryTimer = null;
        this.ledger.runs.clearRetry(active.runId);
        // A retry is a fresh attempt: the failed one's session may hold a half-done turn.
        void this.prepareAndLaunch(active, { mode: 'new' });
      }, delay);
      return;
    }
    const shape = failureShape(failure, active);
    if (failure.ownerAction || failure.code === 'quota_exhausted') {
      const agent = this.ledger.agents.get(active.agentId);
      if (agent) this.runNotices.raiseOwnerNotice(active.runId, agent, { id: task.id, title: task.title }, shape);
    }
    this.endActive(active, 'failed', shape);
  }

  private spawnFailed(active: ActiveRun, taskTitle: string, error: OperatorError): void {
    const row = this.ledger.runs.row(active.runId);
    const attemptId = active.attemptId!;
    this.ledger.runs.finishAttempt(attemptId, { status: 'failed', failureCode: 'spawn_failed', exitCode: null, signal: null, retryAt: null, endedAt: this.now() });
    const executable = active.profile.executable ?? active.provider.executable ?? 'the CLI';
    const shape: OperatorErrorShape = {
      code: 'spawn_failed',
      reason: 'executable_not_found',
      message: `${active.provider.displayName} could not be started: ${error.message} Install ${executable}${
        active.provider.definition.ownProgram ? '' : ` (the ${active.provider.displayName} CLI)`
      } or set the agent's executable path.`,
      actionUrl: actionRoute({ kind: 'agent', agentId: active.agentId }),
    };
    const agent = this.ledger.agents.get(active.agentId);
    if (agent) this.runNotices.raiseOwnerNotice(active.runId, agent, { id: row?.task_id ?? null, title: taskTitle }, shape, `${active.provider.displayName} not found`);
    this.endActive(active, 'failed', shape);
  }

  private endActive(active: ActiveRun, status: RunStatus, failure: OperatorErrorShape | null): void {
    this.active.delete(active.runId);
    this.finishRun(active.runId, status, failure);
    this.pump();
  }

  private finishRun(runId: string, status: RunStatus, failure: OperatorErrorShape | null): void {
    this.deferred.delete(runId);
    this.ledger.runs.update(runId, { status, failure, endedAt: this.now() });
    this.options.log.info('run ended', { runId, status, code: failure?.code });
    this.announce(runId);
  }

  // Helpers ---------------------------------------------------------------------------------------

  private saveSessionLocator(active: ActiveRun): void {
    this.saveLocator(active.runId, 'session', { id: active.sessionId, dir: active.sessionDir, providerId: active.provider.id, fingerprint: configFingerprint(active.admission) });
  }

  private saveLocator(runId: string, kind: 'process' | 'session', data: Record<string, unknown>): void {
    this.ledger.runs.saveLocator(runId, kind, data, digest({ kind, ...data }), this.now());
  }

  /** The console's own timeline entries (retries, resumes, quota observations, egress decisions). */
  private note(runId: string, attemptId: string | null, kind: string, data: Record<string, unknown>): void {
    const redactor = this.redactorFor(runId);
    this.ledger.runs.appendEvents(runId, attemptId, [{ kind, data: redactor ? redactor.redactValue(data) : data }], this.now());
    this.announceTimeline(runId);
  }

  /** The secrets delivered to a run, as a redactor; null when it was given none. */
  private redactorFor(runId: string): SecretRedactor | null {
    const secrets = this.active.get(runId)?.secrets;
    return secrets && secrets.size > 0 ? new SecretRedactor(secrets) : null;
  }

  private announce(runId: string): void {
    this.options.events.emit('runsChanged', { runIds: [runId] });
    this.options.events.emit('tasksChanged', {});
  }

  private announceTimeline(runId: string): void {
    if (this.closing || this.timelineTimers.has(runId)) return;
    this.timelineTimers.set(
      runId,
      setTimeout(() => {
        this.timelineTimers.delete(runId);
        this.options.events.emit('runTimeline', { runId });
      }, timelineNoticeMs),
    );
  }

  private requireRun(runId: string) {
    const row = this.ledger.runs.row(runId);
    if (!row) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.', actionUrl: actionRoute({ kind: 'runs' }) });
    return row;
  }

  private requireAgent(agentId: string) {
    const agent = this.ledger.agents.get(agentId);
    if (!agent) throw new OperatorError({ code: 'not_found', message: 'That agent is no longer in the console.', actionUrl: actionRoute({ kind: 'agents' }) });
    return agent;
  }

}

/** A classified failure as the error shape the run detail and notices show. */
function failureShape(failure: AttemptFailure, active: ActiveRun): OperatorErrorShape {
  const shape: OperatorErrorShape = { code: failure.code, message: failure.message };
  if (failure.ownerAction) shape.actionUrl = actionRoute({ kind: 'agent', agentId: active.agentId });
  return shape;
}
