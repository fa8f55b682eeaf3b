import { createHash } from 'node:crypto';
import type { Environment, Project } from '../../shared/entities';
import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { requiresConnection } from '../../shared/connection-rule';
import { actionRoute } from '../../shared/routes';
import { resolveAgentLaunch } from '../agents/agent-profile';
import type { StoredAgent } from '../ledger/agents-repository';
import { canonicalJson, type ProviderCatalog, type ProviderEntry } from '../providers/catalog';
import { budgetUncounted, type Budget, type PriceTable } from '../../shared/usage';
import { budgetsHolding, budgetStopping } from '../usage/budget-rule';
import { unpricedRunModel } from '../usage/run-billing';
import { describeBytes, freeSpaceAdvice } from '../platform/disk-space';
import { connectionProblem, type ConnectionState } from '../connections/connection-problem';
import type { Admission, AdmittedConnection } from '../ledger/run-admission';
import type { StoredHost } from '../ledger/hosts-repository';

// The record of an admission lives in the ledger (usage reads it too, and usage is below runs); it is
// named here as well for the run lifecycle's files, which know it as admission's.
export { savedAdmission, type Admission, type AdmittedConnection } from '../ledger/run-admission';

/** The data directory's disk as admission sees it: asked afresh at each admission of a run. */
export interface DiskSpace {
  dataDir: string;
  /** Null when the disk could not be asked (then the rule does not refuse). */
  freeBytes: number | null;
  /** Under this many free bytes a new run is refused (0: never). */
  minFreeBytes: number;
}

export const diskFull = 'disk_full';

export interface SandboxState {
  available: boolean;
  reason?: string | undefined;
  hint?: string | undefined;
}

export interface AdmissionInput {
  agent: StoredAgent & { deleted: boolean };
  environment: Environment | undefined;
  /** The SSH host the environment names, with its last test; undefined when it names none (or it is gone). */
  host?: Pick<StoredHost, 'id' | 'name' | 'lastTest'> | undefined;
  catalog: ProviderCatalog;
  /** The sandbox probe's answer; null while the console has not probed yet. */
  sandbox: SandboxState | null;
  /** The agent's bound connection (undefined when it has none, or it was deleted). */
  connection: ConnectionState | undefined;
  /**
   * A run being resumed: its saved admission. Its environment, network rules (mode and allowed
   * hosts), home mode and whether it needed a connection are kept; a run admitted before the
   * AI-connection rule is not held to it.
   */
  saved?: Admission | undefined;
  /**
   * The budgets on the agent and on its bound connection, with what they have spent (issue 14). Only
   * those that hold this run count: the agent's, and the connection's when its key is delivered.
   */
  budgets?: readonly Budget[] | undefined;
  /**
   * The price table in use: a money budget cannot count a run whose model has no price in it, so
   * such a run is refused. Absent, no run is taken to be unpriced.
   */
  prices?: PriceTable | undefined;
  /**
   * The data directory's free space, for a run about to start (new or resumed). Absent for an agent's
   * Test and verification: a full disk is the console's state, not the agent's configuration.
   */
  disk?: DiskSpace | undefined;
  /**
   * The project of the run about to start (absent for an agent's Test and verification, which have
   * no task): a run on an SSH host takes its code there and back through git, so needs a git repository.
   */
  project?: Pick<Project, 'name' | 'path' | 'isGitRepo'> | undefined;
  /**
   * For a run about to start: the refusal its variables call for, a secret this console cannot open
   * now (project-setup-service.ts unreadableVariable), or null; absent for an agent's Test and verification.
   */
  variables?: OperatorErrorShape | null | undefined;
  now: number;
}

export type AdmissionResult =
  | { admitted: true; admission: Admission }
  | { admitted: false; deferred: false; failure: OperatorErrorShape }
  /** Not now, but soon (a connection being updated): the run stays queued and is retried. */
  | { admitted: false; deferred: true; failure: OperatorErrorShape; retryAfterMs: number };

/** How long a run waits for a connection being updated before admission looks again. */
export const connectionBusyRetryMs = 1000;

export const aiConnectionRequired = 'ai_connection_required';

/**
 * Admission comes first (DESIGN.md section 3): before a capacity lease, a task root, a secret or a
 * process, the run is checked against the rules. A refusal is a result with a code and an action link,
 * not an exception: nothing was started, so nothing needs undoing. The same function answers the
 * agent's Test and its verification, so all three always agree.
 */
export function admitRun(input: AdmissionInput): AdmissionResult {
  const { agent, saved } = input;
  const agentRoute = actionRoute({ kind: 'agent', agentId: agent.id });
  if (agent.deleted) {
    return refuse({ code: 'configuration_incomplete', reason: 'agent_deleted', message: `${agent.name} was deleted. Choose another agent.`, actionUrl: actionRoute({ kind: 'agents' }) });
  }
  // The disk rule: a run that starts on a (nearly) full disk could store neither its output nor its
  // record, so it is refused up front, whoever runs it, until space is back.
  const free = input.disk?.freeBytes ?? null;
  if (input.disk && free !== null && free < input.disk.minFreeBytes) return refuse(diskFullRefusal({ ...input.disk, freeBytes: free }));
  let launch;
  try {
    launch = resolveAgentLaunch(input.catalog, agent);
  } catch (error) {
    const shape = error instanceof OperatorError ? error.toShape() : { code: 'configuration_incomplete' as const, message: String(error) };
    return refuse({ ...shape, code: 'configuration_incomplete', actionUrl: agentRoute });
  }
  const environment = input.environment;
  if (!environment) {
    return refuse({
      code: 'configuration_incomplete',
      reason: 'environment_missing',
      message: `${agent.name}'s environment no longer exists. Choose one on the agent's page.`,
      actionUrl: agentRoute,
    });
  }
  const homeMode = saved?.homeMode ?? agent.homeMode;
  // A run on an SSH host (issue 28) needs what its steps there use: refused up front when the host's
  // last test says it lacks any of it, with one notice. A resumed run goes back to its own host.
  const hostId = saved ? (saved.host?.id ?? null) : environment.hostId;
  if (hostId !== null) {
    const problem = hostProblem(input.host, environment, saved?.networkMode ?? environment.networkMode, homeMode, launch.provider);
    if (problem) return refuse(hostRefusal(agent, environment, input.host, problem));
    if (input.project && !input.project.isGitRepo) return refuse(notGitOnHostRefusal(agent, environment, input.host, input.project));
  }

  // The AI-connection rule. A resumed run is held to what it was admitted under.
  const connectionRequired = saved ? saved.connectionRequired : requiresConnection(environment, homeMode);
  let connection: AdmittedConnection | null = null;
  if (connectionRequired) {
    if (homeMode === 'preconfigured') return refuse(preconfiguredHomeRefusal(agent, environment));
    const problem = connectionProblem(input.connection, agent, launch.provider);
    if (problem) return refuse(connectionRefusal(agent, environment, homeMode, problem));
    const bound = input.connection!;
    if (bound.updating) {
      return {
        admitted: false,
        deferred: true,
        retryAfterMs: connectionBusyRetryMs,
        failure: {
          code: 'ai_connection_busy',
          reason: 'ai_connection_busy',
          message: `The AI connection “${bound.name}” is being updated. The run waits and starts once the update is saved.`,
          actionUrl: actionRoute({ kind: 'settings-ai-connections' }),
        },
      };
    }
    connection = { id: bound.id, name: bound.name, provider: bound.provider, method: bound.method, baseUrl: bound.baseUrl };
  }
  // A secret variable of the run that cannot be opened now would fail it at launch: refused here instead, naming it.
  if (input.variables) return refuse(input.variables);

  if (environment.kind === 'sandboxed' && input.sandbox && !input.sandbox.available) {
    return refuse({
      code: 'sandbox_unavailable',
      reason: 'sandbox_unavailable',
      message: `${agent.name} runs in the ${environment.name} environment, but the OS sandbox is not available here${
        input.sandbox.reason ? ` (${input.sandbox.reason})` : ''
      }. ${input.sandbox.hint ?? 'Install bubblewrap, or move the agent to the Local environment.'}`,
      actionUrl: agentRoute,
    });
  }
  // The budget rule, after every other: a run whose agent's budget, or whose delivered connection's,
  // is spent is refused, as a missing connection is; so is one a money budget cannot count (its model,
  // or what the budget already holds, has no price). A resumed run keeps the admission it was given:
  // its spending was allowed when it started, and resuming it is the operator's explicit choice.
  if (!saved) {
    const runUnpriced = input.prices ? unpricedRunModel(input.prices, connection, launch.provider, agent.model) : null;
    const stopping = budgetStopping(input.budgets ?? [], { agentId: agent.id, connectionId: connection?.id ?? null }, runUnpriced);
    if (stopping) return refuse(stopping.refusal);
  }

  // The network rules are read now and recorded: a resumed run keeps them, whatever the environment
  // says by then. A local environment has no proxy, so nothing it lists could be enforced.
  const networkMode = saved ? saved.networkMode : environment.networkMode;
  const allowedHosts = saved ? saved.allowedHosts : environment.kind === 'sandboxed' ? [...environment.allowedHosts] : [];
  return {
    admitted: true,
    admission: {
      version: 3,
      agentId: agent.id,
      agentName: agent.name,
      providerId: launch.provider.id,
      model: agent.model,
      profileId: agent.profileId,
      profileRevision: launch.revision,
      environmentId: environment.id,
      environmentKind: environment.kind,
      networkMode,
      allowedHosts,
      homeMode,
      connectionId: connection?.id ?? null,
      connectionRequired,
      connection,
      ...(hostId !== null && input.host ? { host: { id: input.host.id, name: input.host.name } } : {}),
      admittedAt: new Date(input.now).toISOString(),
    },
  };
}

export const hostUnready = 'host_unready';

/**
 * What keeps a run from starting on its SSH host, in words, or null when nothing does. Read from the
 * host's last test (Test host asks all of it): the console's supervisor there needs Python 3, a
 * sandboxed run bubblewrap with user namespaces (and setpriv on a root account, whose sandbox runs as
 * an unprivileged user), a named CLI its program. A preconfigured home is the operator's login here,
 * which is never copied to a host. (Every network mode is enforced there; the provider-only mode's
 * traffic leaves from this machine through the run's tunnel.)
 */
function hostProblem(
  host: AdmissionInput['host'],
  environment: Environment,
  networkMode: Environment['networkMode'],
  homeMode: StoredAgent['homeMode'],
  provider: ProviderEntry,
): string | null {
  if (!host) return 'names an SSH host that is no longer in Settings → Hosts';
  const test = host.lastTest;
  if (test?.outcome !== 'ready') return `runs on ${host.name}, which has not passed Test host`;
  const report = test.report;
  if (!report.python) return `runs on ${host.name}, where Test host found no python3, which the console's run supervisor needs (install python3 there, or test the host again if it has it)`;
  if (environment.kind === 'sandboxed') {
    if (!report.bubblewrap) return `is sandboxed, and Test host found no bubblewrap on ${host.name} (install it there: Debian and Ubuntu: apt install bubblewrap)`;
    if (!report.bubblewrap.userNamespaces) return `is sandboxed, and bubblewrap on ${host.name} cannot make user namespaces (${report.bubblewrap.refusal ?? 'refused'}; allow unprivileged user namespaces there)`;
    if (report.account?.uid === 0 && !report.account.setpriv) {
      return `is sandboxed, and ${host.name} is reached as root, whose sandboxed runs start as an unprivileged user through /usr/bin/setpriv, which Test host did not find there (install util-linux there, or reach the host as another user)`;
    }
  }
  if (homeMode === 'preconfigured') return `runs on ${host.name}, and a preconfigured home is your own login on this machine, which is never copied to a host (give the agent an isolated home)`;
  // A CLI the host was asked about (a bare name on its PATH); a path the catalog names is looked for at launch.
  const executable = provider.definition.ownProgram ? null : provider.executable;
  if (executable) {
    const cli = report.clis.find((entry) => entry.executable === executable);
    if (cli && cli.version === null) return `runs on ${host.name}, where Test host did not find ${cli.displayName} (${executable}) on the PATH (install it there, then test the host again)`;
  }
  return null;
}

function hostRefusal(agent: StoredAgent, environment: Environment, host: AdmissionInput['host'], problem: string): OperatorErrorShape {
  return {
    code: 'configuration_incomplete',
    reason: hostUnready,
    message: `${agent.name} runs in the ${environment.name} environment, which ${problem}. Nothing was started. Fix it${
      host ? ` and test ${host.name} in Settings → Hosts` : ' in Settings → Environments'
    }, then run the task again.`,
    actionUrl: host ? actionRoute({ kind: 'settings-hosts' }) : actionRoute({ kind: 'settings-environment', environmentId: environment.id }),
  };
}

/** A project that is not a git repository, in an environment on an SSH host: its code could neither reach the host nor come back. */
function notGitOnHostRefusal(agent: StoredAgent, environment: Environment, host: AdmissionInput['host'], project: NonNullable<AdmissionInput['project']>): OperatorErrorShape {
  return {
    code: 'configuration_incomplete',
    reason: hostUnready,
    message:
      `${agent.name} runs in the ${environment.name} environment, on ${host?.name ?? 'an SSH host'}, and runs on SSH hosts take their code there and back through git, ` +
      `but the project “${project.name}” (${project.path}) is not a git repository. Nothing was started. ` +
      'Give the agent an environment on this machine on its page, or run the task with an agent whose environment is on this machine.',
    actionUrl: actionRoute({ kind: 'agent', agentId: agent.id }),
  };
}

function refuse(failure: OperatorErrorShape): AdmissionResult {
  return { admitted: false, deferred: false, failure };
}

/** Why a run was refused while the data directory's disk is (nearly) full, and where to free space. */
export function diskFullRefusal(disk: DiskSpace & { freeBytes: number }): OperatorErrorShape {
  return {
    code: 'disk_full',
    reason: diskFull,
    message:
      `The disk of the data directory ${disk.dataDir} is full: ${describeBytes(disk.freeBytes)} free, and a run needs at least ` +
      `${describeBytes(disk.minFreeBytes)}. Nothing was started. ${freeSpaceAdvice}, then run it again.`,
    actionUrl: actionRoute({ kind: 'cleanup' }),
  };
}


function connectionRefusal(agent: StoredAgent, environment: Environment, homeMode: StoredAgent['homeMode'], problem: string): OperatorErrorShape {
  const why =
    environment.kind === 'sandboxed' || environment.requiresConnection
      ? `It runs in the ${environment.name} environment, which needs a managed AI connection.`
      : homeMode === 'isolated'
        ? 'It has an isolated home, which holds only what a managed AI connection delivers.'
        : '';
  return {
    code: 'configuration_incomplete',
    reason: aiConnectionRequired,
    message: `Choose an AI connection for ${agent.name}. ${problem === 'none' ? why : problem}`.trim(),
    actionUrl: actionRoute({ kind: 'agent-ai-connection', agentId: agent.id }),
  };
}

function preconfiguredHomeRefusal(agent: StoredAgent, environment: Environment): OperatorErrorShape {
  return {
    code: 'configuration_incomplete',
    reason: aiConnectionRequired,
    message:
      `The ${environment.name} environment needs an isolated home with a managed AI connection: a preconfigured home ` +
      `uses your own login, which an unattended run must never see. Switch ${agent.name} to an isolated home, then choose an AI connection.`,
    actionUrl: actionRoute({ kind: 'agent-home-mode', agentId: agent.id }),
  };
}

/**
 * A digest of everything admission looks at for an agent. A refused verification is kept until this
 * changes: retrying an unchanged configuration would only be refused again.
 */
export function admissionConfigRevision(input: Pick<AdmissionInput, 'agent' | 'environment' | 'connection' | 'catalog' | 'sandbox' | 'budgets' | 'prices' | 'host'>): string {
  const { agent, environment, connection } = input;
  // Whether each budget that may hold the agent's runs is spent or cannot count, and in which
  // period: a budget raised, removed, spent, rolled over or priced changes the answer (not what it
  // spent: that grows with every attempt without changing the verdict). Left out when there are
  // none, so the revisions recorded before budgets existed still hold.
  const holding = budgetsHolding(input.budgets ?? [], { agentId: agent.id, connectionId: connection?.id ?? null });
  const budgets = holding
    .map((budget) => ({
      id: budget.id,
      exhausted: budget.exhausted,
      periodStart: budget.periodStart,
      limit: budget.limit,
      ...(budget.measure === 'cost' ? { uncounted: budgetUncounted(budget) } : {}),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
  let profileRevision = 'unknown';
  let launchProvider: ProviderEntry | undefined;
  try {
    const launch = resolveAgentLaunch(input.catalog, agent);
    profileRevision = launch.revision;
    launchProvider = launch.provider;
  } catch {
    // A provider or profile that left the catalog: part of the revision as "unknown".
  }
  // Whether a money budget could count the agent's runs: a price set (or removed) for its model changes the answer.
  const delivered = connection && agent.homeMode === 'isolated' ? { provider: connection.provider, method: connection.method } : null;
  const runUnpriced = input.prices && holding.some((budget) => budget.measure === 'cost') ? unpricedRunModel(input.prices, delivered, launchProvider, agent.model) : null;
  const shape = {
    agent: {
      providerId: agent.providerId,
      model: agent.model,
      profileId: agent.profileId,
      profileRevision,
      homeMode: agent.homeMode,
      environmentId: agent.environmentId,
      connectionId: agent.connectionId,
      deleted: agent.deleted,
    },
    environment: environment
      ? {
          kind: environment.kind,
          requiresConnection: environment.requiresConnection,
          networkMode: environment.networkMode,
          // Left out for this machine, so the revisions recorded before hosts existed still hold.
          ...(environment.hostId !== null ? { hostId: environment.hostId } : {}),
        }
      : null,
    // Installing bubblewrap (and restarting) changes the answer as much as editing the agent does.
    // Not yet probed counts as available, as admission treats it.
    sandboxUnavailable: input.sandbox?.available === false,
    connection: connection
      ? {
          id: connection.id,
          provider: connection.provider,
          status: connection.status,
          storage: connection.storage,
          agentScope: connection.agentScope,
          allowed: connection.agentScope === 'all' || connection.agentIds.includes(agent.id),
          updatedAt: connection.updatedAt,
        }
      : null,
    ...(budgets.length > 0 ? { budgets } : {}),
    ...(runUnpriced ? { runUnpriced } : {}),
    // A host tested again (bubblewrap installed, say) changes the answer.
    ...(environment?.hostId ? { hostTestedAt: input.host?.lastTest?.testedAt ?? null } : {}),
  };
  return createHash('sha256').update(canonicalJson(shape)).digest('hex');
}

/**
 * What changes how the CLI behaves in a session: its model, its launch profile, its home and where it
 * runs. A resumed run reuses its native session only while this is unchanged.
 */
export function configFingerprint(admission: Pick<Admission, 'providerId' | 'model' | 'profileRevision' | 'homeMode' | 'environmentKind' | 'networkMode'>): string {
  const shape = {
    providerId: admission.providerId,
    model: admission.model,
    profileRevision: admission.profileRevision,
    homeMode: admission.homeMode,
    environmentKind: admission.environmentKind,
    networkMode: admission.networkMode,
  };
  return createHash('sha256').update(canonicalJson(shape)).digest('hex');
}

/** Why a new fingerprint differs from the old one, in words for the timeline. */
export function describeConfigChange(before: Admission, after: Admission): string {
  const changes: string[] = [];
  if (before.model !== after.model) changes.push(`model changed from ${before.model} to ${after.model}`);
  if (before.profileRevision !== after.profileRevision) changes.push(`launch profile ${after.profileId} changed`);
  if (before.providerId !== after.providerId) changes.push(`provider changed from ${before.providerId} to ${after.providerId}`);
  if (before.environmentKind !== after.environmentKind || before.networkMode !== after.networkMode) changes.push('environment changed');
  if (before.homeMode !== after.homeMode) changes.push('home mode changed');
  return changes.join('; ') || 'configuration changed';
}
