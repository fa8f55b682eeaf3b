import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/**
 * A run's process tree is one process group: node-pty makes the agent a session leader, so its pgid is
 * its pid and everything it forks stays in the group unless it deliberately leaves. Stopping a run means
 * stopping the group, not only the pid we spawned, or an agent's tool processes would outlive the run.
 */

/** Sends `signal` (0: only probe) to every process in the group. False when the group no longer exists. */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/**
 * Whether any process of the group is still running. Zombies do not count: an orphaned member is
 * reparented to pid 1, and in containers pid 1 does not always reap, so a dead member can linger as a
 * zombie forever while `kill(-pgid, 0)` keeps succeeding.
 */
export function isProcessGroupAlive(pgid: number): boolean {
  if (!signalProcessGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  return liveLinuxGroupMembers(pgid) > 0;
}

/**
 * Whether a group is still running, asked again and again while it is being stopped, without holding
 * the event loop that reads every run's PTY: the members seen last time are looked at first (one
 * small read each), and only when none of them runs any more is /proc scanned again, asynchronously,
 * for members not seen yet (a process forked meanwhile) or only zombies.
 */
export class ProcessGroupWatch {
  private members = new Set<number>();

  constructor(readonly pgid: number) {}

  async alive(): Promise<boolean> {
    if (!signalProcessGroup(this.pgid, 0)) return false;
    if (process.platform !== 'linux') return true;
    for (const pid of this.members) {
      const stat = await readLinuxStatAsync(pid);
      // pgrp is checked again: the pid may have gone and been given to another process.
      if (stat && stat.pgrp === this.pgid && stat.state !== 'Z') return true;
      this.members.delete(pid);
    }
    this.members = await scanLinuxGroupMembers(this.pgid);
    return this.members.size > 0;
  }
}

async function scanLinuxGroupMembers(pgid: number): Promise<Set<number>> {
  const pids = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry)).map(Number);
  const stats = await Promise.all(pids.map(async (pid) => ({ pid, stat: await readLinuxStatAsync(pid) })));
  return new Set(stats.filter(({ stat }) => stat && stat.pgrp === pgid && stat.state !== 'Z').map(({ pid }) => pid));
}

/** Whether this one process is still running (not reaped and not a zombie). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  const stat = readLinuxStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

function liveLinuxGroupMembers(pgid: number): number {
  let live = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readLinuxStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') live += 1;
  }
  return live;
}

function readLinuxStat(pid: number): { state: string; pgrp: number } | undefined {
  try {
    return parseLinuxStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

async function readLinuxStatAsync(pid: number): Promise<{ state: string; pgrp: number } | undefined> {
  try {
    return parseLinuxStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Parses /proc/<pid>/stat; the command name may hold spaces and parentheses, so split after the last ')'. */
function parseLinuxStat(text: string): { state: string; pgrp: number } {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state, ppid, pgrp, ...
  return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
}
