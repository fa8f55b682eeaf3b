import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive, ProcessGroupWatch, signalProcessGroup } from './process-group';

/** A process group as a run's is: a leader in its own group, and what it forks. */
const groups: number[] = [];
afterEach(() => {
  for (const pgid of groups.splice(0)) signalProcessGroup(pgid, 'SIGKILL');
});

function startGroup(script: string): number {
  const leader = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  leader.unref();
  groups.push(leader.pid!);
  return leader.pid!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

describe('watching a process group while it is stopped', () => {
  it('sees a member forked after it last looked, once the members it knew have gone', async () => {
    // The leader and its first child leave after 400 ms; a new member (another pid) stays behind.
    const pgid = startGroup('sleep 0.4; sleep 30 & exit 0');
    const watch = new ProcessGroupWatch(pgid);
    expect(await watch.alive()).toBe(true);
    await sleep(800);
    expect(await watch.alive()).toBe(true);
    expect(isProcessGroupAlive(pgid)).toBe(true);
    signalProcessGroup(pgid, 'SIGKILL');
    await until(async () => !(await watch.alive()));
    expect(isProcessGroupAlive(pgid)).toBe(false);
  });

  it('says a group of only zombies is gone, as the synchronous check does', async () => {
    const pgid = startGroup('sleep 30 & sleep 30 & wait');
    const watch = new ProcessGroupWatch(pgid);
    expect(await watch.alive()).toBe(true);
    signalProcessGroup(pgid, 'SIGKILL');
    // Orphans reparented to a pid 1 that does not reap linger as zombies: kill(-pgid, 0) may still succeed.
    await until(async () => !(await watch.alive()));
    expect(isProcessGroupAlive(pgid)).toBe(false);
  });

  it('is false at once for a group that no longer exists', async () => {
    const pgid = startGroup('exit 0');
    await until(() => Promise.resolve(!signalProcessGroup(pgid, 0)));
    expect(await new ProcessGroupWatch(pgid).alive()).toBe(false);
  });
});
