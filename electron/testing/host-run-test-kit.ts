import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { RunDetail } from '../../shared/entities';
import { openRunTestBed, type RunTestBed } from './run-test-kit';
import { remoteTestUser, type SshTestServer } from './ssh-test-server';

/**
 * What the tests of runs on an SSH host share (issue 28): a console whose operator has the test
 * server's ssh config and agent, with the host tested and a sandboxed environment on it; where a run's
 * files are on the host; the remote account's processes of a run; and the removal, after each test,
 * of what its runs left there. `user` is the remote account (the server's default one, or root).
 */

export const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

export const remoteHome = (user = remoteTestUser) => execFileSync('getent', ['passwd', user], { encoding: 'utf8' }).split(':')[5]!;
export const remoteRunDir = (runId: string, user = remoteTestUser) => path.join(remoteHome(user), '.operator-console', 'runs', runId);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms`);
    await sleep(25);
  }
}

export function waitForEnd(bed: RunTestBed, runId: string, timeoutMs = 60_000): Promise<RunDetail> {
  return bed.waitForRun(runId, ended, timeoutMs);
}

/** The remote account's processes that belong to the run: its id in their command line or working folder (other tests share the account). */
export function remoteProcessesOf(runId: string, user = remoteTestUser): string[] {
  let listed: string;
  try {
    listed = execFileSync('pgrep', ['-a', '-u', user], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return listed
    .split('\n')
    .filter((line) => line.trim())
    .filter((line) => {
      const pid = line.split(' ')[0]!;
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // Gone meanwhile.
      }
      return line.includes(runId) || cwd.includes(runId);
    });
}

/** The consoles a test opened, closed after it with what their runs left on the host. */
export function hostRunBeds(user = remoteTestUser) {
  const beds: RunTestBed[] = [];
  return {
    beds,
    /** What the runs left on the host (Clean up's work, tested on its own) goes with the test: a run the closing console left running there (as it does), then its folder. */
    closeAll: async (): Promise<void> => {
      for (const bed of beds.splice(0)) {
        const runIds = bed.core.ledger.runs.withStatus(['succeeded', 'failed', 'cancelled', 'stranded', 'running', 'preparing', 'setting_up']).map((row) => row.id);
        await bed.close();
        for (const runId of runIds) {
          for (const line of remoteProcessesOf(runId, user)) {
            try {
              process.kill(Number(line.split(' ')[0]), 'SIGKILL');
            } catch {
              // Gone meanwhile.
            }
          }
          rmSync(remoteRunDir(runId, user), { recursive: true, force: true });
        }
      }
    },
  };
}

/** A console whose operator has the test server's ssh config and agent, with the host (`alias`) tested, and a sandboxed environment on it. */
export async function consoleOnHost(server: SshTestServer, beds: RunTestBed[], options: { networkMode?: 'none' | 'open' | 'provider-only'; allowedHosts?: string[]; alias?: string } = {}) {
  const bed = await openRunTestBed({ operatorEnv: { ...process.env, OPERATOR_CONSOLE_SSH_CONFIG: server.configFile, ...server.env } });
  beds.push(bed);
  const host = await bed.call('addHost', { name: options.alias ?? server.alias });
  const test = await bed.call('testHost', { hostId: host.id });
  expect(test.outcome).toBe('ready');
  const environment = await bed.call('createEnvironment', { name: 'On the test box', kind: 'sandboxed', networkMode: options.networkMode ?? 'none', ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}), hostId: host.id });
  const connection = await bed.call('createConnection', { name: 'Managed', provider: 'openai', method: 'api_key', secret: 'sk-remote-test-KEY-0123456789abcdef', ownership: 'shared', agentScope: 'all' });
  const agent = async (args: string[], extra: Record<string, unknown> = {}) => {
    const created = await bed.createAgent(args, { environmentId: environment.id, homeMode: 'isolated', ...extra });
    await bed.call('setAgentConnection', { agentId: created.id, connectionId: connection.id });
    return created;
  };
  const run = async (agentId: string) => {
    const task = await bed.createTask();
    return (await bed.call('startRun', { taskId: task.id, agentId })).id;
  };
  const output = (runId: string) => Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes);
  return { bed, host, test, environment, agent, run, output };
}

/** The spool of one of the run's attempts as the host has it: its only attempt's, or the one `which` picks of its folders there. */
export function spoolOf(runId: string, options: { user?: string; which?: (folder: string) => boolean } = {}): Buffer {
  const attempts = path.join(remoteRunDir(runId, options.user), 'attempts');
  const folders = readdirSync(attempts).filter(options.which ?? (() => true));
  if (folders.length !== 1) throw new Error(`expected one attempt folder, found ${folders.join(', ')}`);
  return readFileSync(path.join(attempts, folders[0]!, 'spool'));
}
