import { appendFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consoleOnHost, hostRunBeds, remoteHome, remoteProcessesOf, remoteRunDir, spoolOf, until, waitForEnd } from '../../testing/host-run-test-kit';
import { makeTempDir } from '../../testing/temp-dir';
import { startSshTestServer, type SshTestServer } from '../../testing/ssh-test-server';

/**
 * A project on an SSH host (issue 28): its setup command runs there, in the run's view, before the
 * agent, confined as the agent is, its output in the run's between the two "setup" lines, as a local
 * run's is (run-setup.test.ts); a project that is not a git repository is refused before anything
 * starts. Real sshd, real bubblewrap, the fixture agent.
 */

let server: SshTestServer;
beforeAll(async () => {
  server = await startSshTestServer();
  appendFileSync(server.operatorKnownHosts, `${server.knownHostsLine()}\n`);
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

const { beds, closeAll } = hostRunBeds();
afterEach(() => closeAll());

const storesOnHost = () => path.join(remoteHome(), '.operator-console', 'git-stores');
const attemptFolders = (runId: string) => readdirSync(path.join(remoteRunDir(runId), 'attempts'));

describe('a project’s setup command on an SSH host', () => {
  it('runs there in the view before the agent, which sees what it made, with its output between the setup lines', async () => {
    const c = await consoleOnHost(server, beds);
    // A file the project's copy patterns name (not in git): copied to the host's view, where setup reads it.
    writeFileSync(path.join(c.bed.projectDir, '.env.local'), 'FROM_PROJECT=copied\n');
    await c.bed.call('updateProjectSetup', {
      projectId: c.bed.projectId,
      copyPatterns: ['.env.local'],
      setupCommand: 'echo installing on $(hostname); cat .env.local; id -u > setup-made.txt; echo SETUP-DONE',
    });
    const agent = await c.agent(['--print-file', 'setup-made.txt', '--print-file', '.env.local', '--lines', '1']);
    const runId = await c.run(agent.id);
    const run = await waitForEnd(c.bed, runId);
    const text = c.output(runId).toString('utf8');
    expect(run.status, `${text} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    const opening = text.indexOf('── setup · echo installing on $(hostname); cat .env.local; ');
    const copied = text.indexOf('FROM_PROJECT=copied');
    const done = text.indexOf('SETUP-DONE\r');
    const closing = text.indexOf('── setup finished · the agent starts ──');
    const agentRead = text.indexOf('file setup-made.txt: ');
    expect(opening).toBeGreaterThanOrEqual(0);
    expect(copied).toBeGreaterThan(opening);
    expect(done).toBeGreaterThan(copied);
    expect(closing).toBeGreaterThan(done);
    expect(agentRead).toBeGreaterThan(closing);
    expect(text.indexOf('file .env.local: ')).toBeGreaterThan(closing);
    expect(run.setup?.setup).toMatchObject({ status: 'succeeded', exitCode: 0 });
    // It ran on the host, sandboxed (a user namespace: uid 0 inside, as the agent sees it), and in the host's view.
    expect(existsSync(path.join(remoteRunDir(runId), 'view', 'setup-made.txt'))).toBe(true);
    const setupSpool = spoolOf(runId, { which: (folder) => folder.endsWith('-setup') }).toString('utf8');
    expect(setupSpool).toContain('SETUP-DONE');
    // The work it made comes back with the agent's (bring-work-back.ts): the file is in the run's local view too.
    expect(existsSync(path.join(run.cwd!, 'setup-made.txt'))).toBe(true);
    expect(remoteProcessesOf(runId)).toEqual([]);
  }, 90_000);

  it('that fails ends the run failed with setup_failed, and the agent never starts there', async () => {
    const c = await consoleOnHost(server, beds);
    await c.bed.call('updateProjectSetup', { projectId: c.bed.projectId, setupCommand: 'echo "npm ERR! missing package" >&2; exit 7' });
    const agent = await c.agent(['--write-file', 'agent-ran.txt', '--lines', '1']);
    const runId = await c.run(agent.id);
    const run = await waitForEnd(c.bed, runId);
    const text = c.output(runId).toString('utf8');
    expect(run.status, text).toBe('failed');
    expect(run.failure).toMatchObject({ code: 'setup_failed', reason: 'setup_command_failed', actionUrl: `#/settings/projects/${c.bed.projectId}?field=setup-command` });
    expect(run.attempts).toMatchObject([{ number: 1, status: 'failed', failureCode: 'setup_failed', exitCode: 7 }]);
    expect(text).toContain('npm ERR! missing package');
    expect(text).toContain('── setup failed · exit code 7 · the agent does not start ──');
    expect(text).not.toContain('line 1 of 1');
    // Nothing of the agent on the host: no file of its, no attempt folder but the setup's.
    expect(existsSync(path.join(remoteRunDir(runId), 'view', 'agent-ran.txt'))).toBe(false);
    expect(attemptFolders(runId)).toEqual([expect.stringMatching(/-setup$/)]);
    const notices = await c.bed.call('listNotices', { runId });
    expect(notices).toMatchObject([{ kind: 'setup_command_failed', code: 'setup_failed', status: 'open' }]);
  }, 90_000);

  it('stops when the operator stops the run while it sets up, and nothing of it is left running on the host', async () => {
    const c = await consoleOnHost(server, beds);
    await c.bed.call('updateProjectSetup', { projectId: c.bed.projectId, setupCommand: 'echo waiting; sleep 120' });
    const agent = await c.agent(['--write-file', 'agent-ran.txt']);
    const runId = await c.run(agent.id);
    await c.bed.waitForRun(runId, (run) => run.status === 'setting_up' && c.output(runId).toString('utf8').includes('waiting'), 60_000);
    await until('the setup to run on the host', () => remoteProcessesOf(runId).some((line) => line.includes('sleep 120')));
    await c.bed.call('stopRun', { runId });
    const run = await waitForEnd(c.bed, runId, 30_000);
    expect(run.status).toBe('cancelled');
    expect(run.attempts).toMatchObject([{ status: 'cancelled', failureCode: 'cancelled' }]);
    expect(run.setup?.setup).toMatchObject({ status: 'cancelled' });
    expect(c.output(runId).toString('utf8')).toContain('── setup stopped · the agent does not start ──');
    expect(remoteProcessesOf(runId)).toEqual([]);
    expect(existsSync(path.join(remoteRunDir(runId), 'view', 'agent-ran.txt'))).toBe(false);
  }, 90_000);

  it('left setting up by a console that closed is stranded at the next start, and nothing of it is left on the host', async () => {
    const c = await consoleOnHost(server, beds);
    await c.bed.call('updateProjectSetup', { projectId: c.bed.projectId, setupCommand: 'echo waiting; sleep 120' });
    const agent = await c.agent(['--write-file', 'agent-ran.txt']);
    const runId = await c.run(agent.id);
    await c.bed.waitForRun(runId, (run) => run.status === 'setting_up' && c.output(runId).toString('utf8').includes('waiting'), 60_000);
    await until('the setup to run on the host', () => remoteProcessesOf(runId).some((line) => line.includes('sleep 120')));
    await c.bed.restart();
    const run = await waitForEnd(c.bed, runId, 30_000);
    expect(run.status).toBe('stranded');
    expect(run.attempts).toMatchObject([{ status: 'stranded' }]);
    await until('nothing of the run on the host', () => remoteProcessesOf(runId).length === 0, 15_000);
    expect(existsSync(path.join(remoteRunDir(runId), 'view', 'agent-ran.txt'))).toBe(false);
  }, 90_000);
});

describe('a project that is not a git repository, on an SSH host', () => {
  it('is refused at admission with one notice saying what to do, and nothing is made here or on the host', async () => {
    const c = await consoleOnHost(server, beds);
    const folder = makeTempDir('oc-plain-project-');
    try {
      writeFileSync(path.join(folder.path, 'notes.txt'), 'not under git\n');
      const project = await c.bed.call('addProject', { path: folder.path, name: 'Plain folder' });
      expect(project.isGitRepo).toBe(false);
      const task = await c.bed.call('createTask', { projectId: project.id, title: 'Tidy the notes', prompt: 'Tidy notes.txt' });
      const agent = await c.agent(['--lines', '1']);
      const storesBefore = existsSync(storesOnHost()) ? readdirSync(storesOnHost()) : [];
      const runId = (await c.bed.call('startRun', { taskId: task.id, agentId: agent.id })).id;
      const run = await c.bed.call('getRun', { runId });
      expect(run.status).toBe('refused');
      expect(run.failure).toMatchObject({ code: 'configuration_incomplete', reason: 'host_unready', actionUrl: `#/agents/${agent.id}` });
      expect(run.failure?.message).toContain('the project “Plain folder”');
      expect(run.failure?.message).toContain('is not a git repository. Nothing was started.');
      expect(run.attempts).toEqual([]);
      const notices = await c.bed.call('listNotices', { runId });
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ code: 'configuration_incomplete', status: 'open', actionUrl: `#/agents/${agent.id}` });
      // Nothing made: no task root here, no run folder and no project store on the host.
      expect(existsSync(path.join(c.bed.dataDir, 'tasks', runId))).toBe(false);
      expect(existsSync(remoteRunDir(runId))).toBe(false);
      expect(existsSync(storesOnHost()) ? readdirSync(storesOnHost()) : []).toEqual(storesBefore);
    } finally {
      folder.remove();
    }
  }, 60_000);
});
