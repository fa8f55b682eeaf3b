import { randomInt } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { remoteCredentialRoute, tunnelledDelivery } from '../../hosts/model-tunnel/remote-credential-route';
import { installRelayOnHost, openRunModelTunnel } from '../../hosts/model-tunnel/run-model-tunnel';
import { prepareOnHost } from '../../hosts/remote-run/remote-supervisor';
import type { CredentialDelivery } from '../../providers/credential-delivery';
import { endpointsFromAllowedHosts, loopbackForwards, type EgressEndpoint } from '../../sandbox/egress-allow-list';
import { egressSocketPath, startEgressProxy, type EgressProxy } from '../../sandbox/egress-proxy';
import { chooseRelayPort, egressProxyEnvironment, egressRelayCommand } from '../../sandbox/egress-relay';
import { decisionNote, egressAllowList } from './attempt-confinement';
import { need, type AttemptScope } from './attempt-scope';

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
  // With the model in its tunnel, its API is not the egress proxy's business: only the allowed hosts are (as a local run's base URL replaces the CLI's own API).
  const allow: EgressEndpoint[] = model ? endpointsFromAllowedHosts(admission.allowedHosts) : withProviderApi;
  const forwards = loopbackForwards(allow);
  const egressPort = chooseRelayPort([...forwards, ...(model ? [{ host: '127.0.0.1', port: modelPort }] : [])]);

  const target = { ssh: connection, host: connection.name };
  const remoteModelFolder = `${layout.taskRoot.root}/model`;
  const remoteEgressSocket = `${layout.taskRoot.root}/egress/proxy.sock`;
  await prepareOnHost(connection, layout, {
    folders: [...(model ? [remoteModelFolder] : []), ...(egressOn ? [path.posix.dirname(remoteEgressSocket)] : [])],
    directories: [],
    realpaths: [],
    executable: '',
    path: '',
  });
  const relay = await installRelayOnHost(target, layout.consoleRoot);
  const localRoot = need(scope.taskRoot, 'task root');
  let egress: EgressProxy | null = null;
  if (egressOn) {
    const { onEgressDecision } = need(scope.confinement, 'confinement');
    egress = await startEgressProxy({ socketPath: await egressSocketPath(localRoot), allow, onDecision: (decision) => onEgressDecision?.(decisionNote(decision)) });
  }
  let tunnel: Awaited<ReturnType<typeof openRunModelTunnel>>;
  try {
    tunnel = await openRunModelTunnel({
      ...target,
      model: model ? { upstreamBaseUrl: model.route.upstreamBaseUrl, secret: model.secret, consoleSocketFolder: await consoleSocketFolder(localRoot.root), remoteSocketFolder: remoteModelFolder } : null,
      egress: egress?.socketPath ? { localSocket: egress.socketPath, remoteSocket: remoteEgressSocket } : null,
      onTunnelChange: (up, detail) => context.note(active.runId, active.attemptId ?? null, up ? 'host_tunnel_up' : 'host_tunnel_down', { host: connection.name, detail }),
    });
  } catch (error) {
    await egress?.close();
    throw error;
  }
  const runToken = tunnel.runToken;
  if (runToken) active.secrets.add(runToken);
  return {
    delivery:
      model && credential && runToken
        ? tunnelledDelivery({ definition: active.provider.definition, connection: credential.connection, model: admission.model, agentBaseUrl: model.route.agentBaseUrl, runToken })
        : null,
    behindRelay: (command) => {
      const relayed = (socketPath: string, relayPort: number, relayForwards: EgressEndpoint[], inner: string[]) =>
        egressRelayCommand({ nodePath: relay.nodePath, relayScript: relay.relayScript, socketPath, relayPort, forwards: relayForwards, command: inner });
      const withEgress = egressOn ? relayed(remoteEgressSocket, egressPort, forwards, command) : command;
      return tunnel.modelSocket ? relayed(tunnel.modelSocket, modelPort, [], withEgress) : withEgress;
    },
    env: egressOn ? egressProxyEnvironment(egressPort) : {},
    proxySocket: egressOn ? remoteEgressSocket : null,
    binds: [...(model ? [remoteModelFolder] : []), relay.relayScript],
    programs: [relay.nodePath],
    close: async () => {
      await tunnel.close();
      await egress?.close();
    },
  };
}

/** `<task root>/model`, or a private folder under the temporary directory when that path is too long for a Unix socket. */
async function consoleSocketFolder(localRoot: string): Promise<string> {
  const preferred = path.join(localRoot, 'model');
  if (Buffer.byteLength(path.join(preferred, 'model.sock')) <= 100) return preferred;
  return fs.mkdtemp(path.join(os.tmpdir(), 'oc-model-'));
}
