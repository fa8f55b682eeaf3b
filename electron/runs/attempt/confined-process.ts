import { OutputPipeline, type PtyOutputSource } from '../../pty/output-pipeline';
import { startPtySession, type PtySession } from '../../pty/pty-session';
import { confineLaunch, type ConfinedLaunch, type ConfineLaunchInput } from './attempt-confinement';
import { processLocator } from '../../platform/process-identity';
import { stopReason, type ActiveRun, type RunContext } from '../run-context';
import { takeStop } from './abortable';
import type { ProcessEnd } from './attempt-scope';

/**
 * A process of an attempt (the project's setup command, or the agent), from its confinement to the
 * undoing of it, written once for both: confine → spawn on a PTY → its output into the ledger and to
 * viewers → stopped on the run's stop signal with the right grace → its exit and every byte awaited
 * → the confinement undone. Where and how an attempt's processes run is this file's business alone.
 */

/** A closing console gives each run's process this long before SIGKILL, whatever its profile says. */
const shutdownGraceMs = 2000;

export interface ConfinedProcessOwner {
  context: RunContext;
  active: ActiveRun;
  attemptId: string;
  /** The run's stop signal (aborted by Stop, or by the console closing: its reason says which). */
  signal: AbortSignal;
}

/**
 * The launch, confined (an egress proxy, delivered files, the sandbox's argv). It is made whole even
 * if a Stop comes meanwhile, so that what it made is undone here and not half-left, then the Stop is taken.
 */
export async function confineProcess(owner: ConfinedProcessOwner, input: ConfineLaunchInput): Promise<ConfinedLaunch> {
  const launch = await confineLaunch(input);
  owner.active.launch = launch;
  if (owner.signal.aborted) await undoConfinement(owner.active);
  takeStop(owner.signal);
  return launch;
}

/**
 * Spawns the confined launch on a PTY sized as the run's viewer, findable again (its process locator)
 * should the console die meanwhile. A spawn that fails undoes the confinement and throws.
 */
export async function spawnConfined(owner: ConfinedProcessOwner, launch: ConfinedLaunch, cwd: string): Promise<ConfinedProcess> {
  const { active, context } = owner;
  let session: PtySession;
  try {
    takeStop(owner.signal);
    session = startPtySession({ executable: launch.executable, args: launch.args, cwd, env: launch.env, cols: active.size.cols, rows: active.size.rows });
  } catch (error) {
    await undoConfinement(active);
    throw error;
  }
  active.session = session;
  const spawned = new ConfinedProcess(owner, launch, session);
  try {
    context.saveLocator(active.runId, 'process', processLocator(session.pid, active.attemptNumber));
  } catch (error) {
    // Not findable again, so not left running: stopped and undone before the attempt fails.
    await spawned.abandon();
    throw error;
  }
  return spawned;
}

/**
 * A process started elsewhere (an SSH host's supervisor: spawn-and-follow-on-host.ts), followed,
 * stopped and awaited as a local one is, findable again by `locator`.
 */
export function adoptConfined(owner: ConfinedProcessOwner, launch: ConfinedLaunch, session: PtySession, locator: Record<string, unknown>): ConfinedProcess {
  owner.active.session = session;
  const adopted = new ConfinedProcess(owner, launch, session);
  owner.context.saveLocator(owner.active.runId, 'process', locator);
  return adopted;
}

/** The confinement of a launch that never got (or no longer has) a process is undone. */
export async function undoConfinement(active: ActiveRun): Promise<void> {
  await active.launch?.cleanup();
  active.launch = null;
}

/** The stop grace: the profile's, shortened when the console is closing. */
function graceMs(active: ActiveRun): number {
  return stopReason(active) === 'shutdown' ? Math.min(active.profile.stopGraceMs, shutdownGraceMs) : active.profile.stopGraceMs;
}

export class ConfinedProcess {
  private pipeline: OutputPipeline | null = null;
  private readonly stop = () => void this.session.stop({ graceMs: graceMs(this.owner.active) });

  constructor(
    private readonly owner: ConfinedProcessOwner,
    private readonly launch: ConfinedLaunch,
    readonly session: PtySession,
  ) {
    // Registered in the same turn as a local spawn (and after a look at the signal): no Stop falls
    // between. A process started elsewhere (an SSH host) may have been started while a Stop came: it is stopped now.
    if (owner.signal.aborted) queueMicrotask(this.stop);
    else owner.signal.addEventListener('abort', this.stop, { once: true });
  }

  get pid(): number {
    return this.session.pid;
  }

  /**
   * Its output, from now on: into the ledger under the attempt (redacted of the run's secrets) and
   * live to viewers. `source` frames the PTY's bytes (the setup's two marker lines); `startOffset`
   * is where in the run's output they start, when the caller has read it already.
   */
  follow(options: { source?: PtyOutputSource; startOffset?: number } = {}): OutputPipeline {
    const { context, active, attemptId } = this.owner;
    const { options: service } = context;
    const pipeline = new OutputPipeline({
      runId: active.runId,
      attemptId,
      ...(options.startOffset === undefined ? {} : { startOffset: options.startOffset }),
      session: options.source ?? this.session,
      output: context.ledger.output,
      writer: context.ledger.outputWriter,
      log: context.log,
      redactor: context.redactorFor(active.runId),
      // Output that cannot be stored ends the run: its process group is stopped now.
      onStorageLost: () => void this.session.stop({ graceMs: Math.min(active.profile.stopGraceMs, shutdownGraceMs) }),
      giveUpAfterMs: service.outputGiveUpAfterMs,
    });
    service.fanout.attachLive(pipeline.feed);
    this.pipeline = pipeline;
    return pipeline;
  }

  /**
   * The attempt failed around a live process (its ledger refused a locator, say): the process must not
   * outlive it. It is stopped now (the short grace), its output awaited, its confinement undone.
   */
  async abandon(): Promise<void> {
    const { active, signal } = this.owner;
    signal.removeEventListener('abort', this.stop);
    await this.session.stop({ graceMs: Math.min(active.profile.stopGraceMs, shutdownGraceMs) });
    await this.pipeline?.whenFinished();
    await this.launch.cleanup();
    active.launch = null;
    active.session = null;
  }

  /** Its exit and all of its output, then its confinement undone: the process is gone with nothing left of it. */
  async finished(): Promise<ProcessEnd> {
    if (!this.pipeline) throw new Error('A confined process is awaited only once its output is followed.');
    const { exit, endOffset, storageFailure } = await this.pipeline.whenFinished();
    this.owner.signal.removeEventListener('abort', this.stop);
    await this.launch.cleanup();
    this.owner.active.launch = null;
    this.owner.active.session = null;
    return { exit, endOffset, storageFailure };
  }
}
