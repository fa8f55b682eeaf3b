import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { OperatorError } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import { setprivPath, type SandboxFileSystemFacts } from '../../sandbox/bwrap';
import type { Owner } from '../../platform/safe-path';
import { seccompFilter } from '../../sandbox/seccomp';
import { sshWords } from '../ssh-failure';
import { runOnHost, type HostConnection } from './host-connection';
import { remoteStoresFolder } from '../remote-git/send-base-revision';

/**
 * The console's side of its supervisor on an SSH host (resources/hosts/remote-supervisor.py, Python 3's
 * standard library only): where a run's files live there, and the few commands the console sends.
 *
 * Layout, under the remote user's home, all 0700 and the console's:
 *   ~/.operator-console/supervisor-<digest>.py     the script, named by its content
 *   ~/.operator-console/runs/<runId>/{view,tmp,cache,home}   the run's task root (its writable roots)
 *   ~/.operator-console/runs/<runId>/seccomp.bpf   the filter for that machine's architecture
 *   ~/.operator-console/runs/<runId>/attempts/<attemptId>/{spool,exit.json,control.sock,supervisor.pid}
 *   ~/.operator-console/git-stores/<projectId>.git   the project's object store (remote-git/), removed by Clean up once no run there needs it
 * The sandbox hides ~/.operator-console and the home, and binds back only the writable roots: the spool,
 * the control socket and the other runs are not in it.
 *
 * Why Python: the agent needs a PTY whose size the console sets and whose exit it reads, in a session
 * of its own that outlives ssh. Node (there wherever the agent CLIs are) has no PTY without a native
 * module; util-linux `script` makes one but sizes it from its own terminal, which a detached run has
 * not, and mixes its own messages into the output. Python 3's `pty`, `fcntl` and `termios` do all of
 * it with nothing to build, and Test host says whether the host has it.
 */

export const consoleFolderName = '.operator-console';

export function findSupervisorScript(start: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let folder = start;
  for (;;) {
    const candidate = path.join(folder, 'resources', 'hosts', 'remote-supervisor.py');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error('resources/hosts/remote-supervisor.py was not found.');
    folder = parent;
  }
}

let script: { text: Buffer; digest: string } | null = null;
function supervisorScript(): { text: Buffer; digest: string } {
  if (!script) {
    const text = readFileSync(findSupervisorScript());
    script = { text, digest: createHash('sha256').update(text).digest('hex').slice(0, 16) };
  }
  return script;
}

/** Where a run's files are on the host. */
export interface RemoteRunLayout {
  home: string;
  consoleRoot: string;
  runsRoot: string;
  runDir: string;
  taskRoot: { root: string; view: string; tmp: string; cache: string; home: string };
  seccompFile: string;
  attemptDir(attemptId: string): string;
  script: string;
}

const safeRemotePath = /^\/[A-Za-z0-9._/+-]*$/;
const safeId = /^[A-Za-z0-9_-]{1,64}$/;

/** The console's folder on the host, and the script in it. */
export type RemoteHostLayout = Pick<RemoteRunLayout, 'home' | 'consoleRoot' | 'runsRoot' | 'script'>;

export function remoteHostLayout(connection: HostConnection): RemoteHostLayout {
  const home = connection.report.home;
  if (!safeRemotePath.test(home) || home.split('/').includes('..')) {
    throw new OperatorError({
      code: 'invalid_request',
      reason: 'host_home_unusable',
      message: `${connection.name} says its home is ${JSON.stringify(home)}, which the console does not keep runs under (it takes letters, digits and . _ - + / only). Use an account whose home is a plain path, then test the host again.`,
      actionUrl: actionRoute({ kind: 'settings-hosts' }),
    });
  }
  const consoleRoot = path.posix.join(home, consoleFolderName);
  return { home, consoleRoot, runsRoot: path.posix.join(consoleRoot, 'runs'), script: `${consoleRoot}/supervisor-${supervisorScript().digest}.py` };
}

export function remoteRunLayout(connection: HostConnection, runId: string): RemoteRunLayout {
  const host = remoteHostLayout(connection);
  if (!safeId.test(runId)) throw new Error(`not a run id: ${runId}`);
  const runDir = path.posix.join(host.runsRoot, runId);
  return {
    ...host,
    runDir,
    taskRoot: { root: runDir, view: `${runDir}/view`, tmp: `${runDir}/tmp`, cache: `${runDir}/cache`, home: `${runDir}/home` },
    seccompFile: `${runDir}/seccomp.bpf`,
    attemptDir: (attemptId) => {
      if (!safeId.test(attemptId)) throw new Error(`not an attempt id: ${attemptId}`);
      return `${runDir}/attempts/${attemptId}`;
    },
  };
}

const commandTimeoutMs = 60_000;

/**
 * Puts the supervisor script on the host when it is not there (asked at each use: the folder may
 * have been removed on the host meanwhile; one short ssh command).
 */
export async function installSupervisor(connection: HostConnection, layout: RemoteHostLayout): Promise<void> {
  const install = [
    'set -e',
    'umask 077',
    `mkdir -p "$1/runs"`,
    'chmod 700 "$1" "$1/runs"',
    'if [ -f "$2" ]; then cat >/dev/null; else cat >"$2.$$"; mv "$2.$$" "$2"; fi',
  ].join('; ');
  const result = await runOnHost(connection, ['sh', '-c', install, 'install', layout.consoleRoot, layout.script], {
    stdin: supervisorScript().text,
    timeoutMs: commandTimeoutMs,
    maxOutputBytes: 4096,
  });
  if (result.exitCode !== 0) throw hostCommandFailed(connection, 'could not keep its files in ~/.operator-console', result.stderr);
}

function python(layout: RemoteHostLayout, ...words: string[]): string[] {
  return ['python3', layout.script, ...words];
}

export function hostCommandFailed(connection: HostConnection, what: string, stderr: string): OperatorError {
  return new OperatorError({
    code: 'ssh_failed',
    reason: 'host_command_failed',
    message: `${connection.name} ${what} (${sshWords(stderr)}). Check the account's home and disk there (\`ssh ${connection.name} df -h ~\`), test the host again, then run the task again.`,
    actionUrl: actionRoute({ kind: 'settings-hosts' }),
  });
}

const factsSchema = z.object({
  machine: z.string().max(64),
  seccompFile: z.string().nullable(),
  realDirectories: z.record(z.string(), z.boolean()),
  realpaths: z.record(z.string(), z.string().max(4096).nullable()),
  executable: z.object({ path: z.string().max(4096), realpath: z.string().max(4096) }).nullable(),
  interpreters: z.array(z.object({ path: z.string().max(4096), realpath: z.string().max(4096) })).max(8),
  /** The remote account's uid: 0 (root) runs the sandbox as the sandbox's user, as a console running as root does here. */
  uid: z.number().int().min(0),
  /** Whether setpriv, which starts the sandboxed program as that user, is there. */
  setpriv: z.boolean(),
});

export type RemoteFacts = z.infer<typeof factsSchema>;

/** The machine names Python reports, for the architectures the seccomp filter has. */
const seccompMachines: Record<string, string> = { x86_64: 'x64', aarch64: 'arm64' };

export interface PrepareOnHostInput {
  folders: string[];
  /** Folders bubblewrap's argv asks whether they are real folders. */
  directories: string[];
  /** Paths whose resolved form the argv needs. */
  realpaths: string[];
  /** The agent's program, looked for on `path` when it is a bare name. */
  executable: string;
  path: string;
  /** Interpreters its first line may name (`node`), looked for on `path` too. */
  interpreters?: string[];
  /**
   * Who a sandboxed run on a root account runs as. Only when the account is root (the host decides,
   * from its own uid): `handOver` (the run's writable roots) become that user's, recursively with no link
   * followed, and `shareForReading` (the console's files the run reads: the project's objects, the
   * model relay) become readable by others, inside the console's 0700 folder.
   */
  sandboxUser?: Owner;
  handOver?: string[];
  shareForReading?: string[];
}

/** Makes the run's folders, writes the seccomp filter for the host's machine, and answers the file system facts. */
export async function prepareOnHost(connection: HostConnection, layout: RemoteRunLayout, input: PrepareOnHostInput): Promise<RemoteFacts> {
  const seccomp: Record<string, string> = {};
  for (const [machine, arch] of Object.entries(seccompMachines)) {
    const filter = seccompFilter(arch);
    if (filter) seccomp[machine] = filter.toString('base64');
  }
  const request = { ...input, root: layout.consoleRoot, seccomp, seccompFile: layout.seccompFile, setpriv: setprivPath };
  const result = await runOnHost(connection, python(layout, 'prepare'), { stdin: Buffer.from(JSON.stringify(request)), timeoutMs: commandTimeoutMs, maxOutputBytes: 256 * 1024 });
  if (result.exitCode !== 0) throw hostCommandFailed(connection, 'could not prepare the run’s folders', result.stderr);
  let parsed;
  try {
    parsed = factsSchema.safeParse(JSON.parse(result.stdout.toString('utf8')));
  } catch {
    parsed = null;
  }
  if (!parsed?.success) throw hostCommandFailed(connection, 'answered the run’s preparation with something else than the console asked for', result.stdout.toString('utf8').slice(0, 200));
  return parsed.data;
}

/** The facts as bubblewrap's argv builder asks them; a path nobody asked the host about is a bug, never a guess. */
export function remoteFileSystemFacts(facts: RemoteFacts): SandboxFileSystemFacts {
  const known = <T>(map: Record<string, T>, key: string): T => {
    if (!(key in map)) throw new Error(`The host was not asked about ${key}.`);
    return map[key]!;
  };
  return {
    isRealDirectory: (folder) => known(facts.realDirectories, folder),
    realpath: (file) => known(facts.realpaths, file),
    mode: () => null,
  };
}

export interface RemoteLaunch {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  cols: number;
  rows: number;
}

/** Starts the agent under the supervisor; resolves with its pid once the supervisor listens. */
export async function startOnHost(connection: HostConnection, layout: RemoteRunLayout, attemptId: string, launch: RemoteLaunch): Promise<{ pid: number }> {
  const result = await runOnHost(connection, python(layout, 'start', layout.attemptDir(attemptId)), {
    stdin: Buffer.from(JSON.stringify(launch)),
    timeoutMs: commandTimeoutMs,
    maxOutputBytes: 4096,
  });
  const answer = /^started (\d{1,10})\n$/.exec(result.stdout.toString('utf8'));
  if (result.exitCode !== 0 || !answer) throw hostCommandFailed(connection, 'could not start the agent', `${result.stdout.toString('utf8')} ${result.stderr}`);
  return { pid: Number(answer[1]) };
}

/** Asks the supervisor to stop the agent's process group (it kills it after the grace itself). */
export async function stopOnHost(connection: HostConnection, layout: RemoteRunLayout, attemptId: string, graceMs: number): Promise<void> {
  await runOnHost(connection, python(layout, 'stop', layout.attemptDir(attemptId), String(Math.max(0, Math.round(graceMs)))), { timeoutMs: commandTimeoutMs, maxOutputBytes: 4096 });
}

/** The same for an attempt known by its folder alone (a run a dead console left there); only folders under the console's own are asked about. */
export async function stopAttemptOnHost(connection: HostConnection, attemptDir: string, graceMs: number): Promise<void> {
  const layout = remoteHostLayout(connection);
  if (!attemptDir.startsWith(`${layout.runsRoot}/`) || !safeRemotePath.test(attemptDir) || attemptDir.split('/').includes('..')) throw new Error(`not a run's folder: ${attemptDir}`);
  await installSupervisor(connection, layout);
  await runOnHost(connection, python(layout, 'stop', attemptDir, String(Math.max(0, Math.round(graceMs)))), { timeoutMs: commandTimeoutMs, maxOutputBytes: 4096 });
}

/** The attach command: the spool from `offset`, framed, then the exit. */
export function attachWords(layout: RemoteRunLayout, attemptId: string, offset: number): string[] {
  return python(layout, 'attach', layout.attemptDir(attemptId), String(offset));
}

/** Kills whatever of the run is left on the host and removes its folder. */
export async function removeFromHost(connection: HostConnection, layout: RemoteRunLayout): Promise<void> {
  await installSupervisor(connection, layout);
  const result = await runOnHost(connection, python(layout, 'clean', layout.runDir), { timeoutMs: commandTimeoutMs, maxOutputBytes: 4096 });
  if (result.exitCode !== 0) throw hostCommandFailed(connection, 'could not remove the run’s folder', result.stderr);
}

/** Bytes per run folder on the host. */
export async function diskOnHost(connection: HostConnection, layout: RemoteHostLayout): Promise<Record<string, number>> {
  await installSupervisor(connection, layout);
  const result = await runOnHost(connection, python(layout, 'disk', layout.runsRoot), { timeoutMs: commandTimeoutMs, maxOutputBytes: 1024 * 1024 });
  if (result.exitCode !== 0) throw hostCommandFailed(connection, 'could not say how much disk its runs use', result.stderr);
  const parsed = z.record(z.string().regex(safeId), z.number().int().min(0)).safeParse(JSON.parse(result.stdout.toString('utf8') || '{}'));
  if (!parsed.success) throw hostCommandFailed(connection, 'answered with something else than disk use', '');
  return parsed.data;
}

/**
 * Bytes per project's git store on the host (send-base-revision.ts keeps one per project, which runs'
 * repositories borrow from), by project id. Only real folders are measured: a link is listed at 0.
 */
export async function gitStoresOnHost(connection: HostConnection, layout: RemoteHostLayout): Promise<Record<string, number>> {
  await installSupervisor(connection, layout);
  const result = await runOnHost(connection, python(layout, 'stores', remoteStoresFolder(layout.consoleRoot)), { timeoutMs: commandTimeoutMs, maxOutputBytes: 1024 * 1024 });
  if (result.exitCode !== 0) throw hostCommandFailed(connection, 'could not say how much disk its projects’ git stores use', result.stderr);
  let answer: unknown;
  try {
    answer = JSON.parse(result.stdout.toString('utf8') || '{}');
  } catch {
    answer = null;
  }
  const parsed = z.record(z.string().regex(safeId), z.number().int().min(0)).safeParse(answer);
  if (!parsed.success) throw hostCommandFailed(connection, 'answered with something else than its git stores’ sizes', '');
  return parsed.data;
}

/** Removes a project's git store on the host, by the same rules as a run's folder (the supervisor's `drop-store`: no link followed). */
export async function removeGitStoreFromHost(connection: HostConnection, layout: RemoteHostLayout, projectId: string): Promise<void> {
  if (!safeId.test(projectId)) throw new Error(`not a project id: ${projectId}`);
  await installSupervisor(connection, layout);
  const result = await runOnHost(connection, python(layout, 'drop-store', remoteStoresFolder(layout.consoleRoot), projectId), { timeoutMs: commandTimeoutMs, maxOutputBytes: 4096 });
  if (result.exitCode !== 0) throw hostCommandFailed(connection, 'could not remove a project’s git store', result.stderr);
}
