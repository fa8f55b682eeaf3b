import { realpathSync } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import { bwrapCommand, buildBwrapArgs, readOnlyRebindsFor, type SandboxOverlay } from '../../sandbox/bwrap';
import { endpointFromUrl, endpointsFromAllowedHosts, loopbackForwards, type EgressEndpoint } from '../../sandbox/egress-allow-list';
import { egressSocketPath, startEgressProxy, type EgressDecision, type EgressDecisionNote, type EgressProxy } from '../../sandbox/egress-proxy';
import { chooseRelayPort, egressProxyEnvironment, egressRelayCommand, electronRelayEnvironment, findEgressRelayScript } from '../../sandbox/egress-relay';
import { buildConfinedEnvironment } from '../../sandbox/confined-environment';
import { deliverCredentialFiles, prepareProviderHome, type DeliveredCredentials } from '../../task-root/provider-home';
import type { SandboxProbe } from '../../sandbox/sandbox-probe';
import { buildSeatbeltArgs, sandboxExecPath } from '../../sandbox/seatbelt';
import type { CredentialDelivery } from '../../providers/credential-delivery';
import type { TaskRoot } from '../../task-root/task-root-layout';
import { prepareTaskRootMounts } from '../../task-root/task-root-mounts';
import type { LaunchProfile, ProviderEntry } from '../../providers/catalog';
import type { LaunchSpec } from '../../providers/launch';
import { resolveExecutable } from '../../pty/pty-session';
import type { Admission } from '../admission';

/** One decision of the egress proxy, as the run's timeline records it (the host in display form). */
export function decisionNote(decision: EgressDecision): EgressDecisionNote {
  return {
    host: decision.host,
    port: decision.port,
    method: decision.method,
    allowed: decision.allowed,
    ...(decision.invalidHost ? { invalidHost: true as const } : {}),
  };
}

export interface ConfineLaunchInput {
  spec: LaunchSpec;
  taskRoot: TaskRoot;
  provider: ProviderEntry;
  profile: LaunchProfile;
  admission: Admission;
  operatorEnv: NodeJS.ProcessEnv;
  operatorHome: string;
  /** The console's data directory: hidden inside the sandbox but for the run's own roots. */
  dataDir: string;
  /** What the sandbox probe found (null while it has not answered: then a sandboxed run cannot start). */
  sandbox: SandboxProbe | null;
  onEgressDecision?: (decision: EgressDecisionNote) => void;
  /** An AI connection's base URL, when the run uses one (it replaces the provider's own API). */
  connectionBaseUrl?: string | null;
  /**
   * A managed AI connection's delivery for an isolated home: its files reach the CLI for the attempt
   * (see deliverCredentialFiles) and are removed by `cleanup`, its secret variables reach the child
   * through `deliveredSecrets` (the only way a credential-like name does).
   */
  credential?: Pick<CredentialDelivery, 'secretEnv' | 'plainEnv' | 'files'> | null;
  /** The run's variable layers, merged (project < agent < task; project-setup-service.ts). */
  layerVariables?: Record<string, string>;
}

/**
 * The connection's base URL, or else the APIs the CLI's definition names, then the environment's
 * allowed hosts as the run's admission recorded them (a resumed run keeps its own).
 */
export function egressAllowList(input: Pick<ConfineLaunchInput, 'connectionBaseUrl' | 'provider' | 'admission'>): EgressEndpoint[] {
  const urls = input.connectionBaseUrl ? [input.connectionBaseUrl] : input.provider.definition.apiUrls;
  return [...urls.map(endpointFromUrl), ...endpointsFromAllowedHosts(input.admission.allowedHosts)];
}

/** What the PTY starts, and what to undo when the attempt ends (whatever its outcome). */
export interface ConfinedLaunch {
  executable: string;
  args: string[];
  env: Record<string, string>;
  sandbox: 'none' | 'bubblewrap' | 'seatbelt';
  cleanup(): Promise<void>;
}

function sandboxUnavailable(input: ConfineLaunchInput): OperatorError {
  const probe = input.sandbox;
  return new OperatorError({
    code: 'sandbox_unavailable',
    reason: 'sandbox_unavailable',
    message: `${input.admission.agentName} runs sandboxed, but the OS sandbox is not available here${probe?.reason ? ` (${probe.reason})` : probe ? '' : ' (it is still being checked)'}. ${
      probe?.hint ?? 'Try again in a moment.'
    }`,
    actionUrl: actionRoute({ kind: 'agent', agentId: input.admission.agentId }),
  });
}

/**
 * Turns a definition's launch into a confined one (DESIGN.md section 4): the confined environment built
 * from the allow-list, the provider's home moved into the task's cache (linked to the operator's own
 * files for a preconfigured home, empty for an isolated one), and, in a sandboxed environment, the
 * whole command inside the OS sandbox the probe found (bubblewrap on Linux, Seatbelt on macOS).
 */
export async function confineLaunch(input: ConfineLaunchInput): Promise<ConfinedLaunch> {
  const { spec, taskRoot, admission } = input;
  const sandboxed = admission.environmentKind === 'sandboxed';
  const level = sandboxed ? (input.sandbox?.available ? input.sandbox.level : 'none') : 'none';
  if (sandboxed && level === 'none') throw sandboxUnavailable(input);
  const setup = level === 'bubblewrap' ? input.sandbox!.setup! : null;
  // When the console is root, a sandboxed run is nobody: what it writes is handed to nobody first.
  const owner = setup?.user ?? null;

  const providerHome = await prepareProviderHome({
    home: input.provider.definition.home,
    mode: admission.homeMode,
    cache: taskRoot.cache,
    operatorHome: input.operatorHome,
    operatorEnv: input.operatorEnv,
    owner,
  });
  const profileEnv = { ...spec.env };
  if (providerHome.homeVar) delete profileEnv[providerHome.homeVar.name];
  // A managed connection is delivered only into an isolated home: a preconfigured one is the
  // operator's own login, and a connection's key must never be mixed into it.
  const credential = admission.homeMode === 'isolated' ? (input.credential ?? null) : null;
  const { env } = buildConfinedEnvironment({
    operatorEnv: input.operatorEnv,
    taskRoot,
    providerHomeVar: providerHome.homeVar,
    profileEnv,
    layerVariables: input.layerVariables ?? {},
    deliveredSecrets: credential?.secretEnv ?? {},
    extra: credential?.plainEnv ?? {},
  });
  // Resolved on the host, against the run's own PATH: a missing CLI is `spawn_failed` before any
  // sandbox is built (and before any credential file is written), and the sandbox then runs exactly this file.
  const executable = resolveExecutable(spec.executable, env, spec.cwd);

  let delivered: DeliveredCredentials | null = null;
  let proxy: EgressProxy | null = null;
  const cleanup = async () => {
    await proxy?.close();
    await delivered?.remove();
  };
  try {
    if (credential && providerHome.dir && credential.files.length > 0) {
      delivered = await deliverCredentialFiles({
        taskRoot: taskRoot.root,
        providerHome: providerHome.dir,
        files: credential.files,
        // Only bubblewrap can bind: elsewhere the files are written where the CLI reads them.
        placement: level === 'bubblewrap' ? 'bind' : 'write',
        owner,
      });
    }
    if (!sandboxed) return { executable, args: spec.args, env, sandbox: 'none', cleanup };

    const mounts = await prepareTaskRootMounts(taskRoot, owner);
    const relayScript = findEgressRelayScript();
    const hiddenPaths = [taskRoot.projectPath, input.dataDir];
    const readOnlyRebinds = readOnlyRebindsFor({
      linkTargets: providerHome.links.map((link) => link.target),
      installationDirs: sandboxInstallationDirs([executable, process.execPath, relayScript], [input.operatorHome, ...hiddenPaths]),
    });
    let command = [executable, ...spec.args];

    if (level === 'seatbelt') {
      // macOS has no network namespace: the proxy listens on a port of localhost, the only address
      // the profile lets the run connect to, and every destination goes through it.
      let proxyPort: number | undefined;
      if (admission.networkMode === 'provider-only') {
        proxy = await startEgressProxy({ tcpPort: 0, allow: egressAllowList(input), onDecision: (decision) => input.onEgressDecision?.(decisionNote(decision)) });
        proxyPort = proxy.tcpPort!;
        Object.assign(env, egressProxyEnvironment(proxyPort, { privateLoopback: false }));
      }
      const args = buildSeatbeltArgs({
        writableRoots: mounts.writableRoots,
        operatorHome: input.operatorHome,
        readOnlyRebinds: [...readOnlyRebinds, ...mounts.readOnlyRebinds],
        hiddenPaths,
        networkMode: admission.networkMode,
        ...(proxyPort !== undefined ? { proxyPort } : {}),
        protectedPaths: seatbeltProtections(mounts.overlays, delivered?.paths ?? []),
        command,
      });
      return { executable: sandboxExecPath, args, env, sandbox: 'seatbelt', cleanup };
    }

    // provider-only: no network of its own; an egress proxy on the host, reached through a Unix socket
    // bound into the sandbox, lets through only the provider's API (and the operator's allow-list).
    if (admission.networkMode === 'provider-only') {
      const allow = egressAllowList(input);
      proxy = await startEgressProxy({
        socketPath: await egressSocketPath(taskRoot),
        allow,
        owner,
        onDecision: (decision) => input.onEgressDecision?.(decisionNote(decision)),
      });
      const forwards = loopbackForwards(allow);
      const relayPort = chooseRelayPort(forwards);
      command = egressRelayCommand({ nodePath: process.execPath, relayScript, socketPath: proxy.socketPath!, relayPort, forwards, command });
      Object.assign(env, egressProxyEnvironment(relayPort));
      // In Electron the relay runs on Electron's own Node.
      if (process.versions.electron) Object.assign(env, electronRelayEnvironment);
    }
    const bwrapArgs = buildBwrapArgs(
      {
        taskRoot,
        writableRoots: mounts.writableRoots,
        networkMode: admission.networkMode,
        operatorHome: input.operatorHome,
        readOnlyRebinds: [...readOnlyRebinds, ...mounts.readOnlyRebinds],
        hiddenPaths,
        overlays: [...mounts.overlays, ...(delivered?.overlays ?? [])],
        ...(proxy?.socketPath ? { proxySocket: proxy.socketPath } : {}),
        command,
      },
      setup!,
    );
    const launch = bwrapCommand(bwrapArgs, setup!);
    return { executable: launch.file, args: launch.args, env, sandbox: 'bubblewrap', cleanup };
  } catch (error) {
    // Nothing will run: the delivered files and the proxy must not outlive this failed launch.
    await cleanup();
    throw error;
  }
}

/**
 * Seatbelt's carve-outs from the writable roots, for what bubblewrap binds read-only: a protected
 * folder's whole tree, except one holding a writable overlay (the worktrees folder around the admin
 * folder), which is only kept from being moved, as is every file and writable folder itself.
 */
function seatbeltProtections(overlays: SandboxOverlay[], deliveredPaths: string[]): { literal: string[]; subpath: string[] } {
  const literal: string[] = [...deliveredPaths];
  const subpath: string[] = [];
  for (const overlay of overlays) {
    const holdsWritable = overlays.some((other) => other.writable && other.dest.startsWith(`${overlay.dest}${path.sep}`));
    if (overlay.folder && !overlay.writable && !holdsWritable) subpath.push(overlay.dest);
    else literal.push(overlay.dest);
  }
  return { literal, subpath };
}

/** Folders the sandbox hides (an empty tmpfs over each); see electron/sandbox/bwrap.ts. */
const hiddenSystemRoots = ['/tmp', '/var/tmp', '/run'];

/**
 * The folders the programs a sandboxed run starts need, when they sit in a folder the sandbox hides
 * (the operator's home, /tmp, the project): the CLI's installation (the whole package a
 * `node_modules/.bin` link points into), the Node runtime running it (nvm, volta, ~/.local), and the
 * egress relay script. They are re-bound read-only, and nothing else of the hidden folder is (a
 * hidden folder inside one, such as the data directory under ~/.local, stays hidden: bwrap.ts).
 * `realpath` is where links lead on the machine the sandbox runs on (an SSH host asks its own).
 */
export function sandboxInstallationDirs(programs: string[], hiddenFolders: string[], realpath: (file: string) => string = realpathOr): string[] {
  const hiddenRoots = [...hiddenFolders, ...hiddenSystemRoots];
  const isHidden = (dir: string) => hiddenRoots.some((root) => dir === root || dir.startsWith(`${root}${path.sep}`));
  const dirs = new Set<string>();
  for (const program of programs) {
    for (const file of new Set([program, realpath(program)])) {
      const dir = installationDir(file);
      if (isHidden(dir)) dirs.add(dir);
    }
  }
  return [...dirs];
}

function installationDir(file: string): string {
  const parts = file.split(path.sep);
  const modules = parts.lastIndexOf('node_modules');
  if (modules > 0) return parts.slice(0, modules).join(path.sep) || path.sep;
  const dir = path.dirname(file);
  return path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
