import { randomInt } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { remoteCredentialRoute, tunnelledDelivery } from '../../hosts/model-tunnel/remote-credential-route';
import { installRelayOnHost, openRunModelTunnel } from '../../hosts/model-tunnel/run-model-tunnel';
import { prepareOnHost } from '../../hosts/remote-run/remote-supervisor';
import type { CredentialDelivery } from '../../providers/credential-delivery';
import { chooseRelayPort } from '../../sandbox/egress-relay';
import { need, type AttemptScope } from './attempt-scope';

/**
 * A run on an SSH host whose AI connection has a base URL keeps the key on this machine (issue 28;
 * hosts/model-tunnel/): the console's model proxy for the run, a kept ssh tunnel to a socket in the
 * run's remote task root, and in the run's sandbox there the console's egress relay, started first,
 * serving that socket on the sandbox's loopback. The agent gets the relay's base URL and the run's
 * token (redacted from its output like a key); null where the connection has no base URL (its key is
 * delivered to the host, as the environment's SSH host setting says).
 */
export interface ModelTunnelOnHost {
  delivery: CredentialDelivery;
  /** The agent's command, behind the relay. */
  behindRelay(command: string[]): string[];
  /** Bound read-only into the run's sandbox on the host: the tunnel's socket folder, the relay script. */
  binds: string[];
  /** Programs the sandbox must show (the host's node), for their installation folders. */
  programs: string[];
  close(): Promise<void>;
}

export async function modelTunnelOnHost(scope: AttemptScope): Promise<ModelTunnelOnHost | null> {
  const { context, active } = scope;
  const { connection, layout } = need(scope.host, 'host');
  const credential = need(scope.credential, 'credential');
  if (!credential || active.admission.homeMode !== 'isolated') return null;
  // The sandbox's own loopback (no network) has the usual port free; the host's (open network, or no sandbox) is shared with other runs.
  const ownLoopback = active.admission.environmentKind === 'sandboxed' && active.admission.networkMode !== 'open';
  const relayPort = ownLoopback ? chooseRelayPort([]) : 20_000 + randomInt(40_000);
  const route = remoteCredentialRoute(active.provider.definition, credential.connection, relayPort);
  if (route.kind !== 'tunnel') return null;
  const target = { ssh: connection, host: connection.name };
  const remoteSocketFolder = `${layout.taskRoot.root}/model`;
  await prepareOnHost(connection, layout, { folders: [remoteSocketFolder], directories: [], realpaths: [], executable: '', path: '' });
  const relay = await installRelayOnHost(target, layout.consoleRoot);
  const secret = credential.delivery.secrets[0];
  if (!secret) return null;
  const tunnel = await openRunModelTunnel({
    ...target,
    upstreamBaseUrl: route.upstreamBaseUrl,
    secret,
    consoleSocketFolder: await consoleSocketFolder(need(scope.taskRoot, 'task root').root),
    remoteSocketFolder,
    onTunnelChange: (up, detail) => context.note(active.runId, active.attemptId ?? null, up ? 'model_tunnel_up' : 'model_tunnel_down', { host: connection.name, detail }),
  });
  active.secrets.add(tunnel.runToken);
  return {
    delivery: tunnelledDelivery({ definition: active.provider.definition, connection: credential.connection, model: active.admission.model, agentBaseUrl: route.agentBaseUrl, runToken: tunnel.runToken }),
    behindRelay: (command) => [relay.nodePath, relay.relayScript, tunnel.remoteSocket, String(relayPort), '--', ...command],
    binds: [remoteSocketFolder, relay.relayScript],
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
