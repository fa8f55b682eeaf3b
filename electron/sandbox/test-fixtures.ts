import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { probeSandbox } from './sandbox-probe';
import type { RunFileTools } from '../task-root/task-root-layout';

/**
 * Test fixtures for the confinement tests: a fake operator (home with planted secrets, a git project
 * and a second project under the home, the console's data directory under the home as on a real
 * Linux desktop), and helpers to run a command and to find processes by a marker in their argv.
 * Only tests import this file.
 */

export const plantedSshKey = 'PLANTED-SSH-PRIVATE-KEY';
export const plantedAwsSecret = 'PLANTED-AWS-SECRET';
export const otherProjectSecret = 'OTHER-PROJECT-SECRET';

export interface OperatorFixture {
  base: string;
  home: string;
  dataDir: string;
  project: string;
  otherProject: string;
  cleanup(): void;
}

/**
 * git as the operator, for setting up fixtures and looking at results. `safe.directory=*`: when the
 * suite runs as root, a sandboxed run's folders belong to nobody, and git rightly refuses another
 * user's repository unless told.
 */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Operator', '-c', 'user.email=operator@example.invalid', '-c', 'safe.directory=*', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...cleanGitEnv(), GIT_TERMINAL_PROMPT: '0' },
  }).trim();
}

function cleanGitEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GIT_')));
}

/**
 * Where fixtures live: outside /tmp on purpose. The sandbox hides /tmp as a whole, so a fake home
 * under it would be hidden even if the tmpfs over the home were removed, and the tests would prove
 * nothing about the home. `node_modules/.cache` is ignored by git and is where tools keep scratch.
 */
export function fixtureParent(): string {
  const parent = path.resolve('node_modules', '.cache', 'operator-console-tests');
  try {
    mkdirSync(parent, { recursive: true });
    return parent;
  } catch {
    return os.tmpdir();
  }
}

export function makeOperatorFixture(prefix = 'oc-confinement-'): OperatorFixture {
  const base = realpathSync(mkdtempSync(path.join(fixtureParent(), prefix)));
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), `${plantedSshKey}\n`, { mode: 0o600 });
  mkdirSync(path.join(home, '.aws'), { recursive: true });
  writeFileSync(path.join(home, '.aws', 'credentials'), `[default]\naws_secret_access_key = ${plantedAwsSecret}\n`, { mode: 0o600 });

  const dataDir = path.join(home, '.local', 'share', 'operator-console');
  mkdirSync(dataDir, { recursive: true });

  const project = path.join(home, 'src', 'project');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  git(project, 'init', '--quiet', '-b', 'main');
  writeFileSync(path.join(project, 'README.md'), '# Project\n\nThe original README.\n');
  writeFileSync(path.join(project, 'src', 'app.txt'), 'line one\nline two\nline three\n');
  writeFileSync(path.join(project, 'notes.txt'), 'first\nsecond\nthird\nfourth\nfifth\n');
  git(project, 'add', '-A');
  git(project, 'commit', '--quiet', '-m', 'initial');

  const otherProject = path.join(home, 'src', 'other');
  mkdirSync(otherProject, { recursive: true });
  writeFileSync(path.join(otherProject, 'secret.txt'), `${otherProjectSecret}\n`);

  return { base, home, dataDir, project, otherProject, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command (here: bwrap) with exactly `env`, bounded by `timeoutMs`. */
export function runCommand(file: string, args: string[], env: Record<string, string>, timeoutMs = 15_000): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not finish within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Host process ids whose argv contains `marker`. */
export function pidsWithMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (argv.includes(marker)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found.filter((pid) => pid !== process.pid);
}

export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * How the console's tools reach a run's files in these tests: the real probe's bubblewrap setup, as
 * the run's user (nobody when the suite runs as root and the run is sandboxed, else the console's).
 */
export async function fixtureTools(fixture: OperatorFixture, options: { sandboxed?: boolean } = {}): Promise<RunFileTools> {
  const probe = await probeSandbox({ stateDir: path.join(fixture.base, 'sandbox-state'), operatorHome: fixture.home });
  if (!probe.available || !probe.setup) throw new Error(`The sandbox these tests need is not available: ${probe.reason ?? 'no setup'}`);
  return {
    isolation: { kind: 'bubblewrap', setup: { ...probe.setup, user: options.sandboxed ? probe.setup.user : null } },
    operatorHome: fixture.home,
  };
}
