import { promises as fs, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentCliVersion } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { buildConfinedEnvironment } from '../sandbox/confined-environment';
import { runTool } from '../sandbox/tool-sandbox';
import type { StoredAgent } from '../ledger/agents-repository';
import type { Logger } from '../platform/log';
import type { ProviderCatalog } from '../providers/catalog';
import type { ProviderDefinition } from '../providers/provider-definition';
import { resolveExecutable } from '../pty/pty-session';
import { resolveAgentLaunch } from './agent-profile';

/**
 * The agent page's "which version is installed": the agent's CLI run with `--version`, compared with
 * the version the CLI's definition was checked against (its testedVersion), read by its definition.
 *
 * It runs the way a run does, minus the task: an environment built from the allow-list (no operator
 * secrets, no AI connection), HOME, TMPDIR and the provider's home variable in a throwaway folder
 * (a CLI that writes state on start writes it there, not into the operator's home), stdin closed, its
 * own process group killed after 10 s. Answers are kept per executable file (path, size and mtime), so
 * opening the page again does not start the CLI again until it was reinstalled.
 */

export const cliVersionTimeoutMs = 10_000;
const maxOutputBytes = 64 * 1024;

export interface CliVersionOptions {
  catalog: ProviderCatalog;
  operatorEnv: NodeJS.ProcessEnv;
  log: Logger;
  timeoutMs?: number;
}

export class CliVersionService {
  private readonly cache = new Map<string, Promise<AgentCliVersion>>();

  constructor(private readonly options: CliVersionOptions) {}

  async forAgent(agent: StoredAgent): Promise<AgentCliVersion> {
    const { provider, profile } = resolveAgentLaunch(this.options.catalog, agent);
    const { definition } = provider;
    const testedVersion = definition.testedVersion;
    const name = definition.ownProgram ? 'The program' : provider.displayName;
    const executable = profile.executable ?? provider.executable;
    if (definition.ownProgram || !executable) {
      return { version: null, testedVersion, message: 'A command of your own has no tested version: the console does not run it to ask.' };
    }

    let file: string;
    try {
      // Found on the PATH a run gets (the operator's), as a run would find it.
      file = resolveExecutable(executable, { PATH: this.options.operatorEnv.PATH ?? '/usr/local/bin:/usr/bin:/bin' }, os.tmpdir());
    } catch (error) {
      const detail = error instanceof OperatorError ? error.message : String(error);
      return { version: null, testedVersion, message: `${name} was not found. ${detail}` };
    }
    const key = `${provider.id}\0${file}\0${fingerprint(file)}`;
    let answer = this.cache.get(key);
    if (!answer) {
      answer = this.run(provider.id, definition, name, file, profile.env);
      this.cache.set(key, answer);
      // A failure to run is not remembered: the operator may fix it and look again.
      void answer.then((result) => {
        if (result.version === null) this.cache.delete(key);
      });
    }
    return answer;
  }

  private async run(providerId: string, definition: ProviderDefinition, name: string, file: string, profileEnv: Record<string, string>): Promise<AgentCliVersion> {
    const { testedVersion, home } = definition;
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'operator-console-version-'));
    try {
      const paths = scratchPaths(root);
      for (const dir of [paths.tmp, paths.cache, paths.home]) await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const { env } = buildConfinedEnvironment({
        operatorEnv: this.options.operatorEnv,
        taskRoot: paths,
        providerHomeVar: home ? { name: home.variable, value: path.join(paths.cache, home.folder) } : null,
        profileEnv,
        extra: { NO_COLOR: '1' },
      });
      const result = await runBounded(file, ['--version'], { cwd: paths.view, env, timeoutMs: this.options.timeoutMs ?? cliVersionTimeoutMs });
      const version = definition.parseVersion(result.output);
      this.options.log.info('agent CLI version read', { providerId, file, version, exitCode: result.exitCode, timedOut: result.timedOut });
      return { version, testedVersion, message: describeVersion(name, file, version, testedVersion, result) };
    } finally {
      await fs.rm(root, { recursive: true, force: true, maxRetries: 3 });
    }
  }
}

function scratchPaths(root: string) {
  return { root, view: root, tmp: path.join(root, 'tmp'), cache: path.join(root, 'cache'), home: path.join(root, 'home') };
}

function fingerprint(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'unknown';
  }
}

interface BoundedResult {
  timeoutMs: number;
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  spawnError: string | null;
}

/** Runs a program bounded in time and output (sandbox/tool-sandbox.ts, without a sandbox: it is the operator's CLI). */
async function runBounded(file: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs: number }): Promise<BoundedResult> {
  const bounded = { timeoutMs: options.timeoutMs, spawnError: null };
  try {
    const result = await runTool(
      { kind: 'none' },
      { command: [file, ...args], env: options.env, readOnly: [], writable: [], hiddenPaths: [], operatorHome: '/', cwd: options.cwd, timeoutMs: options.timeoutMs, maxOutputBytes },
    );
    return { ...bounded, output: `${result.stdout.toString('utf8')}${result.stderr}`, exitCode: result.exitCode, timedOut: result.timedOut };
  } catch (error) {
    return { ...bounded, output: '', exitCode: null, timedOut: false, spawnError: error instanceof Error ? error.message : String(error) };
  }
}

function describeVersion(name: string, file: string, version: string | null, testedVersion: string | null, result: BoundedResult): string {
  if (version === null) {
    const firstLine = result.output.split(/\r?\n/).find((line) => line.trim() !== '')?.trim().slice(0, 200);
    if (result.spawnError) return `${name} could not be started (${file}): ${result.spawnError}`;
    if (result.timedOut) return `${name} did not answer \`--version\` within ${Math.round(result.timeoutMs / 100) / 10} s (${file}).`;
    return `${name} printed no version for \`--version\` (${file}, exit code ${result.exitCode ?? 'unknown'})${firstLine ? `: ${firstLine}` : '.'}`;
  }
  if (testedVersion === null) return `${name} ${version} (${file}).`;
  if (version === testedVersion) return `${name} ${version}: the version the console was tested with.`;
  const relation = compareVersions(version, testedVersion) > 0 ? 'newer than' : 'older than';
  return `${name} ${version} is ${relation} the version the console was tested with (${testedVersion}). Runs should work; if its flags or output changed, a run shows it.`;
}

function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split(/[.-]/).map((part) => Number.parseInt(part, 10));
  const left = parts(a);
  const right = parts(b);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] || 0) - (right[index] || 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
