import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isOperatorError } from '../../shared/errors';
import { makeTempDir } from '../testing/temp-dir';
import { isProcessAlive, isProcessGroupAlive } from '../platform/process-group';
import { startPtySession, type PtySession } from './pty-session';
import { fixtureEnv, recordSessionOutput, startFixtureAgent, waitFor } from '../testing/output-test-kit';

const sessions: PtySession[] = [];
const temps: Array<{ remove(): void }> = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.stop({ graceMs: 200 })));
  temps.splice(0).forEach((temp) => temp.remove());
});

function start(args: string[], options: Parameters<typeof startFixtureAgent>[1] = {}) {
  const session = startFixtureAgent(args, options);
  sessions.push(session);
  return { session, output: recordSessionOutput(session), exited: new Promise((resolve) => session.onExit(resolve)) };
}

function caught(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('a PTY session', () => {
  it('runs the agent on a terminal and reports how it exited', async () => {
    const temp = makeTempDir('oc-pty-');
    temps.push(temp);
    const { session, output, exited } = start(['--session-id', 'abc', '--print-env', 'OC_MARK', '--write-file', 'made.txt', '--exit-code', '3'], {
      cwd: temp.path,
      env: { OC_MARK: 'from the console' },
    });
    expect(session.pid).toBeGreaterThan(0);
    expect(await exited).toEqual({ exitCode: 3, signal: null });
    expect(output.text()).toContain('session-id: abc\r\n');
    expect(output.text()).toContain('OC_MARK=from the console\r\n');
    expect(readFileSync(path.join(temp.path, 'made.txt'), 'utf8')).toContain('written by fixture-agent');
    expect(session.exit).toEqual({ exitCode: 3, signal: null });
  });

  it("passes the operator's input to the agent", async () => {
    const { session, output, exited } = start(['--echo-input']);
    await waitFor(() => output.text().includes('ready'), 'the agent to be ready');
    session.write('hello from the operator\r');
    await waitFor(() => output.text().includes('got: hello from the operator'), 'the echoed line');
    session.write(new TextEncoder().encode('quit\r'));
    expect(await exited).toEqual({ exitCode: 0, signal: null });
  });

  it('tells the agent when the terminal is resized', async () => {
    const { session, output } = start(['--print-size', '--sleep-ms', '15000'], { cols: 80, rows: 24 });
    await waitFor(() => output.text().includes('size 80x24'), 'the initial size');
    session.resize(132, 40);
    await waitFor(() => output.text().includes('size 132x40'), 'the new size');
  });

  it('stops the agent with SIGTERM, which it can handle', async () => {
    const { session, output } = start(['--sleep-ms', '15000']);
    await waitFor(() => output.text().includes('ready'), 'the agent to be ready');
    const exit = await session.stop({ graceMs: 5000 });
    expect(exit).toEqual({ exitCode: 143, signal: null });
    expect(output.text()).toContain('stopping');
  });

  it('escalates to SIGKILL after the grace and takes the whole process group with it', async () => {
    const { session, output } = start(['--ignore-sigterm', '--spawn-child', '--sleep-ms', '15000']);
    await waitFor(() => output.text().includes('ready'), 'the agent to be ready');
    const childPid = Number(/child-pid: (\d+)/.exec(output.text())?.[1]);
    expect(isProcessAlive(childPid)).toBe(true);

    const started = Date.now();
    const exit = await session.stop({ graceMs: 400 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(exit.signal).toBe('SIGKILL');
    expect(output.text()).toContain('ignoring SIGTERM');
    // The grandchild ignored SIGTERM too; the group's SIGKILL ended it.
    expect(isProcessAlive(childPid)).toBe(false);
    expect(isProcessGroupAlive(session.pid)).toBe(false);
  });

  it('keeps the last output of an agent that exits while the session is paused', async () => {
    // The agent prints less than the kernel's PTY buffer holds, so it can finish while nobody reads.
    const { session, output, exited } = start(['--lines', '200']);
    session.pause();
    await waitFor(() => !isProcessAlive(session.pid), 'the agent to exit');
    // Longer than node-pty's 200 ms wait for the read side after an exit.
    await new Promise((resolve) => setTimeout(resolve, 400));
    session.resume();
    await exited;
    expect(output.text()).toContain('line 200 of 200\r\n');
    expect(output.text()).toContain('ready');
  });

  it('delivers the last bytes of an agent that writes fast and exits at once', async () => {
    // libuv ends the read side at the hangup, before the kernel buffer is empty, in a few percent of
    // such runs; forty runs make a regression show.
    for (let run = 0; run < 40; run += 1) {
      const { output, exited } = start(['--flood-bytes', String(128 * 1024)]);
      await exited;
      expect(output.text()).toMatch(/flood-end bytes=\d+ lines=\d+ sha256=[0-9a-f]{64}\r\nready\r\n$/);
    }
  });

  it('refuses a missing executable before starting anything, naming it and the fix', () => {
    const error = caught(() =>
      startPtySession({ executable: 'no-such-agent-cli', args: [], cwd: process.cwd(), env: fixtureEnv(), cols: 80, rows: 24 }),
    );
    expect(isOperatorError(error) && error.code).toBe('spawn_failed');
    expect((error as Error).message).toContain('no-such-agent-cli');
    expect((error as Error).message).toMatch(/install/i);
    expect((error as Error).message).toMatch(/path/i);
  });

  it('refuses a path that is not an executable file', () => {
    const temp = makeTempDir('oc-pty-');
    temps.push(temp);
    const script = path.join(temp.path, 'agent.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n');
    chmodSync(script, 0o644);
    for (const executable of [script, temp.path, path.join(temp.path, 'missing')]) {
      const error = caught(() => startPtySession({ executable, args: [], cwd: temp.path, env: fixtureEnv(), cols: 80, rows: 24 }));
      expect(isOperatorError(error) && error.code).toBe('spawn_failed');
      expect((error as Error).message).toContain(executable);
    }
  });

  it("finds a command on the run's PATH", async () => {
    const session = startPtySession({ executable: 'sh', args: ['-c', 'echo found'], cwd: process.cwd(), env: fixtureEnv(), cols: 80, rows: 24 });
    sessions.push(session);
    const output = recordSessionOutput(session);
    await new Promise((resolve) => session.onExit(resolve));
    expect(session.executablePath).toMatch(/\/sh$/);
    expect(output.text()).toContain('found');
  });
});
