import path from 'node:path';
import { OperatorError } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import { deliverFilesOnHost, removeFilesOnHost } from '../../hosts/host-credential-files';
import { remoteStoreFor } from '../../hosts/remote-git/send-base-revision';
import { prepareOnHost, remoteFileSystemFacts } from '../../hosts/remote-run/remote-supervisor';
import { bwrapCommand, buildBwrapArgs, readOnlyRebindsFor, setprivPath } from '../../sandbox/bwrap';
import { nobody } from '../../sandbox/sandbox-user';
import type { Owner } from '../../platform/safe-path';
import { buildConfinedEnvironment } from '../../sandbox/confined-environment';
import type { CredentialDelivery } from '../../providers/credential-delivery';
import { sandboxInstallationDirs } from './attempt-confinement';
import { need, type AttemptScope } from './attempt-scope';
import { takeStop } from './abortable';
import { modelTunnelOnHost, type ModelTunnelOnHost } from './model-tunnel-on-host';

/** What a run on a host gets of the operator's environment: the host's own PATH (Test host read it there), and the terminal and language. */
const passedToHost = ['LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'COLORTERM'];

/**
 * Step 5, for a run on an SSH host: the agent's launch confined as a local run's is, built by the
 * same code (`confinedCommandOnHost`, which confines the project's setup command there too). The
 * confined environment comes from the same allow-list (the host's PATH in place of this machine's),
 * with HOME, TMPDIR and the CLI's home in the remote task root; in a sandboxed environment the command is bubblewrap's argv from `buildBwrapArgs` itself (the same mount table,
 * namespaces, capability drop and seccomp filter, written there for the host's architecture), with the
 * file system facts the argv depends on asked of the host, since they are the host's: its home and the
 * console's folder there hidden, only the run's writable roots bound back. The network mode is the
 * environment's: `none` unshares the network, `open` keeps the host's, `provider-only` unshares it and
 * leads the agent's proxy variables through the run's tunnel to its egress proxy on this machine.
 * Where the AI connection has a base URL, the key stays here: the agent runs behind the relay to the
 * run's model tunnel, with the relay's base URL and the run's token (model-tunnel-on-host.ts).
 */
export async function confineOnHost(scope: AttemptScope, signal: AbortSignal): Promise<void> {
  const tunnel = await modelTunnelOnHost(scope);
  try {
    await confineWith(scope, tunnel);
  } catch (error) {
    await tunnel?.close();
    throw error;
  }
  takeStop(signal);
}

/** What a process of the attempt runs on the host (the agent, or the project's setup command), before it is confined. */
export interface HostCommandInput {
  executable: string;
  args: string[];
  /** The launch's own variables (the CLI's profile); none for the setup command. */
  profileEnv: Record<string, string>;
  /** The connection's variables (never its files: the caller delivers those); null for the setup command, which has no use for the key. */
  delivery: Pick<CredentialDelivery, 'secretEnv' | 'plainEnv'> | null;
  /** The run's tunnel, whose relays the command runs behind (the setup command's carries the egress alone); null when the run needs none. */
  tunnel: ModelTunnelOnHost | null;
}

/**
 * A process of the attempt confined on the host, written once for the agent and the setup command
 * (as attempt-confinement.ts is locally): its environment from the allow-list (the host's PATH, HOME
 * and TMPDIR in the remote task root, the CLI's home in its cache), its program looked for on the host,
 * and in a sandboxed environment bubblewrap's argv from `buildBwrapArgs` with the host's file system
 * facts, under the environment's network mode (`none` unshares the network, `open` keeps the host's).
 * On a root account the sandbox runs as the sandbox's user (`user`), as it does when the console here
 * runs as root (sandbox/sandbox-user.ts): the host hands it the run's writable roots first, and lets it
 * read the console's files the run needs there; bring-work-back's pack takes the view back.
 */
export async function confinedCommandOnHost(
  scope: AttemptScope,
  input: HostCommandInput,
): Promise<{ argv: string[]; env: Record<string, string>; providerHome: string | null; user: Owner | null }> {
  const { active } = scope;
  const { connection, layout } = need(scope.host, 'host');
  const confinement = need(scope.confinement, 'confinement');
  const { admission } = active;
  const { tunnel } = input;
  const sandboxed = admission.environmentKind === 'sandboxed';
  const { taskRoot } = layout;
  const definition = active.provider.definition;
  const providerHome = definition.home ? `${taskRoot.cache}/${definition.home.folder}` : null;
  const operatorEnv: Record<string, string | undefined> = { PATH: connection.report.path };
  for (const name of passedToHost) if (confinement.operatorEnv[name] !== undefined) operatorEnv[name] = confinement.operatorEnv[name];
  const profileEnv = { ...input.profileEnv };
  if (definition.home) delete profileEnv[definition.home.variable];
  const { env } = buildConfinedEnvironment({
    operatorEnv,
    taskRoot,
    providerHomeVar: definition.home && providerHome ? { name: definition.home.variable, value: providerHome } : null,
    profileEnv,
    layerVariables: confinement.layerVariables ?? {},
    deliveredSecrets: input.delivery?.secretEnv ?? {},
    extra: input.delivery?.plainEnv ?? {},
  });
  Object.assign(env, tunnel?.env ?? {});
  const scratch = ['/tmp', '/var/tmp', '/run'];
  const asked = [layout.home, layout.consoleRoot, '/etc/resolv.conf'];
  const writableRoots = [taskRoot.view, taskRoot.tmp, taskRoot.cache, taskRoot.home];
  // The project's objects on the host, which the run's repository borrows (hosts/remote-git/), read-only as a local run's borrowed objects are.
  const storeObjects = scope.projectId ? [`${remoteStoreFor(layout.consoleRoot, scope.projectId)}/objects`] : [];
  // What the tunnel binds into the sandbox: its socket folder in the run's folder is the run's, its relay in the console's folder the console's.
  const tunnelBinds = tunnel?.binds ?? [];
  const ofTheRun = (bound: string) => bound.startsWith(`${taskRoot.root}/`);
  const facts = await prepareOnHost(connection, layout, {
    folders: providerHome ? [providerHome] : [],
    directories: scratch,
    realpaths: asked,
    executable: input.executable,
    path: env.PATH ?? connection.report.path,
    interpreters: ['node'],
    // On a root account (the host decides), the sandbox runs as the sandbox's user, as it does when the console here runs as root.
    // The egress proxy's socket folder (provider-only) is the run's too: that user connects to it.
    ...(sandboxed
      ? {
          sandboxUser: nobody,
          handOver: [...writableRoots, ...tunnelBinds.filter(ofTheRun), ...(tunnel?.proxySocket ? [path.posix.dirname(tunnel.proxySocket)] : [])],
          shareForReading: [...storeObjects, ...tunnelBinds.filter((bound) => !ofTheRun(bound))],
        }
      : {}),
  });
  if (!facts.executable) {
    throw new OperatorError({
      code: 'spawn_failed',
      reason: 'cli_not_found',
      message: `${input.executable} was not found on ${connection.name} (on the PATH ${env.PATH ?? ''}). Install it there, or set the agent's program to where it is on the host, then run the task again.`,
      actionUrl: actionRoute({ kind: 'agent', agentId: active.agentId }),
    });
  }
  const executable = facts.executable.path;
  let argv = tunnel ? tunnel.behindRelay([executable, ...input.args]) : [executable, ...input.args];
  let user: Owner | null = null;
  if (sandboxed) {
    const bubblewrap = connection.report.bubblewrap;
    if (!bubblewrap || !facts.seccompFile) {
      throw new OperatorError({
        code: 'sandbox_unavailable',
        reason: 'sandbox_unavailable',
        message: `${connection.name} has no bubblewrap the console can use${facts.seccompFile ? '' : ` and no seccomp filter for its machine (${facts.machine})`}, so the sandboxed run did not start there. Test the host again, or choose another host.`,
        actionUrl: actionRoute({ kind: 'settings-hosts' }),
      });
    }
    const programs = [facts.executable, ...facts.interpreters];
    const realpaths = new Map(programs.map((program) => [program.path, program.realpath]));
    const hidden = [layout.home, layout.consoleRoot];
    user = facts.uid === 0 ? nobody : null;
    if (user && !facts.setpriv) {
      throw new OperatorError({
        code: 'sandbox_unavailable',
        reason: 'sandbox_unavailable',
        message: `${connection.name} is reached as root, whose sandboxed runs the console starts as an unprivileged user with ${setprivPath}, which is not there, so the run did not start there. Install util-linux on the host (it ships setpriv), or reach it as another user, then test the host again.`,
        actionUrl: actionRoute({ kind: 'settings-hosts' }),
      });
    }
    const setup = { seccompFile: facts.seccompFile, user };
    const bwrapArgs = buildBwrapArgs(
      {
        taskRoot,
        writableRoots,
        // The environment's network mode, for the agent and the setup command alike: what a mode needs
        // beyond the namespace (provider-only's egress relay and socket) joins both here, in argv and binds.
        networkMode: admission.networkMode,
        operatorHome: layout.home,
        readOnlyRebinds: [
          ...readOnlyRebindsFor({
            linkTargets: [],
            installationDirs: sandboxInstallationDirs([...programs.map((program) => program.path), ...(tunnel?.programs ?? [])], hidden, (file) => realpaths.get(file) ?? file),
          }),
          ...storeObjects,
        ],
        hiddenPaths: [layout.consoleRoot],
        overlays: (tunnel?.binds ?? []).map((bind) => ({ source: bind, dest: bind })),
        ...(tunnel?.proxySocket ? { proxySocket: tunnel.proxySocket } : {}),
        command: argv,
      },
      setup,
      remoteFileSystemFacts(facts),
    );
    const launch = bwrapCommand(bwrapArgs, setup, bubblewrap.path);
    argv = [launch.file, ...launch.args];
  }
  return { argv, env, providerHome, user };
}

async function confineWith(scope: AttemptScope, tunnel: ModelTunnelOnHost | null): Promise<void> {
  const { active } = scope;
  const { connection } = need(scope.host, 'host');
  const spec = need(scope.spec, 'launch');
  const credential = need(scope.credential, 'credential');
  const { admission } = active;
  const delivery = tunnel?.delivery ?? (admission.homeMode === 'isolated' ? credential?.delivery : null);
  const files = delivery?.files ?? [];
  const { argv, env, providerHome, user } = await confinedCommandOnHost(scope, { executable: spec.executable, args: spec.args, profileEnv: spec.env, delivery: delivery ?? null, tunnel });
  if (files.length > 0 && !providerHome) throw new Error(`${active.provider.displayName} has delivery files but no provider home.`);
  // The connection's files (a login file, or the config pointing the CLI at the tunnel) into the run's
  // provider home there, 0600, never through a link an earlier attempt left; removed when the attempt
  // ends. Last, once nothing else can refuse the launch.
  const target = { ssh: connection, host: connection.name };
  if (files.length > 0 && providerHome) await deliverFilesOnHost(target, providerHome, files, user);
  const cleanup = async () => {
    if (files.length > 0 && providerHome) await removeFilesOnHost(target, providerHome, files).catch(() => undefined);
    await tunnel?.close();
  };
  scope.launch = { executable: argv[0]!, args: argv.slice(1), env, sandbox: admission.environmentKind === 'sandboxed' ? 'bubblewrap' : 'none', cleanup };
  scope.sealedRunToken = tunnel?.sealedRunToken ?? null;
  active.launch = scope.launch;
}
