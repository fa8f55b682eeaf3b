import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AiConnection, Agent, RunDetail, RunDiff, RunEvent, RunSummary } from '../../shared/entities';
import { createCore, type Core } from '../../electron/core';
import { createClientChannel } from '../../electron/events/client-channel';
import { createMemoryLogger } from '../../electron/platform/log';
import { isProcessGroupAlive, signalProcessGroup } from '../../electron/platform/process-group';
import type { ModelServer, StartModelServerOptions } from './model-servers';
import { protocolFor, startModelServer } from './model-servers';
import type { AgentProviderId } from './run-cli';
import { agentsBinDir, agentsPackageDir, connectionProviderFor, providerEntry } from './run-cli';

/**
 * The four real CLIs THROUGH THE CONSOLE (issue 6): a real core (createCore: ledger file, run service,
 * PTYs, admission, confinement, the egress proxy and relay, credential delivery, redaction) on a data
 * directory of its own, with a git project, an agent whose executable is the pinned CLI in
 * e2e/agents/node_modules/.bin, and the scripted model server of the CLI's wire protocol. The test
 * talks to the core only through its request channels (`call`), as the renderer does.
 *
 * The operator is simulated too: `operatorHome` is a temporary folder standing in for the operator's
 * real home, and `operatorEnv` the console's own environment (an allow-list of it reaches the runs;
 * it also holds planted provider keys, which must never reach a CLI or the model server).
 */

/** Where the data directories go: not /tmp, so Codex's own sandbox (environment `local`) can set itself up. */
export const consoleWorkDir = path.join(agentsPackageDir, '.work');

export const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

/** The key an AI connection holds: unique per CLI and per bed, so a leak names where it came from. */
export function consoleApiKey(providerId: string): string {
  return `sk-console-${providerId}-${Math.random().toString(36).slice(2, 10)}-${'e2ekey'.repeat(3)}`;
}

/** Keys planted in the console's own environment: a run must never see them. */
export const plantedOperatorKeys = {
  OPENAI_API_KEY: 'sk-operator-planted-openai-0000000000000000',
  ANTHROPIC_API_KEY: 'sk-ant-operator-planted-000000000000000000',
  GEMINI_API_KEY: 'AIza-operator-planted-0000000000000000000',
  CODEX_API_KEY: 'sk-operator-planted-codex-00000000000000000',
};

/** The catalog model each agent uses (Pi: one the preconfigured home can route to the local server). */
export const agentModelFor: Record<AgentProviderId, string> = {
  codex: 'gpt-6.2-sol',
  'claude-code': 'claude-sonnet-4-6',
  pi: 'openai/gpt-5.5',
  'gemini-cli': 'gemini-2.5-pro',
};

export interface ConsoleBedOptions {
  /**
   * `managed`: environment `env_sandboxed` (bubblewrap, network provider-only), isolated home, and an
   * AI connection to the local server bound to the agent. `preconfigured`: environment `env_local`,
   * the operator's own login (the home `setupOperatorHome` prepares), no AI connection.
   */
  mode: 'managed' | 'preconfigured';
  server?: StartModelServerOptions;
  /** Writes the CLI's own config into the stand-in operator home (preconfigured mode). */
  setupOperatorHome?: (home: string, context: { server: ModelServer; apiKey: string; model: string }) => void;
  profileId?: string;
}

export interface ConsoleBed {
  providerId: AgentProviderId;
  core: Core;
  dataDir: string;
  operatorHome: string;
  projectDir: string;
  server: ModelServer;
  apiKey: string;
  agent: Agent;
  connection: AiConnection | null;
  log: ReturnType<typeof createMemoryLogger>;
  call<T = unknown>(channel: string, input?: unknown): Promise<T>;
  /** A task whose prompt asks the model for `fileName` (the scripted server creates that file). */
  createTask(fileName: string): Promise<{ id: string; title: string; prompt: string }>;
  startRun(taskId: string): Promise<RunSummary>;
  getRun(runId: string): Promise<RunDetail>;
  /** Polls until `done`; fails after `timeoutMs` (then stops the run, so nothing outlives the test). */
  waitForRun(runId: string, done?: (run: RunDetail) => boolean, timeoutMs?: number): Promise<RunDetail>;
  events(runId: string): Promise<RunEvent[]>;
  diff(runId: string): Promise<RunDiff>;
  /** The run's PTY output as the ledger holds it. */
  output(runId: string): string;
  /**
   * Opens the run's live output stream as a viewer does (openRunOutput from the start, acknowledging
   * what it got), noting the run's status as each piece arrives.
   */
  watchOutput(runId: string, probe?: () => number): Promise<OutputWatch>;
  taskRoot(runId: string): { root: string; view: string; tmp: string; cache: string; home: string };
  /** The provider home inside the task's cache (CODEX_HOME, ...). */
  providerHome(runId: string): string;
  /** The ledger's bytes on disk: the SQLite file and its WAL. */
  ledgerBytes(): Buffer;
  /** A one-paragraph account of a run for assertion messages. */
  describe(runId: string): Promise<string>;
  /**
   * Stops what still runs, closes the core and the server, removes the folders. Resolves with the
   * process groups of the bed's runs that were still alive after the console closed (then killed):
   * the suite expects none.
   */
  close(): Promise<number[]>;
}

export interface OutputWatch {
  /** Each piece the viewer got: where, how big, the run's status and `probe()` at that moment. */
  pieces: Array<{ offset: number; bytes: number; runStatus: string | undefined; probe: number | null }>;
  text(): string;
  close(): void;
}

export async function openConsoleBed(providerId: AgentProviderId, options: ConsoleBedOptions): Promise<ConsoleBed> {
  mkdirSync(consoleWorkDir, { recursive: true });
  const dataDir = mkdtempSync(path.join(consoleWorkDir, `console-${providerId}-`));
  const operatorHome = mkdtempSync(path.join(os.tmpdir(), `e2e-operator-home-${providerId}-`));
  const projectDir = mkdtempSync(path.join(os.tmpdir(), `e2e-project-${providerId}-`));
  gitInit(projectDir);
  const apiKey = consoleApiKey(providerId);
  const model = agentModelFor[providerId];
  const server = await startModelServer(protocolFor[providerId], options.server ?? {});
  options.setupOperatorHome?.(operatorHome, { server, apiKey, model });

  const operatorEnv: NodeJS.ProcessEnv = {
    // The CLIs are Node programs (`#!/usr/bin/env node`), or a native binary behind one (Codex).
    PATH: [agentsBinDir, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter),
    HOME: operatorHome,
    LANG: process.env.LANG ?? 'C.UTF-8',
    USER: process.env.USER ?? 'operator',
    LOGNAME: process.env.LOGNAME ?? 'operator',
    SHELL: '/bin/bash',
    TERM: 'xterm-256color',
    ...plantedOperatorKeys,
  };
  const log = createMemoryLogger();
  const core = createCore({ dataDir, transport: 'browser', appVersion: 'e2e-agents', log, operatorEnv, operatorHome });
  const call = async <T>(channel: string, input?: unknown): Promise<T> => {
    const answer = await core.dispatch(channel, input, { transport: 'browser' });
    if (!answer.ok) throw Object.assign(new Error(`${channel}: ${answer.error.code}: ${answer.error.message}`), answer.error);
    return answer.value as T;
  };

  const project = await call<{ id: string }>('addProject', { path: projectDir });
  const provider = providerEntry(providerId);
  const managed = options.mode === 'managed';
  const agent = await call<Agent>('createAgent', {
    name: `${provider.displayName} (${options.mode})`,
    providerId,
    model,
    profileId: options.profileId ?? provider.profiles[0]?.id ?? 'default',
    environmentId: managed ? 'env_sandboxed' : 'env_local',
    homeMode: managed ? 'isolated' : 'preconfigured',
    executablePath: path.join(agentsBinDir, provider.executable ?? providerId),
  });
  let connection: AiConnection | null = null;
  if (managed) {
    connection = await call<AiConnection>('createConnection', {
      name: `Local ${protocolFor[providerId]} server`,
      provider: connectionProviderFor[providerId],
      method: 'api_key',
      secret: apiKey,
      baseUrl: server.baseUrl,
      ownership: 'shared',
      agentScope: 'all',
    });
    await call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
  }

  const taskRootOf = (runId: string) => {
    const root = path.join(dataDir, 'tasks', runId);
    return { root, view: path.join(root, 'view'), tmp: path.join(root, 'tmp'), cache: path.join(root, 'cache'), home: path.join(root, 'home') };
  };
  const output = (runId: string) => {
    const total = core.ledger.output.totalBytes(runId);
    return Buffer.from(core.ledger.output.read(runId, 0, total).bytes).toString('utf8');
  };
  const events = async (runId: string) => {
    const all: RunEvent[] = [];
    let afterId = 0;
    for (;;) {
      const page = await call<{ events: RunEvent[]; lastId: number }>('listRunEvents', { runId, afterId, limit: 1000 });
      all.push(...page.events);
      if (page.events.length < 1000) return all;
      afterId = page.lastId;
    }
  };
  const getRun = (runId: string) => call<RunDetail>('getRun', { runId });

  const bed: ConsoleBed = {
    providerId,
    core,
    dataDir,
    operatorHome,
    projectDir,
    server,
    apiKey,
    agent,
    connection,
    log,
    call,
    createTask: (fileName) =>
      call('createTask', {
        projectId: project.id,
        title: `Create ${fileName}`,
        prompt: `Please create the file ${fileName} with a greeting.`,
      }),
    startRun: (taskId) => call<RunSummary>('startRun', { taskId, agentId: agent.id }),
    getRun,
    waitForRun: async (runId, done = ended, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await getRun(runId);
        if (done(run)) return run;
        if (Date.now() > deadline) {
          const account = await bed.describe(runId);
          if (!ended(run)) await call('stopRun', { runId }).catch(() => undefined);
          throw new Error(`run ${runId} did not get there in ${timeoutMs} ms; it is ${run.status}\n${account}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    events,
    watchOutput: async (runId, probe) => {
      const pieces: OutputWatch['pieces'] = [];
      const received: Buffer[] = [];
      const client = createClientChannel((event, payload) => {
        if (event !== 'runOutput') return;
        const output = payload as { subscriptionId: string; offset: number; bytes: Uint8Array };
        pieces.push({ offset: output.offset, bytes: output.bytes.byteLength, runStatus: core.ledger.runs.row(runId)?.status, probe: probe ? probe() : null });
        received.push(Buffer.from(output.bytes));
        // Acknowledged at once, as a terminal that keeps up does.
        void core.dispatch('ackRunOutput', { subscriptionId: output.subscriptionId, bytes: output.bytes.byteLength }, { transport: 'browser', client });
      });
      const answer = await core.dispatch('openRunOutput', { runId, from: 'start' }, { transport: 'browser', client });
      if (!answer.ok) throw new Error(`openRunOutput: ${answer.error.message}`);
      return { pieces, text: () => Buffer.concat(received).toString('utf8'), close: () => client.close() };
    },
    diff: (runId) => call<RunDiff>('getRunDiff', { runId }),
    output,
    taskRoot: taskRootOf,
    providerHome: (runId) => path.join(taskRootOf(runId).cache, provider.definition.home?.folder ?? ''),
    ledgerBytes: () => {
      const files = [core.ledger.file, `${core.ledger.file}-wal`, `${core.ledger.file}-shm`].filter((file) => existsSync(file));
      return Buffer.concat(files.map((file) => readFileSync(file)));
    },
    describe: async (runId) => {
      const run = await getRun(runId);
      const timeline = await events(runId);
      return [
        `status ${run.status}; failure ${JSON.stringify(run.failure)}`,
        `attempts: ${run.attempts.map((attempt) => `#${attempt.number} ${attempt.status} ${attempt.failureCode ?? ''} exit ${attempt.exitCode}`).join('; ')}`,
        `requests: ${server.requests.map((request) => `${request.method} ${request.url} → ${JSON.stringify(request.outcome)}`).join('; ')}`,
        `timeline: ${timeline.map((event) => `${event.kind}${event.kind === 'egress' ? JSON.stringify(event.data) : ''}`).join(', ')}`,
        `output (tail): ${output(runId).slice(-3000)}`,
        `console log (warn+): ${JSON.stringify(log.lines.filter((line) => line.level === 'warn' || line.level === 'error')).slice(0, 2000)}`,
      ].join('\n');
    },
    close: async () => {
      // Whatever still runs or waits to retry is stopped first: nothing may outlive its test.
      const runs = (await call<{ runs: RunSummary[] }>('listRuns', { limit: 500 })).runs;
      for (const run of runs) {
        if (!ended(run)) await call('stopRun', { runId: run.id }).catch(() => undefined);
      }
      const groups = runs.flatMap((run) =>
        core.ledger.runs.locators(run.id).flatMap((locator) => (locator.kind === 'process' && typeof locator.data.pgid === 'number' ? [locator.data.pgid] : [])),
      );
      await core.close();
      await server.close();
      const leftovers = groups.filter((pgid) => isProcessGroupAlive(pgid));
      for (const pgid of leftovers) signalProcessGroup(pgid, 'SIGKILL');
      if (process.env.E2E_AGENTS_KEEP !== '1') {
        for (const dir of [dataDir, operatorHome, projectDir]) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      }
      return leftovers;
    },
  };
  return bed;
}

export function gitInit(dir: string): void {
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e2e@example.invalid', '-c', 'user.name=E2E', ...args], { cwd: dir });
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'README.md'), '# e2e project\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
}

/** Every entry under `dir` (files, links, and empty folders), relative to it; links are not followed. */
export function listTree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (current: string) => {
    const entries = readdirSync(current);
    if (entries.length === 0 && current !== dir) out.push(`${path.relative(dir, current)}/`);
    for (const entry of entries) {
      const full = path.join(current, entry);
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(full);
      else out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}
