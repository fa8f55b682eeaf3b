import { createHash } from 'node:crypto';
import type { Environment } from '../../shared/entities';
import { OperatorError, type OperatorErrorShape } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { resolveAgentLaunch } from '../agents/agent-launch';
import type { StoredAgent } from '../ledger/agents-repository';
import { canonicalJson, type ProviderCatalog } from '../providers/catalog';

/**
 * What a run was admitted with. Saved on the run before anything starts; a run resumed later keeps
 * it (its home mode, its environment) even if the agent has changed since.
 */
export interface Admission {
  version: 1;
  agentId: string;
  agentName: string;
  providerId: string;
  model: string;
  profileId: string;
  profileRevision: string;
  environmentId: string;
  environmentKind: Environment['kind'];
  networkMode: Environment['networkMode'];
  homeMode: StoredAgent['homeMode'];
  connectionId: string | null;
  admittedAt: string;
}

export interface SandboxState {
  available: boolean;
  reason?: string | undefined;
  hint?: string | undefined;
}

export interface AdmissionInput {
  agent: StoredAgent & { deleted: boolean };
  environment: Environment | undefined;
  catalog: ProviderCatalog;
  /** The sandbox probe's answer; null while the console has not probed yet. */
  sandbox: SandboxState | null;
  now: number;
}

export type AdmissionResult = { admitted: true; admission: Admission } | { admitted: false; failure: OperatorErrorShape };

/**
 * Admission comes first (DESIGN.md section 3): before a capacity lease, a task root, a secret or a
 * process, the run is checked against the rules. A refusal is a result with a code and an action link,
 * not an exception: nothing was started, so nothing needs undoing.
 */
export function admitRun(input: AdmissionInput): AdmissionResult {
  const { agent, environment } = input;
  const agentRoute = actionRoute({ kind: 'agent', agentId: agent.id });
  if (agent.deleted) {
    return refuse({ code: 'configuration_incomplete', reason: 'agent_deleted', message: `${agent.name} was deleted. Choose another agent.`, actionUrl: actionRoute({ kind: 'agents' }) });
  }
  let launch;
  try {
    launch = resolveAgentLaunch(input.catalog, agent);
  } catch (error) {
    const shape = error instanceof OperatorError ? error.toShape() : { code: 'configuration_incomplete' as const, message: String(error) };
    return refuse({ ...shape, code: 'configuration_incomplete', actionUrl: agentRoute });
  }
  if (!environment) {
    return refuse({
      code: 'configuration_incomplete',
      reason: 'environment_missing',
      message: `${agent.name}'s environment no longer exists. Choose one on the agent's page.`,
      actionUrl: agentRoute,
    });
  }
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
  return {
    admitted: true,
    admission: {
      version: 1,
      agentId: agent.id,
      agentName: agent.name,
      providerId: launch.provider.id,
      model: agent.model,
      profileId: agent.profileId,
      profileRevision: launch.revision,
      environmentId: environment.id,
      environmentKind: environment.kind,
      networkMode: environment.networkMode,
      homeMode: agent.homeMode,
      connectionId: agent.connectionId,
      admittedAt: new Date(input.now).toISOString(),
    },
  };
}

function refuse(failure: OperatorErrorShape): AdmissionResult {
  return { admitted: false, failure };
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
