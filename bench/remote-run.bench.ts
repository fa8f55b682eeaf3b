/**
 * Runs on an SSH host (issue 28): what following a run over ssh costs, against what ssh itself does
 * with the same bytes. A real OpenSSH server on 127.0.0.1 (electron/testing/ssh-test-server.ts, the
 * remote another user account), real bubblewrap there, the fixture agent, the console's own steps.
 *
 *   npm run bench:remote-run          (OC_BENCH_MIB=64 OC_BENCH_ROUNDS=3 to change them; needs root, as the ssh tests do)
 *
 * Figures, medians over the rounds:
 *   - live: a sandboxed run on the host floods its PTY; its bytes per second from the first to the
 *     last one stored in the console's ledger (the agent's own pace on the host bounds it);
 *   - follow: the same attempt's spool read again from byte 0 by the console's reader (ssh + the
 *     supervisor's attach, framed, into the session's listeners), against `ssh host cat` of the spool;
 *   - keystroke to screen: a key sent to an echoing agent until its echo is in the ledger, on the host
 *     and, for comparison, in the same sandbox on this machine.
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, bench, describe } from 'vitest';
import { RemoteSession } from '../electron/hosts/remote-run/remote-session';
import { remoteRunLayout } from '../electron/hosts/remote-run/remote-supervisor';
import { sshArgv } from '../electron/hosts/remote-run/host-connection';
import { openRunTestBed, type RunTestBed } from '../electron/testing/run-test-kit';
import { remoteTestUser, startSshTestServer } from '../electron/testing/ssh-test-server';
import { machine, median, percentile } from './support/console-output-path';

const mib = Number(process.env.OC_BENCH_MIB ?? 64);
const rounds = Number(process.env.OC_BENCH_ROUNDS ?? 3);
const keystrokes = 40;

const server = await startSshTestServer();
appendFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
const remoteHome = execFileSync('getent', ['passwd', remoteTestUser], { encoding: 'utf8' }).split(':')[5]!;

const results = { live: [] as number[], follow: [] as number[], cat: [] as number[], remoteKeys: [] as number[][], localKeys: [] as number[][] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function openBed() {
  const bed = await openRunTestBed({ operatorEnv: { ...process.env, OPERATOR_CONSOLE_SSH_CONFIG: server.configFile, ...server.env } });
  const host = await bed.call('addHost', { name: server.alias });
  if ((await bed.call('testHost', { hostId: host.id })).outcome !== 'ready') throw new Error('the test host is not ready');
  const onHost = await bed.call('createEnvironment', { name: 'Host', kind: 'sandboxed', networkMode: 'none', hostId: host.id });
  const here = await bed.call('createEnvironment', { name: 'Here', kind: 'sandboxed', networkMode: 'none' });
  const connection = await bed.call('createConnection', { name: 'Managed', provider: 'openai', method: 'api_key', secret: 'sk-bench-KEY-0123456789abcdef', ownership: 'shared', agentScope: 'all' });
  const agent = async (environmentId: string, args: string[]) => {
    const created = await bed.createAgent(args, { environmentId, homeMode: 'isolated' });
    await bed.call('setAgentConnection', { agentId: created.id, connectionId: connection.id });
    return created.id;
  };
  const run = async (agentId: string) => (await bed.call('startRun', { taskId: (await bed.createTask()).id, agentId })).id;
  return { bed, host, onHost, here, agent, run };
}

async function ended(bed: RunTestBed, runId: string): Promise<void> {
  await bed.waitForRun(runId, (run) => ['succeeded', 'failed', 'cancelled', 'stranded'].includes(run.status), 300_000);
}

/** Bytes per second from the first stored byte to the last, polling the ledger every millisecond. */
async function liveRate(bed: RunTestBed, runId: string): Promise<number> {
  let first = 0;
  let last = 0;
  let bytes = 0;
  for (;;) {
    const total = bed.core.ledger.output.totalBytes(runId);
    if (total > bytes) {
      if (bytes === 0) first = performance.now();
      bytes = total;
      last = performance.now();
    }
    const status = (await bed.call('getRun', { runId })).status;
    if (status !== 'running' && status !== 'preparing' && status !== 'admitted' && status !== 'queued') break;
    await sleep(1);
  }
  return bed.core.ledger.output.totalBytes(runId) / ((last - first) / 1000);
}

async function keystrokeLatencies(bed: RunTestBed, runId: string): Promise<number[]> {
  const text = () => Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes).toString('utf8');
  while (!text().includes('ready')) await sleep(5);
  const latencies: number[] = [];
  for (let key = 0; key < keystrokes; key += 1) {
    const started = performance.now();
    await bed.call('sendRunInput', { runId, data: `k${key}\r` });
    while (!text().includes(`got: k${key}\r`)) await sleep(1);
    latencies.push(performance.now() - started);
  }
  await bed.call('sendRunInput', { runId, data: 'quit\r' });
  await ended(bed, runId);
  return latencies;
}

/** Reads a finished attempt's spool again from byte 0 through the console's reader; bytes per second. */
async function followRate(connectionOf: () => Promise<Parameters<typeof remoteRunLayout>[0]>, runId: string, attemptId: string, bytes: number): Promise<number> {
  const connection = await connectionOf();
  const layout = remoteRunLayout(connection, runId);
  const started = performance.now();
  const session = new RemoteSession({ connection, layout, attemptId, pid: 0, executablePath: 'bench' });
  let received = 0;
  session.onData((chunk) => (received += chunk.length));
  await new Promise<void>((resolve) => session.onExit(() => resolve()));
  if (received !== bytes) throw new Error(`the reader got ${received} bytes of ${bytes}`);
  return bytes / ((performance.now() - started) / 1000);
}

/** `ssh host cat SPOOL`: the same bytes over the same ssh, read and dropped. */
async function catRate(connectionOf: () => Promise<Parameters<typeof remoteRunLayout>[0]>, spool: string, bytes: number): Promise<number> {
  const connection = await connectionOf();
  const started = performance.now();
  const child = spawn(connection.settings.program, sshArgv(connection, ['cat', spool]), { env: connection.settings.env, stdio: ['ignore', 'pipe', 'ignore'] });
  let received = 0;
  child.stdout.on('data', (chunk: Buffer) => (received += chunk.length));
  await new Promise((resolve) => child.on('close', resolve));
  if (received !== bytes) throw new Error(`cat gave ${received} bytes of ${bytes}`);
  return bytes / ((performance.now() - started) / 1000);
}

describe(`a run on an SSH host: ${mib} MiB, ${rounds} rounds`, () => {
  bench(
    'live output, following the spool against ssh cat, and keystroke to screen',
    async () => {
      for (let round = 0; round < rounds; round += 1) {
        const c = await openBed();
        try {
          const { HostService } = await import('../electron/hosts/host-service');
          const hosts = new HostService({ ledger: c.bed.core.ledger, events: c.bed.core.events, log: c.bed.log, dataDir: c.bed.dataDir, operatorEnv: { ...process.env, ...server.env }, sshConfigFile: server.configFile });
          const connectionOf = () => hosts.connection(c.host.id);
          const flood = await c.run(await c.agent(c.onHost.id, ['--flood-bytes', String(mib * 2 ** 20)]));
          results.live.push(await liveRate(c.bed, flood));
          await ended(c.bed, flood);
          const attempts = path.join(remoteHome, '.operator-console', 'runs', flood, 'attempts');
          const attemptId = readdirSync(attempts)[0]!;
          const spool = path.join(attempts, attemptId, 'spool');
          const bytes = statSync(spool).size;
          results.follow.push(await followRate(connectionOf, flood, attemptId, bytes));
          results.cat.push(await catRate(connectionOf, spool, bytes));
          results.remoteKeys.push(await keystrokeLatencies(c.bed, await c.run(await c.agent(c.onHost.id, ['--echo-input']))));
          results.localKeys.push(await keystrokeLatencies(c.bed, await c.run(await c.agent(c.here.id, ['--echo-input']))));
          execFileSync('rm', ['-rf', path.join(remoteHome, '.operator-console', 'runs')]);
        } finally {
          await c.bed.close();
        }
      }
    },
    { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 },
  );
});

afterAll(async () => {
  await server.stop();
  const rate = (values: number[]) => `${median(values.map((value) => value / 2 ** 20)).toFixed(1)} MiB/s (${values.map((value) => (value / 2 ** 20).toFixed(1)).join(', ')})`;
  const keys = (perRound: number[][]) => {
    const p = (q: number) => median(perRound.map((values) => percentile(values, q))).toFixed(1);
    return `p50 ${p(50)}  p95 ${p(95)}  max ${p(100)} ms`;
  };
  console.log(`\nMeasured on ${machine()}; medians over ${rounds} rounds of ${mib} MiB (each round in brackets)`);
  console.log(`  live: host PTY → spool → ssh → ledger      ${rate(results.live)}`);
  console.log(`  follow: the spool again, console's reader  ${rate(results.follow)}`);
  console.log(`  ssh host cat of the same spool             ${rate(results.cat)}`);
  console.log(`  keystroke → echo in the ledger, on the host   ${keys(results.remoteKeys)}  (${keystrokes} keys a round)`);
  console.log(`  keystroke → echo in the ledger, this machine  ${keys(results.localKeys)}`);
});
