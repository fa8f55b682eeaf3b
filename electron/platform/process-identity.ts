import { OperatorError } from '../../shared/errors';
import { readFileSync } from 'node:fs';

/**
 * The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat), as a string.
 * Saved with a process locator, it tells a live process apart from an unrelated one that got the same
 * pid after the run's process died. Null where /proc is not available (macOS) or the pid is gone.
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * The process locator of a launched attempt. A launch is bound to the child it started: one with no
 * child (no pid, or a pid that is not alive and never was) is an error, never a run to await.
 */
export function processLocator(pid: number | undefined, attempt: number): { pid: number; pgid: number; startTime: string | null; attempt: number } {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) {
    throw new OperatorError({ code: 'spawn_failed', reason: 'no_child_process', message: 'The CLI did not start: there is no process to follow.' });
  }
  // node-pty makes the child a session leader, so its process group is its pid.
  return { pid, pgid: pid, startTime: processStartTime(pid), attempt };
}
