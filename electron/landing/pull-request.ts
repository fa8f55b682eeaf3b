import { execFile } from 'node:child_process';
import { OperatorError } from '../../shared/errors';
import { resolveExecutable } from '../pty/pty-session';

/**
 * Create pull request: through the GitHub CLI (`gh`) when it is installed and logged in, in the
 * project's own folder with the operator's own environment (their gh login), never through a shell,
 * never prompting, within a time limit. Without it, the action says what to install or run.
 */

type Environment = Readonly<Record<string, string | undefined>>;

export interface PullRequestInput {
  base: string;
  head: string;
  title: string;
  body: string;
}

const authTimeoutMs = 15_000;
const createTimeoutMs = 120_000;

export async function detectGh(env: Environment): Promise<{ available: boolean; hint: string | null }> {
  const gh = findGh(env);
  if (!gh) {
    return { available: false, hint: 'Install the GitHub CLI (gh) from https://cli.github.com and run `gh auth login` to create pull requests from the console.' };
  }
  const status = await runGh(gh, ['auth', 'status'], { env, timeoutMs: authTimeoutMs });
  if (status.exitCode !== 0) {
    return { available: false, hint: 'Run `gh auth login` in a terminal to let the console create pull requests with the GitHub CLI.' };
  }
  return { available: true, hint: null };
}

/** gh's arguments: each value joined to its option, so a title starting with "-" is never read as one. */
export function pullRequestArgv(input: PullRequestInput): string[] {
  return ['pr', 'create', `--base=${input.base}`, `--head=${input.head}`, `--title=${input.title}`, `--body=${input.body}`];
}

export async function createPullRequest(projectPath: string, input: PullRequestInput, env: Environment): Promise<{ url: string }> {
  const gh = findGh(env);
  if (!gh) throw new OperatorError({ code: 'conflict', reason: 'gh_not_installed', message: 'Install the GitHub CLI (gh) from https://cli.github.com, run `gh auth login`, then create the pull request again.' });
  const result = await runGh(gh, pullRequestArgv(input), { env, cwd: projectPath, timeoutMs: createTimeoutMs });
  // gh prints the new pull request's address last; for one that exists already it names it in the error.
  const url = lastUrl(result.stdout) ?? (result.exitCode !== 0 ? /already exists[\s\S]*?(https?:\/\/\S+)/.exec(result.stderr)?.[1] : undefined);
  if (url) return { url };
  const said = result.timedOut ? 'it did not finish in time' : (result.stderr.split('\n').map((line) => line.trim()).find(Boolean) ?? `exit ${result.exitCode ?? 'unknown'}`);
  throw new OperatorError({
    code: 'conflict',
    reason: 'pull_request_failed',
    message: `gh could not create the pull request: ${said}. Check that \`gh pr create\` works from a terminal in ${projectPath}, then try again.`,
  });
}

function findGh(env: Environment): string | null {
  try {
    return resolveExecutable('gh', env, '/');
  } catch {
    return null;
  }
}

function lastUrl(output: string): string | undefined {
  return output.match(/https?:\/\/\S+/g)?.at(-1);
}

interface GhResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function runGh(gh: string, args: string[], options: { env: Environment; cwd?: string; timeoutMs: number }): Promise<GhResult> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env)) if (value !== undefined) env[name] = value;
  // Never a prompt nobody will answer, nor an update notice or colour codes in what is parsed.
  Object.assign(env, { GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1', GIT_TERMINAL_PROMPT: '0' });
  return new Promise((resolve) => {
    const child = execFile(
      gh,
      args,
      { cwd: options.cwd ?? '/', env, timeout: options.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ exitCode, stdout, stderr, timedOut: Boolean(error?.killed) });
      },
    );
    child.stdin?.end();
  });
}
