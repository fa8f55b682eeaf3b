import { randomUUID } from 'node:crypto';
import { OperatorError } from '../../../shared/errors';
import type { EventFormat, LaunchProfile, ProviderEntry } from '../catalog';
import { providerHomePath } from '../catalog';

/**
 * One launch adapter per CLI turns (task, agent, task root, prompt, session) into the exact argv and
 * environment additions for a headless run. Adapters are pure: they do not touch the filesystem or
 * spawn anything, so every flag they emit is pinned by a unit test against the CLI's real --help.
 */

export interface LaunchTask {
  title: string;
  prompt: string;
  planPath: string | null;
  reviewPath: string | null;
}

/** `<data>/tasks/<runId>/{view,tmp,cache,home}` (DESIGN.md section 4). */
export interface TaskRootPaths {
  root: string;
  view: string;
  tmp: string;
  cache: string;
  home: string;
}

export type SessionRequest =
  | { mode: 'new' }
  | { mode: 'resume'; sessionId: string; sessionDir?: string | null | undefined };

export interface LaunchRequest {
  task: LaunchTask;
  agent: { model: string; profile: LaunchProfile };
  taskRoot: TaskRootPaths;
  /** The full prompt to hand the CLI (see runs/worker-prompt.ts). */
  prompt: string;
  session?: SessionRequest | undefined;
  /**
   * Where the run executes. Codex cannot build its own sandbox inside the console's (DESIGN.md
   * section 4), so it bypasses it there and keeps it on when the run is not OS-sandboxed.
   * Defaults to 'local', the cautious choice for Codex.
   */
  environmentKind?: 'local' | 'sandboxed' | undefined;
  /** Source of new session ids; tests pass a fixed one. Defaults to a random UUID. */
  newSessionId?: (() => string) | undefined;
}

/**
 * How to find the CLI's native session again. `argv`: the id was chosen before launch and is in the
 * argv, so it can be persisted before the run is awaited. `stream`: the CLI picks it and reports it in
 * its JSON stream (a `session` timeline event), so it is persisted when that event arrives.
 */
export interface SessionLocator {
  id: string | null;
  dir: string | null;
  source: 'argv' | 'stream';
}

export interface LaunchSpec {
  executable: string;
  args: string[];
  /** Additions to the confined environment (which the confinement layer builds); never the whole env. */
  env: Record<string, string>;
  cwd: string;
  session: SessionLocator | null;
}

export interface ProviderAdapter {
  readonly provider: ProviderEntry;
  readonly eventFormat: EventFormat;
  readonly supportsResume: boolean;
  buildLaunch(request: LaunchRequest): LaunchSpec;
}

/** The provider home variable inside the task cache, then the profile's own env. */
export function providerEnv(provider: ProviderEntry, request: LaunchRequest): Record<string, string> {
  const env: Record<string, string> = {};
  const home = providerHomePath(provider, request.taskRoot.cache);
  if (provider.homeVariable !== null && home !== null) env[provider.homeVariable] = home;
  return { ...env, ...request.agent.profile.env };
}

export function executableFor(provider: ProviderEntry, profile: LaunchProfile): string {
  const executable = profile.executable ?? provider.executable;
  if (!executable) {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'executable_missing',
      message: `The ${provider.displayName} profile "${profile.id}" names no executable. Set one in the provider catalog.`,
    });
  }
  return executable;
}

export function newSessionId(request: LaunchRequest): string {
  return (request.newSessionId ?? randomUUID)();
}

/** True when `args` already carries one of `flags`, alone or as `--flag=value`. */
export function hasFlag(args: readonly string[], flags: readonly string[]): boolean {
  return args.some((arg) => flags.some((flag) => arg === flag || arg.startsWith(`${flag}=`)));
}

export function resumeUnsupported(provider: ProviderEntry): never {
  throw new OperatorError({
    code: 'configuration_incomplete',
    reason: 'session_resume_unsupported',
    message: `${provider.displayName} runs cannot be resumed: the provider has no native sessions. Start a new run instead.`,
  });
}

export function requireSessionId(provider: ProviderEntry, sessionId: string): string {
  if (sessionId.trim() === '') {
    throw new OperatorError({
      code: 'invalid_request',
      reason: 'session_id_missing',
      message: `Resuming a ${provider.displayName} run needs the session id recorded for it.`,
    });
  }
  return sessionId;
}

/**
 * For CLIs whose session id the console picks before launch (Claude Code, Gemini CLI): a new run
 * passes `--session-id <fresh id>`, a resumed one `--resume <saved id>`; the session folder is the
 * saved one, else where the CLI keeps its sessions by default.
 */
export function argvSession(
  provider: ProviderEntry,
  request: LaunchRequest,
  defaultDir: string | null,
): { id: string; dir: string | null; flags: string[] } {
  const session = request.session ?? { mode: 'new' };
  if (session.mode === 'resume') {
    const id = requireSessionId(provider, session.sessionId);
    return { id, dir: session.sessionDir ?? defaultDir, flags: ['--resume', id] };
  }
  const id = newSessionId(request);
  return { id, dir: defaultDir, flags: ['--session-id', id] };
}
