import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../../shared/entities';
import { openRunTestBed, type RunTestBed } from '../../testing/run-test-kit';
import { remoteTestUser, startSshTestServer, type SshTestServer } from '../../testing/ssh-test-server';

/**
 * Runs on an SSH host, end to end (issue 28): a real OpenSSH server on 127.0.0.1 whose remote is
 * another user account, real bubblewrap there, the fixture agent as the CLI. The run executes on
 * the host under the console's supervisor, confined as a local run is, and its output lands in the
 * ledger byte for byte, through a dropped connection too.
 */

let server: SshTestServer;
beforeAll(async () => {
  server = await startSshTestServer();
  // The operator's own known_hosts already trusts the server (as after Trust).
  appendFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

const beds: RunTestBed[] = [];
afterEach(async () => {
  for (const bed of beds.splice(0)) await bed.close();
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);
const remoteHome = () => execFileSync('getent', ['passwd', remoteTestUser], { encoding: 'utf8' }).split(':')[5]!;
const remoteRunDir = (runId: string) => path.join(remoteHome(), '.operator-console', 'runs', runId);

/** A console whose operator has the test server's ssh config and agent, with the host tested, and a sandboxed environment on it. */
async function consoleOnHost(networkMode: 'none' | 'open' = 'none') {
  const bed = await openRunTestBed({ operatorEnv: { ...process.env, OPERATOR_CONSOLE_SSH_CONFIG: server.configFile, ...server.env } });
  beds.push(bed);
  const host = await bed.call('addHost', { name: server.alias });
  const test = await bed.call('testHost', { hostId: host.id });
  expect(test.outcome).toBe('ready');
  const environment = await bed.call('createEnvironment', { name: 'On the test box', kind: 'sandboxed', networkMode, hostId: host.id });
  const connection = await bed.call('createConnection', { name: 'Managed', provider: 'openai', method: 'api_key', secret: 'sk-remote-test-KEY-0123456789abcdef', ownership: 'shared', agentScope: 'all' });
  const agent = async (args: string[]) => {
    const created = await bed.createAgent(args, { environmentId: environment.id, homeMode: 'isolated' });
    await bed.call('setAgentConnection', { agentId: created.id, connectionId: connection.id });
    return created;
  };
  const run = async (agentId: string) => {
    const task = await bed.createTask();
    return (await bed.call('startRun', { taskId: task.id, agentId })).id;
  };
  const output = (runId: string) => Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes);
  return { bed, host, environment, agent, run, output };
}

/** The spool of the run's only attempt, as the host has it. */
function spoolOf(runId: string): Buffer {
  const attempts = path.join(remoteRunDir(runId), 'attempts');
  const [attempt] = readdirSync(attempts);
  return readFileSync(path.join(attempts, attempt!, 'spool'));
}

/** The remote user's processes that belong to the run: its id in their command line or working folder (other tests share the account). */
function remoteProcessesOf(runId: string): string[] {
  let listed: string;
  try {
    listed = execFileSync('pgrep', ['-a', '-u', remoteTestUser], { encoding: 'utf8' });
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

async function waitForEnd(bed: RunTestBed, runId: string, timeoutMs = 60_000): Promise<RunDetail> {
  return bed.waitForRun(runId, ended, timeoutMs);
}

describe('a run on an SSH host', () => {
  it('executes there, in its own task root with the project’s code, and its output lands in the ledger byte for byte', async () => {
    const c = await consoleOnHost();
    const agent = await c.agent(['--print-file', 'README.md', '--print-env', 'HOME', '--lines', '30']);
    const runId = await c.run(agent.id);
    const run = await waitForEnd(c.bed, runId);
    const text = c.output(runId).toString('utf8');
    expect(run.status, `${text} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    expect(text).toContain('file README.md: ');
    expect(text).toContain('# project');
    expect(text).toContain(`HOME=${remoteRunDir(runId)}/home`);
    expect(text).toContain('line 30 of 30');
    expect(c.output(runId).equals(spoolOf(runId))).toBe(true);
    expect(remoteProcessesOf(runId)).toEqual([]);
  }, 90_000);
});

void createHash;
