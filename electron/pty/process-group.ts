import { readdirSync, readFileSync } from 'node:fs';

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

/** Parses /proc/<pid>/stat; the command name may hold spaces and parentheses, so split after the last ')'. */
function readLinuxStat(pid: number): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state, ppid, pgrp, ...
  return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
}
