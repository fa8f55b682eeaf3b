import { statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';

/**
 * The data directory's disk: whether an error says it is full, and how much of it is free. A full
 * disk is the one write failure that does not pass by itself: retrying a write then only waits, so
 * the console gives up on it, ends what needed it and says so (a "Disk full" notice).
 */

/** SQLite's words for SQLITE_FULL (the output writer's worker passes only the message), and the OS's for ENOSPC/EDQUOT. */
const diskFullWords = /database or disk is full|no space left on device|disk quota exceeded|\bENOSPC\b|\bEDQUOT\b|\bSQLITE_FULL\b/i;
const diskFullCodes = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/** True when the error (or what it wraps) says the disk is full. */
export function isDiskFullError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth += 1) {
    if (typeof current === 'object') {
      const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
      if (typeof code === 'string' && diskFullCodes.has(code)) return true;
      if (typeof message === 'string' && diskFullWords.test(message)) return true;
      current = cause;
    } else {
      return typeof current === 'string' && diskFullWords.test(current);
    }
  }
  return false;
}

/** Bytes an unprivileged process may still write on the disk holding `dir`; null when it cannot be asked. */
export function freeDiskBytesSync(dir: string): number | null {
  try {
    const stats = statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

export async function freeDiskBytes(dir: string): Promise<number | null> {
  try {
    const stats = await statfs(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
}

/**
 * What every refusal for a full disk tells the operator to do. Both are true: Clean up's removal frees
 * the task roots, and a deleted run's output is given back by the ledger (ledger/ledger-space.ts).
 */
export const freeSpaceAdvice = 'Free space (Clean up removes finished runs’ files, and deleting a run gives the room its output took in the ledger back to the disk)';

const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A size in words for a message: `512 bytes`, `3.4 MiB`, `120 GiB`. */
export function describeBytes(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} bytes` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
