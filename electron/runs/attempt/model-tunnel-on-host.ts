import { randomInt } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OperatorError } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import { remoteCredentialRoute, tunnelledDelivery } from '../../hosts/model-tunnel/remote-credential-route';
import { installRelayOnHost, openRunModelTunnel, type RunModelTunnel } from '../../hosts/model-tunnel/run-model-tunnel';
import { prepareOnHost, type RemoteRunLayout } from '../../hosts/remote-run/remote-supervisor';
import { describeError, detailsInLog } from '../../platform/log';
import type { CredentialDelivery } from '../../providers/credential-delivery';
import { endpointsFromAllowedHosts, loopbackForwards, type EgressEndpoint } from '../../sandbox/egress-allow-list';
import { egressSocketPath, startEgressProxy, type EgressDecisionNote, type EgressProxy } from '../../sandbox/egress-proxy';
import { chooseRelayPort, egressProxyEnvironment, egressRelayCommand } from '../../sandbox/egress-relay';
import type { ActiveRun } from '../run-context';
import { credentialFor } from '../run-credentials';
import { decisionNote, egressAllowList } from './attempt-confinement';
import { need, type AttemptScope } from './attempt-scope';
import { egressDecisionRecorder } from './begin-attempt';

/**
 * A run on an SSH host reaches the outside through the console (issue 28; hosts/model-tunnel/), by
 * one kept ssh tunnel to sockets in the run's remote task root, served on the sandbox's loopback
 * there by the console's egress relay, started first:
 *
 * - Where the AI connection has a base URL, the key stays on this machine: the console's model proxy
 *   for the run holds it, and the agent gets the relay's base URL and the run's token (redacted from
 *   its output like a key).
 * - In the `provider-only` network mode, the run's egress proxy is the one a local run has (the same
 *   allow-list, the same decisions on the run's timeline and Network panel), on this machine: the
 *   agent's proxy variables lead to a relay in its sandbox, the relay to the tunnel, the tunnel to the
 *   proxy. So every connection the agent makes leaves from the operator's machine, and the host's own
 *   network is never reached (the sandbox has none). A relay port of the model beside it is on the
 *   sandbox's loopback, in NO_PROXY. Without a base URL (the key delivered to the host as a login
 *   file), the provider's API is reached through the egress proxy, as a local run reaches it.
 *
 * Null when the run needs neither (its key delivered, its network `none` or `open`).
 */
export interface ModelTunnelOnHost {
  /** The connection's delivery through the tunnel; null when the run's model is not in it (its own delivery stands). */
  delivery: CredentialDelivery | null;
  /** The agent's command, behind the relays. */
  behindRelay(command: string[]): string[];
  /** The agent's proxy variables (provider-only), else none. */
  env: Record<string, string>;
  /** The host's end of the egress proxy's socket (provider-only; bound into the sandbox as a local run's is), else null. */
  proxySocket: string | null;
  /** Bound read-only into the run's sandbox on the host: the model socket's folder, the relay script. */
  binds: string[];
  /** Programs the sandbox must show (the host's node), for their installation folders. */
  programs: string[];
  /** The run's token sealed by the console's vault (never in clear in the ledger), for a restarted console to open the tunnel again; null without the model in it. */
  sealedRunToken: string | null;
  close(): Promise<void>;
}

/**
 * For the agent (`for: 'agent'`): the model and the egress, as the run needs them. For the project's
 * setup command (`for: 'setup'`), which gets no key: the egress alone, in the provider-only mode,
 * allowing what a local run's setup is allowed (the connection's base URL, else the provider's API,
 * and the allowed hosts).
 */
export async function modelTunnelOnHost(scope: AttemptScope, purpose: { for: 'agent' } | { for: 'setup'; connectionBaseUrl: string | null } = { for: 'agent' }): Promise<ModelTunnelOnHost | null> {
  const { context, active } = scope;
  const { connection, layout } = need(scope.host, 'host');
  const credential = purpose.for === 'agent' ? need(scope.credential, 'credential') : null;
  const { admission } = active;
  const sandboxed = admission.environmentKind === 'sandboxed';
  const egressOn = sandboxed && admission.networkMode === 'provider-only';
  // Through the egress proxy: the provider's API (when the key is on the host, the CLI talks to it; the setup's, its connection's base URL) and the allowed hosts.
  const withProviderApi = egressOn ? egressAllowList({ connectionBaseUrl: purpose.for === 'setup' ? purpose.connectionBaseUrl : null, provider: active.provider, admission }) : [];
  // The sandbox's own loopback (no network) has the usual port free, but for the egress relay's forwarded
  // ports (allowed endpoints on this machine's loopback); the host's (open network, or no sandbox) is shared with other runs.
  const ownLoopback = sandboxed && admission.networkMode !== 'open';
  const modelPort = ownLoopback ? chooseRelayPort(loopbackForwards(withProviderApi)) : 20_000 + randomInt(40_000);
  const secret = credential && admission.homeMode === 'isolated' ? credential.delivery.secrets[0] : undefined;
  const route = credential && secret ? remoteCredentialRoute(active.provider.definition, credential.connection, modelPort) : ({ kind: 'delivered' } as const);
  const model = route.kind === 'tunnel' && secret ? { route, secret } : null;
  if (!model && !egressOn) return null;
  const allow = hostEgressAllowList(active, { modelInTunnel: model !== null, withProviderApi });
  const forwards = loopbackForwards(allow);
  const egressPort = chooseRelayPort([...forwards, ...(model ? [{ host: '127.0.0.1', port: modelPort }] : [])]);

  const target = { ssh: connection, host: connection.name };
  const remote = remoteTunnelPaths(layout);
  await prepareOnHost(connection, layout, {
    folders: [...(model ? [remote.modelFolder] : []), ...(egressOn ? [path.posix.dirname(remote.egressSocket)] : [])],
    directories: [],
    realpaths: [],
    executable: '',
    path: '',
  });
  const relay = await installRelayOnHost(target, layout.consoleRoot);
  const tunnel = await openTunnelOnHost(scope, {
    model: model ? { upstreamBaseUrl: model.route.upstreamBaseUrl, secret: model.secret } : null,
    egressAllow: egressOn ? allow : null,
    onEgressDecision: need(scope.confinement, 'confinement').onEgressDecision,
    keepTryingFirst: false,
  });
  const runToken = tunnel.runToken;
  if (runToken) active.secrets.add(runToken);
  let sealedRunToken: string | null;
  try {
    // For the run's locator (spawn-and-follow-on-host.ts): a restarted console opens the tunnel again for the same agent.
    sealedRunToken = runToken ? context.options.connections.sealRunSecret(runToken) : null;
  } catch (error) {
    await tunnel.close();
    throw error;
  }
  return {
    sealedRunToken,
    delivery:
      model && credential && runToken
        ? tunnelledDelivery({ definition: active.provider.definition, connection: credential.connection, model: admission.model, agentBaseUrl: model.route.agentBaseUrl, runToken })
        : null,
    behindRelay: (command) => {
      const relayed = (socketPath: string, relayPort: number, relayForwards: EgressEndpoint[], inner: string[]) =>
        egressRelayCommand({ nodePath: relay.nodePath, relayScript: relay.relayScript, socketPath, relayPort, forwards: relayForwards, command: inner });
      const withEgress = egressOn ? relayed(remote.egressSocket, egressPort, forwards, command) : command;
      return tunnel.modelSocket ? relayed(tunnel.modelSocket, modelPort, [], withEgress) : withEgress;
    },
    env: egressOn ? egressProxyEnvironment(egressPort) : {},
    proxySocket: egressOn ? remote.egressSocket : null,
    binds: [...(model ? [remote.modelFolder] : []), relay.relayScript],
    programs: [relay.nodePath],
    close: () => tunnel.close(),
  };
}

/** `<task root>/model`, or a private folder under the temporary directory when that path is too long for a Unix socket. */
async function consoleSocketFolder(localRoot: string): Promise<string> {
  const preferred = path.join(localRoot, 'model');
  if (Buffer.byteLength(path.join(preferred, 'model.sock')) <= 100) return preferred;
  return fs.mkdtemp(path.join(os.tmpdir(), 'oc-model-'));
}

/** Where the run's tunnel binds its sockets on the host, in the run's remote task root: the model's folder and the egress proxy's socket. */
function remoteTunnelPaths(layout: RemoteRunLayout): { modelFolder: string; egressSocket: string } {
  return { modelFolder: `${layout.taskRoot.root}/model`, egressSocket: `${layout.taskRoot.root}/egress/proxy.sock` };
}

/**
 * The egress proxy's allow-list of a run on a host (provider-only). With the model in its tunnel, its
 * API is not the egress proxy's business: only the allowed hosts are (as a local run's base URL replaces
 * the CLI's own API). Else the provider's API (or the setup's connection base URL) too.
 */
function hostEgressAllowList(active: ActiveRun, input: { modelInTunnel: boolean; withProviderApi: EgressEndpoint[] }): EgressEndpoint[] {
  return input.modelInTunnel ? endpointsFromAllowedHosts(active.admission.allowedHosts) : input.withProviderApi;
}

/**
 * The run's proxies on this machine (the model proxy holding the key, the egress proxy in the
 * provider-only mode) and the kept ssh tunnel carrying their sockets to the run's remote task root:
 * what a launch opens, and what a restarted console opens again for a run going on there.
 */
async function openTunnelOnHost(
  scope: AttemptScope,
  opening: {
    model: { upstreamBaseUrl: string; secret: string; runToken?: string } | null;
    /** The egress proxy's allow-list (provider-only), else null: no egress proxy. */
    egressAllow: EgressEndpoint[] | null;
    onEgressDecision: ((decision: EgressDecisionNote) => void) | undefined;
    keepTryingFirst: boolean;
  },
): Promise<RunModelTunnel & { up(): boolean }> {
  const { context, active } = scope;
  const { connection, layout } = need(scope.host, 'host');
  /** Told down (its first opening failed and is tried again, or it dropped since) and not up again. */
  let down = false;
  const localRoot = need(scope.taskRoot, 'task root');
  const remote = remoteTunnelPaths(layout);
  const { onEgressDecision } = opening;
  const egress: EgressProxy | null = opening.egressAllow
    ? await startEgressProxy({ socketPath: await egressSocketPath(localRoot), allow: opening.egressAllow, onDecision: (decision) => onEgressDecision?.(decisionNote(decision)) })
    : null;
  try {
    const tunnel = await openRunModelTunnel({
      ssh: connection,
      host: connection.name,
      model: opening.model ? { ...opening.model, consoleSocketFolder: await consoleSocketFolder(localRoot.root), remoteSocketFolder: remote.modelFolder } : null,
      egress: egress?.socketPath ? { localSocket: egress.socketPath, remoteSocket: remote.egressSocket } : null,
      onTunnelChange: (up, detail) => {
        down = !up;
        context.note(active.runId, active.attemptId ?? null, up ? 'host_tunnel_up' : 'host_tunnel_down', { host: connection.name, detail });
      },
      keepTryingFirst: opening.keepTryingFirst,
    });
    return {
      ...tunnel,
      up: () => !down,
      close: async () => {
        await tunnel.close();
        await egress?.close();
      },
    };
  } catch (error) {
    await egress?.close();
    throw error;
  }
}

/**
 * A run on a host that a restarted console takes up again (attempt-steps.ts): its tunnel died with the
 * console that opened it, so it is opened again for the same run before its spool is followed. The
 * model proxy with the run's token (sealed in its locator: the agent there holds it as its key) and the
 * connection's key and base URL as they are now; the egress proxy with the run's allow-list, its
 * decisions on the taken-up attempt's timeline; the kept ssh tunnel to the same sockets there (the dead
 * ones are replaced), where the relays in the run's sandbox connect anew for each connection. A host
 * unreachable now is tried again until it answers. Never throws: what cannot be opened again (the
 * connection deleted, its key or the token unreadable now) stays closed, so the agent's requests fail
 * there and nothing goes through unrecorded, and the run's timeline and a notice say why and what to do.
 * Returns what closes it, when the attempt ends.
 */
export async function reopenTunnelOnHost(scope: AttemptScope, sealedRunToken: string | null): Promise<() => Promise<void>> {
  const close = await openAgain(scope, sealedRunToken);
  const { context, active } = scope;
  return async () => {
    await close();
    // The attempt ended here (not the console closing, whose next start tries again): its notice has nothing left to ask.
    const open = context.closing ? undefined : context.options.notices.latestForKey(tunnelNoticeKey(active.runId));
    if (open?.status === 'open') context.options.notices.resolve(open.id, 'The run ended.');
  };
}

const tunnelNoticeKey = (runId: string) => `host-tunnel:${runId}`;

async function openAgain(scope: AttemptScope, sealedRunToken: string | null): Promise<() => Promise<void>> {
  const { context, active } = scope;
  const { admission } = active;
  const attempt = need(scope.attempt, 'attempt');
  const egressOn = admission.environmentKind === 'sandboxed' && admission.networkMode === 'provider-only';
  const nothing = () => Promise.resolve();
  if (!sealedRunToken && !egressOn) return nothing;
  let model: { upstreamBaseUrl: string; secret: string; runToken: string } | null = null;
  if (sealedRunToken) {
    try {
      model = await modelAgain(scope, sealedRunToken);
    } catch (error) {
      tunnelNotReopened(scope, egressOn ? 'its model (its network goes on through the console)' : 'its model', error);
    }
  }
  if (!model && !egressOn) return nothing;
  try {
    const withProviderApi = egressOn ? egressAllowList({ connectionBaseUrl: null, provider: active.provider, admission }) : [];
    const tunnel = await openTunnelOnHost(scope, {
      model,
      // The list the run started with: the model's API out of it when the model was in its tunnel, whether or not it is again.
      egressAllow: egressOn ? hostEgressAllowList(active, { modelInTunnel: sealedRunToken !== null, withProviderApi }) : null,
      onEgressDecision: egressDecisionRecorder(context, active, attempt),
      keepTryingFirst: true,
    });
    const carried = [model ? 'its model' : null, egressOn ? 'its network' : null].filter(Boolean).join(' and ');
    context.note(active.runId, attempt.id, 'host_tunnel_reopened', {
      host: need(scope.host, 'host').connection.name,
      message: tunnel.up()
        ? `The console opened the run's tunnel again: ${carried} through ssh as before the restart.`
        : `The console set the run's tunnel up again (${carried}), but the host does not answer yet: it is tried again until it does.`,
    });
    return () => tunnel.close();
  } catch (error) {
    tunnelNotReopened(scope, model && egressOn ? 'its model and its network' : model ? 'its model' : 'its network', error);
    return nothing;
  }
}

/** The run's model as its first launch had it: its token opened from the ledger, the connection's key and base URL now. Throws what the operator must fix. */
async function modelAgain(scope: AttemptScope, sealedRunToken: string): Promise<{ upstreamBaseUrl: string; secret: string; runToken: string }> {
  const { context, active } = scope;
  const runToken = context.options.connections.openRunSecret(sealedRunToken);
  active.secrets.add(runToken);
  const credential = await credentialFor(active, context.options.connections);
  const secret = credential?.delivery.secrets[0];
  const route = credential ? remoteCredentialRoute(active.provider.definition, credential.connection, 0) : null;
  if (!credential || !secret || route?.kind !== 'tunnel') {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'ai_connection_required',
      message: `${active.admission.agentName}'s AI connection no longer has a base URL and a key to put behind the run's tunnel.`,
      actionUrl: actionRoute({ kind: 'agent-ai-connection', agentId: active.agentId }),
    });
  }
  return { upstreamBaseUrl: route.upstreamBaseUrl, secret, runToken };
}

/** What of the run's tunnel could not be opened again, and why: on its timeline, and a notice saying what to do. */
function tunnelNotReopened(scope: AttemptScope, what: string, error: unknown): void {
  const { context, active } = scope;
  const { runId } = active;
  const hostName = need(scope.host, 'host').connection.name;
  const known = error instanceof OperatorError;
  if (known) context.log.warn('a run’s tunnel could not be opened again', { runId, code: error.code, reason: error.reason });
  else context.log.error('a run’s tunnel could not be opened again', { runId, error: describeError(error) });
  const why = known ? error.message : `Something went wrong in the console. ${detailsInLog(context.log)}`;
  const message = `“${scope.task?.title ?? 'The task'}” goes on on ${hostName} after the console restarted, without ${what}: the console could not open it again for the run. ${why} Until the run ends, what the agent asks of it there fails (nothing goes through without the console). Let the run finish without it, or stop it and run the task again once that is fixed.`;
  context.note(runId, scope.attempt?.id ?? null, 'host_tunnel_not_reopened', { host: hostName, message });
  context.options.notices.raise({
    kind: 'host_tunnel_not_reopened',
    severity: 'warning',
    title: 'Run taken up without its tunnel',
    message,
    actionUrl: (known ? error.actionUrl : null) ?? actionRoute({ kind: 'run', runId }),
    actionLabel: known && error.actionUrl ? 'Fix it' : 'Open the run',
    code: known ? error.code : 'internal',
    reason: known ? (error.reason ?? null) : null,
    runId,
    agentId: active.agentId,
    taskId: scope.task?.id ?? null,
    dedupeKey: tunnelNoticeKey(runId),
  });
}
