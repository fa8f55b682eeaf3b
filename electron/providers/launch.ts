import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { OperatorError } from '../../shared/errors';
import type { ProviderHomeLayout } from './home-layout';

/**
 * What every definition's launch builder works with: (task, agent, task root, prompt, session) in, the
 * exact argv and environment additions for a headless run out. Builders are pure: they do not touch
 * the filesystem or spawn anything, so every flag they emit is pinned by a unit test against the CLI's
 * real --help (each CLI's test file in its folder).
 */

/** A launch profile as the catalog gives it (catalog.ts validates the file against this shape). */
export interface LaunchProfile {
  id: string;
  label: string;
  /** Extra arguments, placed after the CLI's own headless flags and before the prompt. */
  args: string[];
  env: Record<string, string>;
  /** Overrides the provider's executable; required for `command` profiles. */
  executable?: string | undefined;
  /** `command` profiles only: the whole argv after the executable, with {placeholders}. */
  argsTemplate?: string[] | undefined;
  /**
   * `command` profiles only: the JSON-line event format the program prints, when it speaks one of
   * the CLIs' streams (a wrapper script, a test fixture); the timeline parses it like that CLI's.
   */
  eventFormat?: string | undefined;
  maxAttempts: number;
  retryBackoffBaseMs: number;
  stopGraceMs: number;
}

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

/** The catalog entry a launch is for: its name in messages and the executable it names, if any. */
export interface LaunchTarget {
  displayName: string;
  executable: string | null;
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

/** Where a CLI's home lives inside a task's cache directory (CODEX_HOME=<cache>/codex-home, ...). */
export function providerHomePath(home: ProviderHomeLayout | null, cacheDir: string): string | null {
  return home === null ? null : path.join(cacheDir, home.folder);
}

/** The provider home variable inside the task cache, then the profile's own env. */
export function providerEnv(home: ProviderHomeLayout | null, request: LaunchRequest): Record<string, string> {
  const env: Record<string, string> = {};
  const dir = providerHomePath(home, request.taskRoot.cache);
  if (home !== null && dir !== null) env[home.variable] = dir;
  return { ...env, ...request.agent.profile.env };
}

export function executableFor(target: LaunchTarget, profile: LaunchProfile): string {
  const executable = profile.executable ?? target.executable;
  if (!executable) {
    throw new OperatorError({
      code: 'configuration_incomplete',
      reason: 'executable_missing',
      message: `The ${target.displayName} profile "${profile.id}" names no executable. Set one in the provider catalog.`,
    });
  }
  return executable;
}

/** The launch of `args` in the view: the target's (or profile's) executable, the home variable and the profile's env. */
export function launchSpec(target: LaunchTarget, home: ProviderHomeLayout | null, request: LaunchRequest, args: string[], session: SessionLocator | null): LaunchSpec {
  return { executable: executableFor(target, request.agent.profile), args, env: providerEnv(home, request), cwd: request.taskRoot.view, session };
}

export function newSessionId(request: LaunchRequest): string {
  return (request.newSessionId ?? randomUUID)();
}

/** True when `args` already carries one of `flags`, alone or as `--flag=value`. */
export function hasFlag(args: readonly string[], flags: readonly string[]): boolean {
  return args.some((arg) => flags.some((flag) => arg === flag || arg.startsWith(`${flag}=`)));
}

export function resumeUnsupported(target: LaunchTarget): never {
  throw new OperatorError({
    code: 'configuration_incomplete',
    reason: 'session_resume_unsupported',
    message: `${target.displayName} runs cannot be resumed: the provider has no native sessions. Start a new run instead.`,
  });
}

export function requireSessionId(target: LaunchTarget, sessionId: string): string {
  if (sessionId.trim() === '') {
    throw new OperatorError({
      code: 'invalid_request',
      reason: 'session_id_missing',
      message: `Resuming a ${target.displayName} run needs the session id recorded for it.`,
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
  target: LaunchTarget,
  request: LaunchRequest,
  defaultDir: string | null,
): { id: string; dir: string | null; flags: string[] } {
  const session = request.session ?? { mode: 'new' };
  if (session.mode === 'resume') {
    const id = requireSessionId(target, session.sessionId);
    return { id, dir: session.sessionDir ?? defaultDir, flags: ['--resume', id] };
  }
  const id = newSessionId(request);
  return { id, dir: defaultDir, flags: ['--session-id', id] };
}
