import { spawn } from 'node:child_process';
import { fixedScriptCommand, runRemoteScript, type SshHost } from '../remote-script';
import { withForwarding } from '../ssh-command';
import { sshError, sshFailure, sshWords } from '../ssh-failure';

/**
 * The SSH leg of a remote run's traffic (issue 28): `ssh -R <remote socket>:<console socket>` for
 * each of the run's sockets, on one connection, so a Unix socket in the run's remote task root leads
 * to a proxy of the console's: the model proxy (model-proxy.ts), so the AI key stays on the
 * operator's machine, and in the `provider-only` network mode the run's egress proxy
 * (sandbox/egress-proxy.ts), so every other connection the run makes leaves from the operator's
 * machine, decided and recorded there. This is the one place the console asks ssh to forward
 * anything (ssh-command.ts says so): exactly these sockets, with
 *
 * - `ExitOnForwardFailure=yes`: a host that refuses a forwarding (AllowStreamLocalForwarding no, a
 *   socket path it cannot bind) ends the tunnel at once instead of leaving a run without its model
 *   or its network;
 * - `StreamLocalBindUnlink=yes`: a socket an earlier tunnel of this run left at a path is replaced;
 * - keepalives (`ServerAliveInterval`), so a dead connection ends the tunnel and the run's supervisor
 *   hears of it rather than a request hanging;
 * - everything else as ssh-command.ts runs ssh: BatchMode, the host key checked against the operator's
 *   and the console's known_hosts, no connection sharing, no agent or X11 forwarding, no LocalCommand.
 *   Only ClearAllForwardings is not given, since ssh would clear this forwarding too.
 *
 * The session runs the console's fixed script, which waits until every socket is there, says
 * `operator-console-tunnel ready`, and then reads its stdin until the console closes it: closing ssh's
 * stdin (or the console going away, which closes it too) ends the tunnel, and the script removes the
 * sockets on its way out.
 */

/** One socket a tunnel carries. */
export interface TunnelSocket {
  /** The console's end: a proxy's socket. */
  localSocket: string;
  /** The host's end, in the run's remote task root; absolute (sshd binds it as the remote user, mode 0600). */
  remoteSocket: string;
}

export interface ModelTunnelInput extends SshHost {
  /** At least one. */
  sockets: TunnelSocket[];
  /** How long the tunnel may take to come up. */
  readyTimeoutMs?: number;
}

export interface ModelTunnel {
  /** The host's ends, in the order of `sockets`. */
  remoteSockets: string[];
  /** Settles when ssh ends (closed by the console, or the connection lost). */
  readonly ended: Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>;
  close(): Promise<void>;
}

const readyLine = 'operator-console-tunnel ready';
/**
 * Before the forwarding: a socket an earlier tunnel of this run left (its connection died before it
 * could remove it) would stop sshd binding the path again (sshd's own StreamLocalBindUnlink is off by
 * default), so it goes; anything there that is not a socket is left alone and the forwarding fails.
 */
const removeStaleSocketScript = `set -u
for socket in "$@"; do
  if [ -S "$socket" ] && [ ! -L "$socket" ]; then rm -f "$socket"; fi
done
`;
/**
 * Waits for the sockets, then holds the tunnel open. On a root account the run's sandbox is an
 * unprivileged user's (sandbox-user.ts), who was handed the model socket's folder: a socket sshd binds
 * there (as root, 0600) is given to the folder's owner, so one bound anew (the connection lost, a
 * restarted console taking the run up again) is reachable in the sandbox as the first was. `-h`: a link
 * the sandbox's user put in its place is changed itself, never what it points to.
 */
const tunnelScript = `set -u
for socket in "$@"; do
  i=0
  while [ ! -S "$socket" ] && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  [ -S "$socket" ] || { echo "operator-console-tunnel: the socket $socket did not appear" >&2; exit 3; }
  if [ "$(id -u)" = 0 ]; then chown -h "$(stat -c %u:%g "$(dirname "$socket")")" "$socket" || exit 4; fi
done
trap 'rm -f "$@"' EXIT HUP TERM
echo '${readyLine}'
cat >/dev/null
`;

/** A Unix socket path ssh's -R takes whole: absolute, no colon (its separator), short enough to bind. */
function checkSocketPath(kind: string, socket: string): void {
  if (!socket.startsWith('/') || socket.includes(':') || /[\s\0]/.test(socket) || Buffer.byteLength(socket) > 100) {
    throw new Error(`The ${kind} socket of a run's tunnel must be an absolute path of at most 100 bytes without a colon or white space: ${JSON.stringify(socket)}`);
  }
}

export async function openModelTunnel(input: ModelTunnelInput): Promise<ModelTunnel> {
  if (input.sockets.length === 0) throw new Error('A tunnel carries at least one socket.');
  for (const socket of input.sockets) {
    checkSocketPath('console', socket.localSocket);
    checkSocketPath('host', socket.remoteSocket);
  }
  const remoteSockets = input.sockets.map((socket) => socket.remoteSocket);
  const readyTimeoutMs = input.readyTimeoutMs ?? 30_000;
  const stale = await runRemoteScript(input, { script: removeStaleSocketScript, args: remoteSockets, timeoutMs: readyTimeoutMs, maxOutputBytes: 4096 });
  if (stale.exitCode !== 0 || stale.timedOut) throw sshFailure(input.host, stale, { during: 'connect', timeoutMs: readyTimeoutMs });
  const child = spawn(
    input.ssh.settings.program,
    [
      ...withForwarding(input.ssh.options),
      '-o',
      'ExitOnForwardFailure=yes',
      '-o',
      'StreamLocalBindUnlink=yes',
      '-o',
      'ServerAliveInterval=15',
      '-o',
      'ServerAliveCountMax=3',
      ...input.sockets.flatMap((socket) => ['-R', `${socket.remoteSocket}:${socket.localSocket}`]),
      '--',
      input.host,
      fixedScriptCommand(tunnelScript, remoteSockets),
    ],
    { env: input.ssh.settings.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 16 * 1024) stderr += chunk;
  });
  child.stdin.on('error', () => undefined);
  const ended = new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (exitCode, signal) => resolve({ exitCode, signal }));
    child.once('error', () => resolve({ exitCode: null, signal: null }));
  });
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };

  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      killGroup();
      reject(sshError('tunnel_failed', `The run's tunnel to ${input.host} did not come up in ${Math.round(readyTimeoutMs / 1000)} s (${sshWords(stderr)}). Check that \`ssh ${input.host} true\` returns at once, then start the run again.`));
    }, readyTimeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes(`${readyLine}\n`)) {
        clearTimeout(timer);
        resolve();
      } else if (stdout.length > 4096) {
        clearTimeout(timer);
        killGroup();
        reject(sshError('tunnel_failed', `${input.host} answered the run's tunnel with something else (${sshWords(stdout)}). Check what its login shell prints, then start the run again.`));
      }
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error.code === 'ENOENT' ? sshError('ssh_not_installed', `The console could not run ${input.ssh.settings.program}: install OpenSSH's client, then start the run again.`) : error);
    });
    void ended.then(({ exitCode, signal }) => {
      clearTimeout(timer);
      if (/forwarding failed|remote port forwarding failed|cannot listen|Could not request/i.test(stderr)) {
        reject(
          sshError(
            'tunnel_failed',
            `${input.host} refused to carry the run's traffic back to the console (${sshWords(stderr)}). Allow forwarding for your user there (sshd_config: AllowStreamLocalForwarding yes, and AllowTcpForwarding yes, without which sshd refuses every remote forward), and check the run's task root on the host is there, then start the run again.`,
          ),
        );
      } else {
        reject(sshFailure(input.host, { exitCode, signal, stdout: Buffer.alloc(0), stderr, truncated: false, timedOut: false }, { during: 'connect' }));
      }
    });
  });

  return {
    remoteSockets,
    ended,
    close: async () => {
      child.stdin.end();
      const timer = setTimeout(killGroup, 3_000);
      await ended;
      clearTimeout(timer);
      killGroup();
    },
  };
}

export interface KeptModelTunnel {
  remoteSockets: string[];
  close(): Promise<void>;
}

/**
 * A run's tunnel for as long as the run goes on: a run on a host outlives a dropped connection, so its
 * model and network traffic must too. When ssh ends without the console closing it, the tunnel is opened again,
 * after a short and then longer wait, until it is up or the run closes it; `onChange` hears each
 * change (for the run's timeline). The first opening is awaited and throws: a run does not start
 * without its model or its network. But for a run that goes on already (`keepTryingFirst`: a
 * restarted console took it up again, its host perhaps unreachable now), which the tunnel's absence
 * does not stop: then a first failure is told and tried again as a dropped tunnel is.
 */
export async function keepModelTunnel(
  input: ModelTunnelInput,
  options: { onChange?: (up: boolean, detail: string) => void; retryDelaysMs?: readonly number[]; keepTryingFirst?: boolean } = {},
): Promise<KeptModelTunnel> {
  const delays = options.retryDelaysMs ?? [500, 1_000, 2_000, 5_000, 10_000, 30_000];
  let closed = false;
  let current: ModelTunnel | null = null;
  let firstFailure: unknown = null;
  try {
    current = await openModelTunnel(input);
  } catch (error) {
    if (!options.keepTryingFirst) throw error;
    firstFailure = error;
  }
  /** Ends the wait before the next try at once (when the run closes the tunnel). */
  let wake: (() => void) | null = null;
  let reopening: Promise<void> = Promise.resolve();
  const tell = (up: boolean, detail: string) => {
    try {
      options.onChange?.(up, detail);
    } catch {
      // An observer's failure changes nothing here.
    }
  };
  const watch = (tunnel: ModelTunnel) => {
    void tunnel.ended.then(() => {
      if (closed || tunnel !== current) return;
      tell(false, 'the ssh connection carrying the run’s model and network traffic ended');
      reopening = reopen(0);
    });
  };
  const reopen = async (tries: number): Promise<void> => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delays[Math.min(tries, delays.length - 1)]);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    if (closed) return;
    try {
      const tunnel = await openModelTunnel(input);
      if (closed) return void (await tunnel.close());
      current = tunnel;
      tell(true, 'the run’s model and network traffic go through ssh again');
      watch(tunnel);
    } catch (error) {
      if (closed) return;
      tell(false, error instanceof Error ? error.message : String(error));
      await reopen(tries + 1);
    }
  };
  if (current) watch(current);
  else {
    tell(false, firstFailure instanceof Error ? firstFailure.message : String(firstFailure));
    reopening = reopen(0);
  }
  return {
    remoteSockets: input.sockets.map((socket) => socket.remoteSocket),
    close: async () => {
      closed = true;
      wake?.();
      await reopening.catch(() => undefined);
      await current?.close();
    },
  };
}
