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
