import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConfinedEnvironment } from '../../electron/sandbox/confined-environment';
import type { CredentialDelivery } from '../../electron/providers/credential-delivery';
import { credentialDelivery, modelArgumentFor } from '../../electron/providers/credential-delivery';
import type { ProviderEntry } from '../../electron/providers/catalog';
import { loadProviderCatalog } from '../../electron/providers/catalog';
import type { DefinitionId } from '../../electron/providers/definitions';
import { failurePatternsFor } from '../../electron/providers/definitions';
import type { LaunchSpec, SessionRequest, TaskRootPaths } from '../../electron/providers/launch';
import { providerHomePath } from '../../electron/providers/launch';
import { LineSplitter } from '../../electron/providers/events/line-splitter';
import { createEventParser } from '../../electron/providers/events/parse-event-line';
import type { TimelineEvent } from '../../electron/providers/events/timeline-event';
import type { AttemptFailure } from '../../electron/providers/failure-classifier';
import { classifyAttempt } from '../../electron/providers/failure-classifier';
import type { AiConnection } from '../../shared/entities';

/**
 * Runs one real agent CLI directly (not through the console) the way the console would launch it:
 * the argv and env additions come from the console's own definition for the catalog entry (so this
 * proves the definitions against the real CLIs), the credentials from the console's own delivery
 * (electron/providers/credential-delivery.ts, so this proves its layouts too), in a task
 * root shaped like the console's (`<root>/{view,tmp,cache,home}`, the provider home in `cache`), with the
 * environment built by the console's own confinement code (electron/sandbox/confined-environment.ts) from an
 * allow-list rather than the test runner's environment. stdout is parsed with the
 * console's event parser and a failed run is classified with the console's failure classifier.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
export const agentsPackageDir = here;
export const agentsBinDir = path.join(here, 'node_modules', '.bin');

export type AgentProviderId = Exclude<DefinitionId, 'command'>;

/** The AI-connection provider for each CLI through a local server of its protocol. */
export const connectionProviderFor: Record<AgentProviderId, AiConnection['provider']> = {
  codex: 'openai',
  'claude-code': 'anthropic',
  pi: 'custom',
  'gemini-cli': 'google',
};

export const catalog = loadProviderCatalog();

export function providerEntry(providerId: AgentProviderId): ProviderEntry {
  return catalog.getProvider(providerId);
}

/** A task root that survives between turns of one run (for session resume). */
export interface AgentWorkspace {
  taskRoot: TaskRootPaths;
  /** The provider home inside `cache` (CODEX_HOME, CLAUDE_CONFIG_DIR, ...). */
  providerHome: string;
  cleanup(): void;
}

/**
 * Makes `<base>/<prefix>XXXX/{view,tmp,cache,home}`. `base` defaults to the OS temp directory; Codex
 * with its own sandbox (environment `local`) needs a base outside /tmp (see README).
 */
export function createWorkspace(providerId: AgentProviderId, options: { base?: string; prefix?: string } = {}): AgentWorkspace {
  const base = options.base ?? os.tmpdir();
  mkdirSync(base, { recursive: true });
  const root = mkdtempSync(path.join(base, options.prefix ?? `e2e-${providerId}-`));
  const taskRoot: TaskRootPaths = {
    root,
    view: path.join(root, 'view'),
    tmp: path.join(root, 'tmp'),
    cache: path.join(root, 'cache'),
    home: path.join(root, 'home'),
  };
  for (const dir of [taskRoot.view, taskRoot.tmp, taskRoot.cache, taskRoot.home]) mkdirSync(dir, { recursive: true });
  const providerHome = providerHomePath(providerEntry(providerId).definition.home, taskRoot.cache);
  if (providerHome === null) throw new Error(`${providerId} has no provider home in the catalog.`);
  mkdirSync(providerHome, { recursive: true });
  return {
    taskRoot,
    providerHome,
    cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

export interface RunCliOptions {
  providerId: AgentProviderId;
  workspace: AgentWorkspace;
  /** The AI connection: the model server's base URL and the key. */
  connection: { baseUrl: string; apiKey: string };
  prompt: string;
  /** The model id the server sees; defaults to the catalog's default model for the provider. */
  model?: string;
  profileId?: string;
  session?: SessionRequest;
  environmentKind?: 'local' | 'sandboxed';
  /** Hard bound on the run; the process group is killed after it. Default 60 s. */
  timeoutMs?: number;
  /** Set HTTP(S)_PROXY to this (an egress canary) with NO_PROXY for 127.0.0.1. */
  egressProxyUrl?: string;
  /** Leave the delivered credential files in place after the run (the console removes them). */
  keepDeliveredFiles?: boolean;
  extraEnv?: Record<string, string>;
  /**
   * Starts the CLI some other way than as a child here (on an SSH host, in a sandbox there): given what
   * the console would spawn, once the credential files are delivered, returns what to spawn instead.
   */
  launchVia?: (launch: { executable: string; args: string[]; env: Record<string, string>; cwd: string }) => { file: string; args: string[]; env: Record<string, string> };
}

export interface RunCliResult {
  providerId: AgentProviderId;
  launch: LaunchSpec;
  delivery: CredentialDelivery;
  /** The model the agent names (the id the model server must be asked for), and the `--model` argument the CLI was launched with. */
  model: string;
  modelArgument: string;
  /** The environment the CLI ran with, built by the console's buildConfinedEnvironment (secret values redacted). */
  env: Record<string, string>;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** The console's timeline events, parsed from stdout line by line. */
  events: TimelineEvent[];
  /** The console's verdict on the attempt (null: it succeeded). */
  failure: AttemptFailure | null;
  /** The CLI's native session id: from the argv, or (Codex) from its stream. */
  sessionId: string | null;
  sessionDir: string | null;
  /** Absolute paths of the delivered files, and whether each still exists after the run. */
  deliveredFiles: Array<{ path: string; existsAfterRun: boolean }>;
}

export async function runCli(options: RunCliOptions): Promise<RunCliResult> {
  const provider = providerEntry(options.providerId);
  const { definition } = provider;
  const profile = catalog.getProfile(provider.id, options.profileId ?? provider.profiles[0]?.id ?? 'default');
  const model = options.model ?? provider.models[0]?.id ?? '';
  const { workspace } = options;

  // The console's own delivery for an API-key connection to the server's base URL (the CLIs' own
  // retries are off: the console retries, not the CLI).
  const connection = { provider: connectionProviderFor[options.providerId], method: 'api_key' as const, baseUrl: options.connection.baseUrl };
  const delivery = credentialDelivery({ definition, connection, secret: options.connection.apiKey, model });
  const modelArgument = modelArgumentFor(definition, connection, model);

  const launch = definition.launch.build(provider, {
    task: { title: 'e2e', prompt: options.prompt, planPath: null, reviewPath: null },
    agent: { model: modelArgument, profile },
    taskRoot: workspace.taskRoot,
    prompt: options.prompt,
    session: options.session,
    environmentKind: options.environmentKind ?? 'local',
  });

  // The environment, built by the console's own confinement code (DESIGN.md section 4): an allow-list
  // of the operator's variables, then the profile's env, console-owned extras (the proxy), the
  // delivered connection, and last the confinement variables (HOME, TMPDIR, PWD, the provider home).
  const operatorEnv: Record<string, string | undefined> = {
    PATH: [agentsBinDir, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    LANG: process.env.LANG ?? 'C.UTF-8',
    TZ: process.env.TZ,
    SHELL: '/bin/bash',
    USER: process.env.USER,
    LOGNAME: process.env.LOGNAME,
  };
  const homeVariable = definition.home?.variable ?? '';
  const proxyEnv: Record<string, string> = options.egressProxyUrl
    ? {
        HTTPS_PROXY: options.egressProxyUrl,
        HTTP_PROXY: options.egressProxyUrl,
        https_proxy: options.egressProxyUrl,
        http_proxy: options.egressProxyUrl,
        NO_PROXY: '127.0.0.1,localhost',
        no_proxy: '127.0.0.1,localhost',
      }
    : {};
  const confined = buildConfinedEnvironment({
    operatorEnv,
    taskRoot: workspace.taskRoot,
    providerHomeVar: { name: homeVariable, value: workspace.providerHome },
    profileEnv: Object.fromEntries(Object.entries(launch.env).filter(([name]) => name !== homeVariable)),
    extra: { ...delivery.plainEnv, ...proxyEnv, ...(options.extraEnv ?? {}) },
    deliveredSecrets: delivery.secretEnv,
  });
  if (confined.withheld.length > 0) {
    throw new Error(`The confined environment withheld ${confined.withheld.map((entry) => `${entry.name} (${entry.source}: ${entry.reason})`).join(', ')}.`);
  }
  if (launch.env[homeVariable] !== workspace.providerHome) {
    throw new Error(`The definition put ${homeVariable} at ${launch.env[homeVariable]}, not in the task's cache (${workspace.providerHome}).`);
  }
  const env = confined.env;

  // Deliver the credential files into the provider home, as the console does before the run.
  const delivered = delivery.files.map((file) => {
    const target = path.join(workspace.providerHome, file.relativePath);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.content, { mode: 0o600 });
    chmodSync(target, 0o600);
    return target;
  });

  const executable = resolveExecutable(launch.executable, env.PATH ?? '');
  const started = Date.now();
  const splitter = new LineSplitter();
  const parser = createEventParser(definition.events.format);
  const events: TimelineEvent[] = [];
  const stdoutChunks: Buffer[] = [];
  const stderrChunks: Buffer[] = [];
  let timedOut = false;

  const via = options.launchVia?.({ executable, args: launch.args, env, cwd: launch.cwd }) ?? { file: executable, args: launch.args, env };
  const child = spawn(via.file, via.args, {
    cwd: launch.cwd,
    env: via.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so the whole tree can be killed
  });
  const pgid = child.pid;
  child.stdout.on('data', (chunk: Buffer) => {
    stdoutChunks.push(chunk);
    for (const line of splitter.push(chunk)) events.push(...parser.parseLine(line));
  });
  child.stderr.on('data', (chunk: Buffer) => stderrChunks.push(chunk));

  const timeoutMs = options.timeoutMs ?? 60_000;
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError: NodeJS.ErrnoException | null }>((resolve) => {
    let settled = false;
    const finish = (value: { code: number | null; signal: NodeJS.Signals | null; spawnError: NodeJS.ErrnoException | null }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      resolve(value);
    };
    let killTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(pgid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(pgid, 'SIGKILL'), 3000);
    }, timeoutMs);
    child.once('error', (error: NodeJS.ErrnoException) => finish({ code: null, signal: null, spawnError: error }));
    // 'close' waits for the pipes; a leftover grandchild holding them is killed shortly after the exit.
    child.once('exit', () => {
      clearTimeout(killTimer);
      killTimer = setTimeout(() => killGroup(pgid, 'SIGKILL'), 2000);
    });
    child.once('close', (code, signal) => finish({ code, signal, spawnError: null }));
  });
  // Whatever the CLI left running in its group (tool subprocesses, a relaunched child) goes too.
  killGroup(pgid, 'SIGKILL');
  const stdout = Buffer.concat(stdoutChunks).toString('utf8');
  const stderr = Buffer.concat(stderrChunks).toString('utf8');
  for (const line of splitter.flush()) events.push(...parser.parseLine(line));
  events.push(...parser.flush());

  const deliveredFiles = delivered.map((file) => ({ path: file, existsAfterRun: existsSync(file) }));
  if (!options.keepDeliveredFiles) {
    for (const file of delivered) rmSync(file, { force: true });
  }

  const failure = classifyAttempt({
    providerId: provider.id,
    providerName: provider.displayName,
    model,
    exitCode: exit.code,
    // A CLI that exits 0 on the harness's SIGTERM did not succeed: it was stopped at the time limit.
    signal: exit.signal ?? (timedOut ? 'SIGTERM' : null),
    spawnError: exit.spawnError ? { code: exit.spawnError.code, message: exit.spawnError.message } : null,
    outputTail: `${stderr}\n${stdout}`.slice(-16_384),
    events,
    cliPatterns: failurePatternsFor(definition),
  });

  const sessionEvent = events.find((event): event is Extract<TimelineEvent, { kind: 'session' }> => event.kind === 'session');
  return {
    providerId: options.providerId,
    launch,
    delivery,
    model,
    modelArgument,
    env: redactEnv(env, Object.keys(delivery.secretEnv)),
    exitCode: exit.code,
    signal: exit.signal,
    timedOut,
    durationMs: Date.now() - started,
    stdout,
    stderr,
    events,
    failure,
    sessionId: launch.session?.id ?? sessionEvent?.sessionId ?? null,
    sessionDir: launch.session?.dir ?? null,
    deliveredFiles,
  };
}

function killGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone.
  }
}

function resolveExecutable(name: string, searchPath: string): string {
  if (path.isAbsolute(name)) return name;
  for (const dir of searchPath.split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return name;
}

function redactEnv(env: Record<string, string>, secretNames: readonly string[]): Record<string, string> {
  const copy = { ...env };
  for (const name of secretNames) if (name in copy) copy[name] = `<redacted:${name}>`;
  return copy;
}

/** Every file under `dir`, relative to it (for asserting what a CLI left in its home). */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current)) {
      const full = path.join(current, entry);
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(full); // symbolic links are listed, not followed
      else out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}

/** Files under `dir` whose bytes contain `needle` (for proving a secret was not left behind). */
export function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  return listFiles(dir).filter((file) => {
    try {
      return readFileSync(path.join(dir, file)).includes(bytes);
    } catch {
      return false;
    }
  });
}

/** The CLI's `--version` output (first line), for the catalog's testedVersion check. */
export async function cliVersion(providerId: AgentProviderId, timeoutMs = 30_000): Promise<string> {
  const provider = providerEntry(providerId);
  const home = mkdtempSync(path.join(os.tmpdir(), `e2e-version-${providerId}-`));
  try {
    const executable = resolveExecutable(provider.executable ?? providerId, agentsBinDir);
    const child = spawn(executable, ['--version'], {
      env: { PATH: [agentsBinDir, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter), HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    // Pi prints its version on stderr.
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), timeoutMs);
    await new Promise<void>((resolve) => child.once('close', () => resolve()));
    clearTimeout(timer);
    killGroup(child.pid, 'SIGKILL');
    return out.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('WARNING:'))[0] ?? '';
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
