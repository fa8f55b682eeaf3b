import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findEgressRelayScript } from '../../sandbox/egress-relay';
import { runRemoteScript, type SshHost } from '../remote-script';
import { sshError, sshFailure } from '../ssh-failure';
import { newModelTunnelToken, startModelProxy, type ModelProxy, type ModelProxyNote } from './model-proxy';
import { keepModelTunnel, type KeptModelTunnel, type TunnelSocket } from './model-tunnel';

/**
 * One remote run's tunnel, as the run's steps use it: the console's model proxy for the run (holding
 * the key, on a socket in the run's local task root) when its connection has a base URL, the run's
 * egress proxy in the `provider-only` network mode (started by the run's steps, which record its
 * decisions), and the kept ssh tunnel carrying both to sockets in the run's remote task root, on one
 * connection. The run's token is what the agent gets as its key. And what the run's sandbox on the
 * host needs to serve the sockets on its loopback: the console's egress relay there
 * (content-addressed in the console's folder on the host, as the supervisor is) and the host's node.
 */

export interface RunModelTunnelInput extends SshHost {
  /** The run's model through the tunnel, or null when its key is delivered to the host (no base URL). */
  model: {
    /** The connection's base URL (its own, or the gateway's): where the proxy sends the requests. */
    upstreamBaseUrl: string;
    /** The connection's key: it stays in this process. */
    secret: string;
    /** The run's token, when a restarted console opens the tunnel of a run again (its agent holds it); else a new one. */
    runToken?: string;
    /** A folder of the run's local task root for the proxy's socket (hidden from every sandbox with the data directory). */
    consoleSocketFolder: string;
    /** The folder in the run's remote task root where ssh binds the host's end (made beforehand, 0700). */
    remoteSocketFolder: string;
    onRequest?: (note: ModelProxyNote) => void;
  } | null;
  /** The run's egress proxy's socket here, and where ssh binds its end on the host (its folder made beforehand, 0700); null but in `provider-only`. */
  egress: TunnelSocket | null;
  onTunnelChange?: (up: boolean, detail: string) => void;
  /**
   * A run going on already (taken up again by a restarted console): a first opening that fails is
   * told (`onTunnelChange`) and tried again as a dropped tunnel is, rather than thrown.
   */
  keepTryingFirst?: boolean;
}

export interface RunModelTunnel {
  /** What the agent sends as its key (null without the model in the tunnel). */
  runToken: string | null;
  /** The host's end of the model proxy's socket, for the relay in the run's sandbox. */
  modelSocket: string | null;
  close(): Promise<void>;
}

export async function openRunModelTunnel(input: RunModelTunnelInput): Promise<RunModelTunnel> {
  const runToken = input.model ? (input.model.runToken ?? newModelTunnelToken()) : null;
  const sockets: TunnelSocket[] = input.egress ? [input.egress] : [];
  let proxy: ModelProxy | null = null;
  let modelSocket: string | null = null;
  if (input.model && runToken) {
    proxy = await startModelProxy({
      upstreamBaseUrl: input.model.upstreamBaseUrl,
      secret: input.model.secret,
      runToken,
      socketPath: path.join(input.model.consoleSocketFolder, 'model.sock'),
      ...(input.model.onRequest ? { onRequest: input.model.onRequest } : {}),
    });
    modelSocket = path.posix.join(input.model.remoteSocketFolder, 'model.sock');
    sockets.unshift({ localSocket: proxy.socketPath, remoteSocket: modelSocket });
  }
  let tunnel: KeptModelTunnel;
  try {
    tunnel = await keepModelTunnel({ ssh: input.ssh, host: input.host, sockets }, { ...(input.onTunnelChange ? { onChange: input.onTunnelChange } : {}), keepTryingFirst: input.keepTryingFirst ?? false });
  } catch (error) {
    await proxy?.close();
    throw error;
  }
  return {
    runToken,
    modelSocket,
    close: async () => {
      await tunnel.close();
      await proxy?.close();
    },
  };
}

let relay: { text: Buffer; digest: string } | null = null;
function relayScript(): { text: Buffer; digest: string } {
  if (!relay) {
    const text = readFileSync(findEgressRelayScript());
    relay = { text, digest: createHash('sha256').update(text).digest('hex').slice(0, 16) };
  }
  return relay;
}

const installRelayScript = `set -u
umask 077
dest=$1
node=$(command -v node 2>/dev/null) || { echo "operator-console-relay: no node on the PATH $PATH" >&2; exit 3; }
if [ ! -f "$dest" ] || [ -L "$dest" ]; then
  mkdir -p "$(dirname "$dest")" && rm -f "$dest" && cat > "$dest.tmp.$$" && mv "$dest.tmp.$$" "$dest" || exit 4
else
  cat > /dev/null
fi
printf 'node %s\\n' "$node"
`;

/**
 * The console's egress relay on the host, in its folder there (named by its content, so a console of
 * another version never runs this one's), and the host's node that runs it.
 */
export async function installRelayOnHost(target: SshHost, consoleFolder: string): Promise<{ relayScript: string; nodePath: string }> {
  const { text, digest } = relayScript();
  const dest = path.posix.join(consoleFolder, `egress-relay-${digest}.mjs`);
  const result = await runRemoteScript(target, { script: installRelayScript, args: [dest], stdin: text, timeoutMs: 60_000, maxOutputBytes: 4096 });
  if (result.exitCode === 3) {
    throw sshError('ssh_error', `${target.host} has no node on the PATH a non-interactive ssh session gets, and the run's tunnel (its model, or its provider-only network) needs it in the sandbox there. Install Node.js on the host (the agent CLIs need it too), test the host, then run the task again.`);
  }
  if (result.exitCode !== 0 || result.timedOut) throw sshFailure(target.host, result, { during: 'connect', timeoutMs: 60_000 });
  const nodePath = /^node (\/[^\n]+)$/m.exec(result.stdout.toString('utf8'))?.[1];
  if (!nodePath) throw sshError('probe_garbled', `${target.host} did not say where its node is. Check what its login shell prints, then run the task again.`);
  return { relayScript: dest, nodePath };
}
