import { execFile } from 'node:child_process';

/**
 * Runs the real git binary with an argument vector (never through a shell), for the confinement
 * modules. The operator's own git configuration applies (it is their git), but variables such as
 * GIT_DIR or GIT_INDEX_FILE inherited from whatever started the console are dropped: a console
 * launched from inside a git hook must not aim every command at the wrong repository.
 */

/** git's failure as git said it; git-errors.ts turns it into a code and a remedy for the operator. */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    /** Stopped at the time limit rather than failed. */
    readonly timedOut = false,
  ) {
    super(`git ${args.join(' ')} ${timedOut ? 'did not finish in time' : 'failed'}${exitCode === null ? '' : ` (exit ${exitCode})`}: ${stderr.trim() || 'no output'}`);
    this.name = 'GitCommandError';
  }
}

export interface GitCommandOptions {
  cwd?: string;
  /** Variables added on top of the cleaned host environment (GIT_DIR, GIT_INDEX_FILE, ...). */
  env?: Record<string, string>;
  /** Exit codes that are answers rather than failures (`git diff --no-index` exits 1 on a difference). */
  okExitCodes?: number[];
  maxBuffer?: number;
  /** Written to git's standard input (a pack for index-pack, a message for commit-tree). */
  input?: Buffer | string;
  /** Default two minutes; a push over a slow network may need longer. */
  timeoutMs?: number;
}

export interface GitCommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const gitTimeoutMs = 120_000;

export function hostGitEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('GIT_')) continue;
    env[name] = value;
  }
  // Never wait for a credential prompt that nobody will answer.
  env.GIT_TERMINAL_PROMPT = '0';
  return { ...env, ...extra };
}

export function runGit(args: string[], options: GitCommandOptions = {}): Promise<GitCommandResult> {
  const okExitCodes = options.okExitCodes ?? [0];
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        env: hostGitEnvironment(options.env),
        maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? gitTimeoutMs,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        if (exitCode !== null && okExitCodes.includes(exitCode)) {
          resolve({ stdout, stderr, exitCode });
          return;
        }
        const timedOut = Boolean(error && 'killed' in error && error.killed && exitCode === null);
        reject(new GitCommandError(args, exitCode, stderr || (error?.message ?? ''), timedOut));
      },
    );
    if (options.input !== undefined) {
      child.stdin?.on('error', () => undefined); // git may exit before reading it all
      child.stdin?.end(options.input);
    }
  });
}
