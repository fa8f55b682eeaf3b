import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureAgentPath } from '../../testing/output-test-kit';
import { consoleOnHost as consoleOnTestHost, hostRunBeds, remoteHome, remoteProcessesOf, remoteRunDir, sleep, spoolOf, until, waitForEnd } from '../../testing/host-run-test-kit';
import { remoteTestUser, startSshTestServer, tcshTestUser, type SshTestServer } from '../../testing/ssh-test-server';
import { attachReaders } from '../../testing/ssh-readers';

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

const { beds, closeAll } = hostRunBeds();
afterEach(() => closeAll());

/** A console on the test box (the kit's), with this file's server. */
const consoleOnHost = (networkMode: 'none' | 'open' = 'none', alias = server.alias) => consoleOnTestHost(server, beds, { networkMode, alias });


const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

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
    expect(run.confinement).toMatchObject({ host: server.alias, sandbox: 'bubblewrap', network: 'none', syscallFilter: true, writableRoots: expect.arrayContaining([`${remoteRunDir(runId)}/view`]) });
    expect(c.output(runId).equals(spoolOf(runId))).toBe(true);
    expect(remoteProcessesOf(runId)).toEqual([]);
    // The host's task root is 0700 and the console's, and Clean up shows and removes it.
    expect(statSync(remoteRunDir(runId)).mode & 0o777).toBe(0o700);
    expect(statSync(path.dirname(path.dirname(remoteRunDir(runId)))).mode & 0o777).toBe(0o700);
    const before = (await c.bed.call('getDiskUsage', { refresh: true })).hosts;
    expect(before).toEqual([expect.objectContaining({ hostId: c.host.id, name: server.alias, error: null, bytes: expect.any(Number) })]);
    expect(before[0]!.runs).toBeGreaterThanOrEqual(1);
    expect(before[0]!.bytes).toBeGreaterThan(0);
    const cleaned = await c.bed.call('cleanUpRuns', { runIds: [runId], confirmedRunIds: [runId] });
    expect(cleaned.removed).toEqual([runId]);
    expect(existsSync(remoteRunDir(runId))).toBe(false);
    const after = (await c.bed.call('getDiskUsage', { refresh: true })).hosts;
    expect(after[0]!.runs).toBe(before[0]!.runs - 1);
  }, 90_000);

  it('runs when the remote account’s login shell is tcsh, which parses no $(…): tested, run, followed, brought back and cleaned up', async () => {
    const c = await consoleOnHost('none', server.tcshAlias);
    const agent = await c.agent(['--write-file', 'from-tcsh.txt', '--file-content', 'written on the host\\n', '--print-env', 'HOME', '--lines', '5']);
    const runId = await c.run(agent.id);
    const run = await waitForEnd(c.bed, runId);
    const text = c.output(runId).toString('utf8');
    expect(run.status, `${text} ${JSON.stringify(run.failure)}`).toBe('succeeded');
    expect(text).toContain(`HOME=${remoteRunDir(runId, tcshTestUser)}/home`);
    expect(text).toContain('line 5 of 5');
    const diff = await c.bed.call('getRunDiff', { runId });
    expect(diff.files.map((file) => `${file.status} ${file.path}`)).toEqual(['added from-tcsh.txt']);
    const cleaned = await c.bed.call('cleanUpRuns', { runIds: [runId], confirmedRunIds: [runId] });
    expect(cleaned.removed).toEqual([runId]);
    expect(existsSync(remoteRunDir(runId, tcshTestUser))).toBe(false);
  }, 90_000);

  it('loses nothing when its ssh connection is killed mid-flood: the run finishes on the host and every byte arrives once', async () => {
    const c = await consoleOnHost();
    const agent = await c.agent(['--flood-bytes', String(24 * 1024 * 1024)]);
    const runId = await c.run(agent.id);
    // Killed three times while the flood runs, each once some more of it has arrived.
    for (let kill = 1; kill <= 3; kill += 1) {
      const stored = c.bed.core.ledger.output.totalBytes(runId);
      await until(`more output after kill ${kill - 1}`, () => c.bed.core.ledger.output.totalBytes(runId) > stored + 2 * 1024 * 1024 && attachReaders(runId).length > 0, 60_000);
      for (const pid of attachReaders(runId)) process.kill(pid, 'SIGKILL');
    }
    const run = await waitForEnd(c.bed, runId, 120_000);
    const output = c.output(runId);
    expect(run.status, JSON.stringify(run.failure)).toBe('succeeded');
    expect(output.toString('latin1')).toMatch(/flood-end bytes=\d+/);
    const spool = spoolOf(runId);
    expect(output.length).toBe(spool.length);
    expect(sha256(output)).toBe(sha256(spool));
    // The host's run never noticed: it was one attempt, to its end.
    expect(run.attempts).toHaveLength(1);
  }, 180_000);

  it('stops on the host when the operator stops it: the agent, its process group and its sandbox are gone', async () => {
    const c = await consoleOnHost();
    const agent = await c.agent(['--spawn-child', '--ignore-sigterm', '--sleep-ms', '120000']);
    const runId = await c.run(agent.id);
    await until('the agent to start', () => c.output(runId).toString('utf8').includes('ready'), 60_000);
    expect(remoteProcessesOf(runId).length).toBeGreaterThan(0);
    await c.bed.call('stopRun', { runId });
    const run = await waitForEnd(c.bed, runId, 30_000);
    expect(run.status).toBe('cancelled');
    expect(remoteProcessesOf(runId)).toEqual([]);
    // The supervisor wrote its exit: bubblewrap was ended by the signal, and the sandbox's whole PID namespace with it.
    const attempts = path.join(remoteRunDir(runId), 'attempts');
    const exit = JSON.parse(readFileSync(path.join(attempts, readdirSync(attempts)[0]!, 'exit.json'), 'utf8')) as { signal: string | null };
    expect(exit.signal).toMatch(/^SIG(TERM|KILL)$/);
  }, 90_000);

  it('is Unverifiable with a notice while its host cannot be reached, and is followed again, with no gap, once it answers', async () => {
    const c = await consoleOnHost();
    const agent = await c.agent(['--lines', '40', '--delay-ms', '100']);
    const runId = await c.run(agent.id);
    await until('the first lines', () => c.output(runId).toString('utf8').includes('line 3 of 40'), 60_000);
    await server.stopListening();
    try {
      for (const pid of attachReaders(runId)) process.kill(pid, 'SIGKILL');
      await until('the run to be marked', async () => (await c.bed.call('getRun', { runId })).hostUnreachableSince !== null);
      const notices = (await c.bed.call('listNotices', { status: 'open' })).filter((notice) => notice.kind === 'host_unreachable');
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ title: 'SSH host unreachable', runId, message: expect.stringContaining(`${server.alias} cannot be reached`) });
      expect((await c.bed.call('getRun', { runId })).status).toBe('running');
      // The agent runs on, on the host, meanwhile.
      await sleep(1500);
    } finally {
      await server.startListening();
    }
    const run = await waitForEnd(c.bed, runId, 60_000);
    expect(run.status).toBe('succeeded');
    expect(run.hostUnreachableSince).toBeNull();
    expect((await c.bed.call('listNotices', { status: 'open' })).filter((notice) => notice.kind === 'host_unreachable')).toEqual([]);
    const output = c.output(runId);
    expect(output.equals(spoolOf(runId))).toBe(true);
    for (let line = 1; line <= 40; line += 1) expect(output.toString('utf8').split(`line ${line} of 40`)).toHaveLength(2);
  }, 120_000);

  it('refuses input while its host cannot be reached, saying why, and takes it again once the host answers', async () => {
    const c = await consoleOnHost();
    const agent = await c.agent(['--echo-input']);
    const runId = await c.run(agent.id);
    await until('the agent to be ready', () => c.output(runId).toString('utf8').includes('ready'), 60_000);
    await until('the run to take input', async () => (await c.bed.call('getRun', { runId })).canSendInput);
    await server.stopListening();
    try {
      for (const pid of attachReaders(runId)) process.kill(pid, 'SIGKILL');
      await until('the run to be marked', async () => (await c.bed.call('getRun', { runId })).hostUnreachableSince !== null);
      expect((await c.bed.call('getRun', { runId })).canSendInput).toBe(false);
      await expect(c.bed.call('sendRunInput', { runId, data: 'typed while away\r' })).rejects.toMatchObject({
        code: 'ssh_failed',
        reason: 'unreachable',
        message: expect.stringContaining(`${server.alias} cannot be reached right now, so this input was not sent`),
      });
    } finally {
      await server.startListening();
    }
    await until('the run to take input again', async () => (await c.bed.call('getRun', { runId })).canSendInput, 60_000);
    expect(await c.bed.call('sendRunInput', { runId, data: 'typed once back\r' })).toEqual({ accepted: true });
    await until('the echo', () => c.output(runId).toString('utf8').includes('got: typed once back'), 30_000);
    await c.bed.call('sendRunInput', { runId, data: 'quit\r' });
    expect((await waitForEnd(c.bed, runId)).status).toBe('succeeded');
    expect(c.output(runId).toString('utf8')).not.toContain('typed while away');
  }, 120_000);

  it('holds against attacks from inside: the remote user’s other files, the host’s network in none mode, the console’s spool and control socket', async () => {
    const c = await consoleOnHost('none');
    const home = remoteHome();
    // Something of the remote user's own, beside the console's folder.
    const planted = path.join(home, 'planted-secret.txt');
    writeFileSync(planted, 'REMOTE-USER-SECRET\n', { mode: 0o600 });
    execFileSync('chown', [`${remoteTestUser}:${remoteTestUser}`, planted]);
    // A run before it, whose files the attacker looks for.
    const first = await c.run((await c.agent(['--lines', '1'])).id);
    expect((await waitForEnd(c.bed, first)).status).toBe('succeeded');
    const firstDir = remoteRunDir(first);
    const script = [
      `cat ${planted} 2>/dev/null && echo OPEN-PLANTED`,
      `ls ${home}/.ssh 2>/dev/null && echo OPEN-SSH-DIR`,
      `ls ${firstDir}/view 2>/dev/null && echo OPEN-OTHER-RUN`,
      'for f in "$OPERATOR_CONSOLE_TASK_ROOT"/attempts/*/spool "$OPERATOR_CONSOLE_TASK_ROOT"/attempts/*/control.sock "$OPERATOR_CONSOLE_TASK_ROOT"/seccomp.bpf; do test -e "$f" && echo "OPEN-CONSOLE-FILE $f"; done',
      `ls ${home}/.operator-console/*.py 2>/dev/null && echo OPEN-SUPERVISOR`,
      `echo x > ${home}/written-by-run 2>/dev/null && echo OPEN-WRITE-HOME`,
      `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${server.port}), 3)" 2>/dev/null && echo OPEN-HOST-NETWORK`,
      'unshare -U true 2>/dev/null && echo OPEN-USER-NAMESPACE',
      'echo own > "$HOME/own-file" && echo WROTE-OWN-HOME',
      'echo ATTACKS-DONE',
    ].join('; ');
    const runId = await c.run((await c.agent(['--shell', script])).id);
    const run = await waitForEnd(c.bed, runId);
    const text = c.output(runId).toString('utf8');
    expect(run.status, text).toBe('succeeded');
    expect(text).toContain('ATTACKS-DONE');
    expect(text).toContain('WROTE-OWN-HOME');
    expect(text).not.toMatch(/OPEN-[A-Z-]+/);
    expect(text).not.toContain('REMOTE-USER-SECRET');
    expect(existsSync(path.join(home, 'written-by-run'))).toBe(false);
    // The script itself named the task root variable: it was set, so the checks looked where the files are.
    expect(existsSync(path.join(remoteRunDir(runId), 'attempts'))).toBe(true);
  }, 120_000);

  it('takes keystrokes and resizes while it runs on the host, as a local PTY does', async () => {
    const c = await consoleOnHost();
    const agent = await c.agent(['--print-size', '--echo-input']);
    const runId = await c.run(agent.id);
    await until('the agent to be ready', () => c.output(runId).toString('utf8').includes('ready'), 60_000);
    await c.bed.call('resizeRun', { runId, cols: 101, rows: 33 });
    await until('the new size', () => c.output(runId).toString('utf8').includes('size 101x33'));
    expect((await c.bed.call('sendRunInput', { runId, data: 'hello host\r' })).accepted).toBe(true);
    await until('the echo', () => c.output(runId).toString('utf8').includes('got: hello host'));
    await c.bed.call('sendRunInput', { runId, data: 'quit\r' });
    const run = await waitForEnd(c.bed, runId);
    expect(run.status).toBe('succeeded');
    expect(c.output(runId).equals(spoolOf(runId))).toBe(true);
  }, 90_000);

  it('goes on on the host while the console restarts, and is followed again from where its ledger stood: no gap, no duplicate', async () => {
    const c = await consoleOnHost();
    const agent = await c.agent(['--lines', '60', '--delay-ms', '100']);
    const runId = await c.run(agent.id);
    await until('the first lines', () => c.output(runId).toString('utf8').includes('line 5 of 60'), 60_000);
    await c.bed.restart();
    // Not stranded: the new console follows the run on its host again.
    const run = await waitForEnd(c.bed, runId, 60_000);
    expect(run.status, JSON.stringify(run.failure)).toBe('succeeded');
    expect(run.attempts).toHaveLength(1);
    const output = c.output(runId);
    expect(output.equals(spoolOf(runId))).toBe(true);
    for (let line = 1; line <= 60; line += 1) expect(output.toString('utf8').split(`line ${line} of 60\r`)).toHaveLength(2);
    expect(remoteProcessesOf(runId)).toEqual([]);
  }, 120_000);

  it('runs a CLI installed in the remote user’s home, showing the sandbox that folder alone of the home', async () => {
    const c = await consoleOnHost();
    const home = remoteHome();
    const installed = path.join(home, 'agent-cli');
    mkdirSync(installed, { recursive: true });
    copyFileSync(fixtureAgentPath, path.join(installed, 'fixture-agent.mjs'));
    chmodSync(path.join(installed, 'fixture-agent.mjs'), 0o755);
    writeFileSync(path.join(home, 'beside-the-cli.txt'), 'NOT-FOR-THE-RUN\n');
    execFileSync('chown', ['-R', `${remoteTestUser}:${remoteTestUser}`, installed, path.join(home, 'beside-the-cli.txt')]);
    try {
      const agent = await c.agent(['--shell', `cat ${home}/beside-the-cli.txt 2>/dev/null && echo OPEN-HOME; echo CLI-RAN; ps -o args= -p $PPID`], { profileId: 'program', executablePath: path.join(installed, 'fixture-agent.mjs') });
      const runId = await c.run(agent.id);
      const run = await waitForEnd(c.bed, runId);
      const text = c.output(runId).toString('utf8');
      expect(run.status, `${text} ${JSON.stringify(run.failure)}`).toBe('succeeded');
      expect(text).toContain('CLI-RAN');
      // The program that ran is the one in the home (its parent's command line names it).
      expect(text).toContain(`${installed}/fixture-agent.mjs`);
      expect(text).not.toContain('OPEN-HOME');
      expect(text).not.toContain('NOT-FOR-THE-RUN');
    } finally {
      rmSync(installed, { recursive: true, force: true });
      rmSync(path.join(home, 'beside-the-cli.txt'), { force: true });
    }
  }, 90_000);

  it('keeps the host’s network in the open mode, which the none mode takes away', async () => {
    const connect = `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${server.port}), 3)" 2>/dev/null && echo HOST-NETWORK-REACHED || echo HOST-NETWORK-UNREACHABLE`;
    const open = await consoleOnHost('open');
    const runId = await open.run((await open.agent(['--shell', connect])).id);
    expect((await waitForEnd(open.bed, runId)).status).toBe('succeeded');
    expect(open.output(runId).toString('utf8')).toContain('HOST-NETWORK-REACHED');
    const none = await consoleOnHost('none');
    const closed = await none.run((await none.agent(['--shell', connect])).id);
    expect((await waitForEnd(none.bed, closed)).status).toBe('succeeded');
    expect(none.output(closed).toString('utf8')).toContain('HOST-NETWORK-UNREACHABLE');
  }, 120_000);

  it('ends here when Stopped while its host does not answer, saying the host did not confirm it, and Clean up kills what is left there', async () => {
    const c = await consoleOnHost();
    const agent = await c.agent(['--sleep-ms', '120000']);
    const runId = await c.run(agent.id);
    await until('the agent to start', () => c.output(runId).toString('utf8').includes('ready'), 60_000);
    await server.stopListening();
    try {
      for (const pid of attachReaders(runId)) process.kill(pid, 'SIGKILL');
      await until('the run to be marked', async () => (await c.bed.call('getRun', { runId })).hostUnreachableSince !== null);
      await c.bed.call('stopRun', { runId });
      // Not a ghost: after the grace and the wait for the host, the run ends here.
      const run = await waitForEnd(c.bed, runId, 60_000);
      expect(run.status).toBe('cancelled');
      expect(run.hostUnreachableSince).toBeNull();
      const notice = (await c.bed.call('listNotices', { status: 'open' })).find((open) => open.kind === 'host_unreachable');
      expect(notice).toMatchObject({ runId, message: expect.stringContaining('ended here without its word that the agent stopped there'), actionLabel: 'Open Clean up' });
      // The agent still runs on the host, which nobody could reach.
      expect(remoteProcessesOf(runId).length).toBeGreaterThan(0);
    } finally {
      await server.startListening();
    }
    const cleaned = await c.bed.call('cleanUpRuns', { runIds: [runId], confirmedRunIds: [runId] });
    expect(cleaned.removed).toEqual([runId]);
    await until('nothing of the run on the host', () => remoteProcessesOf(runId).length === 0, 15_000);
    expect(existsSync(remoteRunDir(runId))).toBe(false);
  }, 120_000);
});
