import type { AttemptCause, Task } from '../../../shared/entities';
import type { Owner } from '../../platform/safe-path';
import type { SandboxProbe } from '../../sandbox/sandbox-probe';
import type { TaskRoot } from '../../task-root/task-root-layout';
import type { LaunchSpec, SessionRequest } from '../../providers/launch';
import type { PtyExit } from '../../pty/pty-session';
import type { ConfinedLaunch, ConfineLaunchInput } from './attempt-confinement';
import type { PreparedSetup } from './attempt-setup';
import type { ActiveRun, RunContext, SandboxProbeSource } from '../run-context';
import type { credentialFor } from '../run-credentials';
import type { RunWorkspace } from '../run-workspace';
import type { RunAttempt } from './attempt-record';
import type { HostConnection, RunHosts } from '../../hosts/remote-run/host-connection';
import type { RemoteRunLayout } from '../../hosts/remote-run/remote-supervisor';

/**
 * What the steps of one attempt share (attempt-steps.ts runs them in order). Each step reads what
 * earlier steps set (through `need`, which names a step run out of order) and sets its own fields.
 * A leaf: steps import it, it imports no step.
 */

/** What the attempt's steps ask of the rest of the run service. */
export interface AttemptServices {
  workspace: RunWorkspace;
  sandboxProbe: SandboxProbeSource;
  /** A failed attempt the retry policy gives another go: the scheduler waits until `retryAt`. */
  scheduleRetry: (active: ActiveRun, retryAt: number) => void;
  /** How a run reaches its SSH host (hosts/host-service.ts); null where the console has no hosts (tests of runs alone). */
  hosts: RunHosts | null;
}


/** One confinement for the setup command and the agent: all but what each launches and the key. */
export type SharedConfinement = Omit<ConfineLaunchInput, 'spec' | 'connectionBaseUrl' | 'credential'>;

/** How a confined process ended, once all of its output was stored (or could not be). */
export interface ProcessEnd {
  exit: PtyExit;
  endOffset: number;
  storageFailure: { error: unknown } | null;
}

export interface AttemptScope {
  readonly context: RunContext;
  readonly services: AttemptServices;
  readonly active: ActiveRun;
  /** Why this attempt starts, the CLI session it starts or resumes, and the operator's follow-up prompt. */
  readonly request: { session: SessionRequest; cause: AttemptCause; followUp: string | undefined };
  /** Set by a step that ended the run itself (a failed setup, a CLI not found): no further step runs. */
  runEnded: boolean;

  // Set by prepare-task-root.
  task?: Task;
  projectId?: string;
  sandbox?: SandboxProbe | null;
  /** Who owns the run's writable roots: the sandbox's user for a sandboxed run, else the console's. */
  owner?: Owner | null;
  taskRoot?: TaskRoot;
  setup?: PreparedSetup;
  // Set by prepare-on-host, for a run on an SSH host: how it is reached and where its files are there.
  host?: { connection: HostConnection; layout: RemoteRunLayout };
  // Set by begin-attempt.
  spec?: LaunchSpec;
  attempt?: RunAttempt;
  confinement?: SharedConfinement;
  // Set by project-setup: it ran (its output came before the agent's in this attempt).
  setupRan?: boolean;
  // Set by open-credential (null: the run was admitted without a managed connection).
  credential?: Awaited<ReturnType<typeof credentialFor>>;
  // Set by confine.
  launch?: ConfinedLaunch;
  // Set by confine-on-host (or, for a run taken up again, from its locator): the run's tunnel token
  // sealed by the console's vault, kept in its locator for a restarted console; null without one.
  sealedRunToken?: string | null;
  // Set by spawn-and-follow.
  agentFrom?: number;
  agentEnd?: ProcessEnd;
}

/** A value an earlier step sets; missing means the steps ran out of order (a bug, not a run's failure). */
export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`The attempt's ${what} is not set: its steps ran out of order.`);
  return value;
}
