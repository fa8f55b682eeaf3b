import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consoleOnHost as consoleOnTestHost } from '../../testing/host-run-test-kit';
import { openRunTestBed, type RunTestBed } from '../../testing/run-test-kit';
import { remoteTestUser, startSshTestServer, type SshTestServer } from '../../testing/ssh-test-server';

/**
 * A run on an SSH host brings its work back (issue 28), through the console's channels: the run's
 * code reached the host as a bundle, the agent committed one file and left another uncommitted there,
 * and once it ended the run's Changes show both, as for a local run; the operator commits what was
 * left and lands the run in the project.
 */

let server: SshTestServer;
beforeAll(async () => {
  server = await startSshTestServer();
  appendFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

const beds: RunTestBed[] = [];
const remoteHome = () => execFileSync('getent', ['passwd', remoteTestUser], { encoding: 'utf8' }).split(':')[5]!;
afterEach(async () => {
  for (const bed of beds.splice(0)) {
    const runIds = bed.core.ledger.runs.withStatus(['succeeded', 'failed', 'cancelled', 'running', 'preparing']).map((row) => row.id);
    await bed.close();
    for (const runId of runIds) rmSync(path.join(remoteHome(), '.operator-console', 'runs', runId), { recursive: true, force: true });
  }
});

const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

async function consoleOnHost() {
  const { bed, agent } = await consoleOnTestHost(server, beds);
  return { bed, agent };
}

describe('a run on an SSH host', () => {
  it('taken up again by a restarted console, brings back what its agent wrote after the restart', async () => {
    const { bed, agent } = await consoleOnHost();
    const created = await agent(['--lines', '40', '--delay-ms', '100', '--write-file', 'after-restart.txt', '--file-content', 'written while the console restarted\\n']);
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: created.id })).id;
    const output = () => Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes).toString('utf8');
    const deadline = Date.now() + 60_000;
    while (!output().includes('line 5 of 40') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    await bed.restart();
    const run = await bed.waitForRun(runId, ended, 90_000);
    expect(run.status, `${output()} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    const diff = await bed.call('getRunDiff', { runId });
    expect(diff.files.map((file) => `${file.status} ${file.path}`)).toEqual(['added after-restart.txt']);
  }, 150_000);

  it('whose work could not be brought back (its host unreachable once the agent ended) raises one notice, keeps its files on the host until the work is back, and Fetch the work again brings it', async () => {
    const { bed, agent } = await consoleOnHost();
    const created = await agent(['--write-file', 'left-on-host.txt', '--file-content', 'made on the host\\n', '--sleep-ms', '3000']);
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: created.id })).id;
    const output = () => Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes).toString('utf8');
    const deadline = Date.now() + 60_000;
    while (!output().includes('ready') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    // The agent goes on over the connection already open; the fetch after its end finds the host gone.
    await server.stopListening();
    try {
      const run = await bed.waitForRun(runId, ended, 60_000);
      expect(run.status, `${output()} ${JSON.stringify(run.failure)}`).toBe('succeeded');
      expect(run.hostWorkLeftSince).not.toBeNull();
      const notices = (await bed.call('listNotices', { runId })).filter((notice) => notice.kind === 'host_work_not_fetched');
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ status: 'open', code: 'ssh_failed', reason: 'unreachable' });
      expect(notices[0]!.message).toContain(`still on ${server.alias}`);
      expect((await bed.call('getRunDiff', { runId })).files).toEqual([]);

      // Nothing removes its files (here or on the host) without the operator's word that the work goes.
      const plan = await bed.call('planCleanup');
      expect(plan.candidates.find((candidate) => candidate.runId === runId)).toMatchObject({ workLeftOnHost: server.alias, freelyRemovable: false });
      const cleaned = await bed.call('cleanUpRuns', { runIds: [runId] });
      expect(cleaned.removed).toEqual([]);
      expect(cleaned.kept[0]?.reason).toContain(`still on ${server.alias}`);
      await expect(bed.call('archiveRun', { runId })).rejects.toMatchObject({ code: 'conflict', reason: 'host_work_not_fetched' });
      expect(existsSync(path.join(remoteHome(), '.operator-console', 'runs', runId, 'view', 'left-on-host.txt'))).toBe(true);

      // Still unreachable: the retry says why, and the one notice stays.
      await expect(bed.call('fetchRunWorkAgain', { runId })).rejects.toMatchObject({ code: 'ssh_failed' });
      expect((await bed.call('listNotices', { runId })).filter((notice) => notice.kind === 'host_work_not_fetched')).toHaveLength(1);
    } finally {
      await server.startListening();
    }

    const again = await bed.call('fetchRunWorkAgain', { runId });
    expect(again.alreadyBack).toBe(false);
    expect(again.run.hostWorkLeftSince).toBeNull();
    const diff = await bed.call('getRunDiff', { runId });
    expect(diff.files.map((file) => `${file.status} ${file.path}`)).toEqual(['added left-on-host.txt']);
    const [notice] = (await bed.call('listNotices', { runId })).filter((each) => each.kind === 'host_work_not_fetched');
    expect(notice).toMatchObject({ status: 'resolved' });
    expect((await bed.call('fetchRunWorkAgain', { runId })).alreadyBack).toBe(true);
    expect((await bed.call('planCleanup')).candidates.find((candidate) => candidate.runId === runId)?.workLeftOnHost).toBeNull();
  }, 150_000);

  it('brings its commits and what it left uncommitted back: its Changes show them, and it lands as a local run does', async () => {
    const bed = await openRunTestBed({ operatorEnv: { ...process.env, OPERATOR_CONSOLE_SSH_CONFIG: server.configFile, ...server.env } });
    beds.push(bed);
    execFileSync('git', ['config', 'user.name', 'Olga Operator'], { cwd: bed.projectDir });
    execFileSync('git', ['config', 'user.email', 'olga@example.invalid'], { cwd: bed.projectDir });
    const host = await bed.call('addHost', { name: server.alias });
    expect((await bed.call('testHost', { hostId: host.id })).outcome).toBe('ready');
    const environment = await bed.call('createEnvironment', { name: 'On the test box', kind: 'sandboxed', networkMode: 'none', hostId: host.id });
    // The agent, on the host: a commit of its own, then a file it leaves uncommitted.
    const agent = await bed.createAgent(
      [
        '--shell',
        'printf "committed on the host\\n" > feature.txt && git add feature.txt && git -c user.name=Agent -c user.email=agent@example.invalid commit -qm feature && git log --oneline -1',
        '--write-file',
        'notes.md',
        '--file-content',
        'left uncommitted\\n',
      ],
      { environmentId: environment.id, homeMode: 'isolated' },
    );
    const connection = await bed.call('createConnection', { name: 'Managed', provider: 'openai', method: 'api_key', secret: 'sk-remote-code-KEY-0123456789abcdef', ownership: 'shared', agentScope: 'all' });
    await bed.call('setAgentConnection', { agentId: agent.id, connectionId: connection.id });
    const task = await bed.createTask();
    const runId = (await bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
    const run = await bed.waitForRun(runId, ended, 90_000);
    const output = Buffer.from(bed.core.ledger.output.read(runId, 0, bed.core.ledger.output.totalBytes(runId)).bytes).toString('utf8');
    expect(run.status, `${output} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    expect(output).toContain('feature');

    const diff = await bed.call('getRunDiff', { runId });
    expect(diff.files.map((file) => `${file.status} ${file.path}`).sort()).toEqual(['added feature.txt', 'added notes.md']);

    // What the agent left uncommitted is committed by the operator, then the run lands in the project.
    const committed = await bed.call('commitRunChanges', { runId, message: 'Notes from the host run' });
    expect(committed.files).toEqual(['notes.md']);
    await bed.call('landRun', { runId, target: 'main', strategy: 'fast-forward' });
    expect(readFileSync(path.join(bed.projectDir, 'feature.txt'), 'utf8')).toBe('committed on the host\n');
    expect(readFileSync(path.join(bed.projectDir, 'notes.md'), 'utf8')).toBe('left uncommitted\n');
  }, 120_000);
});
