import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChannelInput, ChannelName, ChannelOutput } from '../../shared/contract';
import type { Agent, RunDetail, Task } from '../../shared/entities';
import type { SecretVault } from '../connections/secret-vault';
import { createCore, type Core, type CoreOptions } from '../core';
import { createMemoryLogger } from '../platform/log';
import { callCore } from './core-call';
import { fixtureAgentPath } from './output-test-kit';
import { makeTempDir } from './temp-dir';

/** What the AI connection profiles print: the delivered key and home, and the files the CLI reads there. */
const showsDelivery = '--print-env CODEX_API_KEY --print-env CODEX_HOME --print-file $CODEX_HOME/auth.json --print-file $CODEX_HOME/config.toml';

/**
 * A console core on a temp data dir with a small provider catalog for tests: the generic command
 * provider, whose programs are the fixture agent, with quick retries so retry paths run in a test.
 */
export const testCatalog = () => ({
  version: 2,
  providers: [
    {
      id: 'command',
      definition: 'command',
      connectionProviders: ['openai', 'custom'],
      profiles: [
        {
          id: 'fixture',
          label: 'Fixture agent, Codex-style JSON events',
          executable: fixtureAgentPath,
          argsTemplate: ['{prompt}'],
          eventFormat: 'codex-jsonl',
          maxAttempts: 3,
          retryBackoffBaseMs: 50,
          stopGraceMs: 1500,
        },
        {
          // The program the agent names (its executable path), as the default catalog's program profiles run it.
          id: 'program',
          label: 'The agent’s own program',
          argsTemplate: ['{prompt}'],
          eventFormat: 'codex-jsonl',
          maxAttempts: 1,
          retryBackoffBaseMs: 50,
          stopGraceMs: 1500,
        },
      ],
    },
    {
      // The fixture standing in for Codex CLI (`fixture-agent exec …`): the real Codex definition builds
      // its argv, its JSON stream names the thread, and resume passes `resume <thread_id>`.
      id: 'fixture-codex',
      displayName: 'Fixture Codex',
      definition: 'codex',
      executable: fixtureAgentPath,
      connectionProviders: ['openai', 'custom'],
      models: [
        { id: 'model-a', label: 'Model A' },
        { id: 'model-b', label: 'Model B' },
      ],
      profiles: [
        { id: 'default', label: 'Default', env: { FIXTURE_AGENT_FLAGS: '--lines 2' }, maxAttempts: 2, retryBackoffBaseMs: 50, stopGraceMs: 1500 },
        // For AI connection tests: prints the delivered key (which the console must redact) and its
        // home, then holds on long enough for a test to look at the delivered files, or fails, or waits.
        {
          id: 'shows-key',
          label: 'Shows its key',
          env: { FIXTURE_AGENT_FLAGS: `${showsDelivery} --sleep-ms 1200` },
          maxAttempts: 1,
          retryBackoffBaseMs: 50,
          stopGraceMs: 1500,
        },
        { id: 'fails', label: 'Fails', env: { FIXTURE_AGENT_FLAGS: `${showsDelivery} --sleep-ms 600 --exit-code 3` }, maxAttempts: 1, retryBackoffBaseMs: 50, stopGraceMs: 1500 },
        // For the attack tests: runs the project's .agent/attack.sh (the test commits it), two attempts.
        { id: 'attacker', label: 'Attacker', env: { FIXTURE_AGENT_FLAGS: '--print-file $CODEX_HOME/auth.json --shell-file .agent/attack.sh' }, maxAttempts: 2, retryBackoffBaseMs: 50, stopGraceMs: 1500 },
        { id: 'waits', label: 'Waits', env: { FIXTURE_AGENT_FLAGS: `${showsDelivery} --sleep-ms 60000` }, maxAttempts: 1, retryBackoffBaseMs: 50, stopGraceMs: 1500 },
      ],
    },
    {
      // Standing in for Pi (agents set a script as the executable): the real Pi definition names the
      // session file on the command line, while the stream reports an id of its own.
      id: 'fixture-pi',
      displayName: 'Fixture Pi',
      definition: 'pi',
      connectionProviders: ['custom'],
      models: [{ id: 'model-a', label: 'Model A' }],
      profiles: [{ id: 'default', label: 'Default', maxAttempts: 1, retryBackoffBaseMs: 50, stopGraceMs: 1500 }],
    },
  ],
});

export interface RunTestBed {
  core: Core;
  dataDir: string;
  projectDir: string;
  projectId: string;
  log: ReturnType<typeof createMemoryLogger>;
  /** A request as a transport makes it, typed by the contract (the answer is the channel's output). */
  call<C extends ChannelName>(channel: C, input?: ChannelInput<C>): Promise<ChannelOutput<C>>;
  createAgent(args: string[], extra?: Record<string, unknown>): Promise<Agent>;
  createTask(title?: string): Promise<Task>;
  waitForRun(runId: string, done: (run: RunDetail) => boolean, timeoutMs?: number): Promise<RunDetail>;
  /** The console restarts: this core closes (its runs stopped where they are) and a new one opens the same data dir. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export function gitInit(dir: string): void {
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.invalid', '-c', 'user.name=Test', ...args], { cwd: dir });
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'README.md'), '# project\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
}

export interface RunTestBedOptions {
  dataDir?: string;
  /** The secret vault the core seals AI connection secrets with (tests wrap one to count decrypts). */
  vault?: (dataDir: string) => SecretVault;
  /** The operator's home as runs see it (a fixture's, with planted secrets); default this user's. */
  operatorHome?: string;
  /** The operator's environment (where the console looks for `gh`, say); default this process's. */
  operatorEnv?: NodeJS.ProcessEnv;
  /** The console's clock (a budget test's, set just before midnight); default Date.now. */
  now?: () => number;
  /** The disk rule's threshold, how often a Disk full notice looks at free space, how long failing output writes are retried. */
  disk?: Pick<CoreOptions, 'minFreeDiskBytes' | 'diskCheckIntervalMs' | 'outputGiveUpAfterMs'>;
}

export async function openRunTestBed(options: RunTestBedOptions = {}): Promise<RunTestBed> {
  const data = options.dataDir ? { path: options.dataDir, remove: () => {} } : makeTempDir('oc-runs-data-');
  const project = makeTempDir('oc-runs-project-');
  gitInit(project.path);
  const catalogPath = path.join(data.path, 'test-catalog.json');
  writeFileSync(catalogPath, JSON.stringify(testCatalog()));
  const log = createMemoryLogger();
  const openCore = () =>
    createCore({
      dataDir: data.path,
      transport: 'browser',
      appVersion: 'test',
      log,
      catalogPath,
      vault: options.vault?.(data.path),
      ...(options.operatorHome ? { operatorHome: options.operatorHome } : {}),
      ...(options.operatorEnv ? { operatorEnv: options.operatorEnv } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...options.disk,
    });
  let core = openCore();
  const call = <C extends ChannelName>(channel: C, input?: ChannelInput<C>) => callCore(core, channel, input);
  const projectId = (await call('addProject', { path: project.path })).id;
  let agents = 0;
  const bed: RunTestBed = {
    core,
    dataDir: data.path,
    projectDir: project.path,
    projectId,
    log,
    call,
    createAgent: (args, extra = {}) =>
      call('createAgent', {
        name: `fixture ${++agents}`,
        providerId: 'command',
        model: 'fixture-model',
        profileId: 'fixture',
        executablePath: fixtureAgentPath,
        commandArgs: args,
        ...extra,
      }),
    createTask: (title = 'Write the plan') => call('createTask', { projectId, title, prompt: 'Write notes/plan.md' }),
    waitForRun: async (runId, done, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await call('getRun', { runId });
        if (done(run)) return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} did not get there in ${timeoutMs} ms; it is ${run.status}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    restart: async () => {
      await core.close();
      core = openCore();
      bed.core = core;
    },
    close: async () => {
      await core.close();
      data.remove();
      project.remove();
    },
  };
  return bed;
}

/** The item a test expects to be there (an attempt, an event): fails the test, with `what`, when it is not. */
export function present<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to be there`);
  return value;
}

/** A timestamp the test expects to be set, in epoch milliseconds. */
export function timeOf(iso: string | null | undefined, what = 'time'): number {
  return Date.parse(present(iso, what));
}
