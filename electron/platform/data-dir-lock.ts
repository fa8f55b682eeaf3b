import { randomUUID } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import properLockfile from 'proper-lockfile';
import { ensureDataDir } from './data-dir';
import { createLogger, type Logger } from './log';
import { isProcessAlive } from './process-group';
import { processStartTime } from './process-identity';

/**
 * One console per data directory. A second console on the same directory would run start-up recovery
 * and stop the first one's live runs as if they had been stranded, and two writers would share one
 * ledger and one set of task roots. So a console takes this lock before it makes its core, and a
 * second one refuses to start with one line that names the first.
 *
 * The lock is proper-lockfile's: a directory made atomically with mkdir and kept fresh by a timer, so
 * that after a crash it goes stale by its mtime. Beside it an owner file says who holds it (pid, the
 * process's start time, which kind of console, its address): that names the holder in the refusal, and
 * after a crash it lets the next console take the lock over at once when the recorded process is gone
 * (or its pid now belongs to another process), rather than after the mtime has aged. An owner file that
 * is missing or unreadable (a crash between taking the lock and writing it) proves nothing, and the
 * lock's mtime decides.
 */

export const lockDirName = 'console.lock';
export const ownerFileName = 'console-owner.json';

/** Which console this is, as the refusal names it to the operator. */
export type ConsoleOwner =
  | { kind: 'browser-host'; url?: string | null }
  // The console service (electron/service/): the core in a process of its own, serving browsers and apps.
  | { kind: 'console-service'; url?: string | null }
  | { kind: 'desktop-app' }
  | { kind: 'ledger-restore' };

/** What the owner file holds. Never the browser host's token: the file is read by other processes. */
export interface OwnerRecord {
  version: 1;
  /** Tells this lock's record apart from one a console wrote for an earlier lock. */
  nonce: string;
  pid: number;
  /** /proc/<pid>/stat field 22 (Linux), so a reused pid is not mistaken for the console; null elsewhere. */
  processStartTime: string | null;
  /** A pid means nothing on another machine (a data directory on a network share). */
  hostname: string;
  kind: ConsoleOwner['kind'];
  /** The browser host's (or the service's) address without its token, once it listens; null for the desktop app. */
  url: string | null;
  startedAt: string;
}

export interface DataDirLock {
  readonly dataDir: string;
  /** The browser host binds its port after the lock is taken: this adds its address (token stripped). */
  recordUrl(url: string): void;
  /** Gives the directory up (after the core has closed). Safe to call more than once. */
  release(): Promise<void>;
}

/** The refusal: its message is the one line the operator sees. */
export class DataDirLockedError extends Error {
  readonly dataDir: string;
  /** Who holds the lock, when its owner file says so. */
  readonly holder: OwnerRecord | null;
  constructor(dataDir: string, holder: OwnerRecord | null) {
    super(`Another Operator Console is already using ${dataDir} (${describeHolder(holder)}). Close it first, or start this one with --data-dir DIR.`);
    this.name = 'DataDirLockedError';
    this.dataDir = dataDir;
    this.holder = holder;
  }
}

export interface AcquireDataDirLockOptions {
  dataDir: string;
  owner: ConsoleOwner;
  log?: Logger;
  /** How old the lock's mtime must be before a holder without an owner file counts as gone. */
  staleMs?: number;
  /**
   * Which process this console is. Only tests change it: naming a process that has exited (or a
   * wrong start time) leaves behind exactly the owner file a crashed console would.
   */
  self?: { pid: number; startTime: string | null };
}

const defaultStaleMs = 10_000;
/** While the holder has not named itself, look again this often. */
const unnamedHolderPollMs = 200;

export async function acquireDataDirLock(options: AcquireDataDirLockOptions): Promise<DataDirLock> {
  const dataDir = ensureDataDir(path.resolve(options.dataDir));
  const log = options.log ?? createLogger();
  const staleMs = Math.max(options.staleMs ?? defaultStaleMs, 2_000); // proper-lockfile's own floor
  const lockPath = path.join(dataDir, lockDirName);
  const ownerPath = path.join(dataDir, ownerFileName);
  const self = options.self ?? { pid: process.pid, startTime: processStartTime(process.pid) };

  let released = false;
  const lockOptions = {
    lockfilePath: lockPath,
    realpath: false,
    stale: staleMs,
    retries: 0,
    // proper-lockfile's default throws, from a timer, which would crash the console and every run in
    // it. Losing the lock is serious but the runs are still ours: say so loudly and keep serving.
    onCompromised: (error: Error) => {
      if (released) return;
      log.error('the data directory lock was lost: another console may now start on this data directory and stop these runs', {
        dataDir,
        error: error.message,
        advice: `Keep only one Operator Console on ${dataDir}; restart this one to take the lock again.`,
      });
    },
  };

  // A holder that has not named itself is either starting (it writes its owner file right after the
  // lock) or crashed before it could; once the lock's mtime is stale proper-lockfile takes it over.
  const unnamedDeadline = Date.now() + staleMs + 2_000;
  let releaseLock: () => Promise<void>;
  for (let attempt = 0; ; attempt += 1) {
    const found = readOwnerFile(ownerPath);
    // Cleared before the lock is taken, so that no console ever holds a fresh lock beside a dead one's
    // owner file that a third console could read and take over.
    if (found && isGone(found.record)) clearStaleLock({ found, ownerPath, lockPath, dataDir, log });
    try {
      releaseLock = await properLockfile.lock(dataDir, lockOptions);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    }
    const holder = readOwnerFile(ownerPath)?.record ?? null;
    if (holder && isGone(holder) && attempt < 20) continue;
    if (holder && holder.hostname === hostname()) throw new DataDirLockedError(dataDir, holder);
    if (Date.now() >= unnamedDeadline) throw new DataDirLockedError(dataDir, holder);
    await new Promise((resolve) => setTimeout(resolve, unnamedHolderPollMs));
  }

  // The rest of the data directory is private to the operator; the lock follows (mkdir gave it the umask's mode).
  try {
    chmodSync(lockPath, 0o700);
  } catch {
    // Not worth failing over: it holds nothing, and the data directory around it is 0700.
  }
  const record: OwnerRecord = {
    version: 1,
    nonce: randomUUID(),
    pid: self.pid,
    processStartTime: self.startTime,
    hostname: hostname(),
    kind: options.owner.kind,
    url: options.owner.kind === 'browser-host' || options.owner.kind === 'console-service' ? withoutToken(options.owner.url ?? null) : null,
    startedAt: new Date().toISOString(),
  };
  try {
    writeOwnerFile(ownerPath, record);
  } catch (error) {
    await releaseLock().catch(() => {});
    throw error;
  }

  const ownsOwnerFile = () => readOwnerFile(ownerPath)?.record.nonce === record.nonce;
  const removeOwnerFile = () => {
    if (!ownsOwnerFile()) return;
    try {
      unlinkSync(ownerPath);
    } catch {
      // Gone already; nothing names this console any more, which is what removing it was for.
    }
  };
  // proper-lockfile removes the lock itself on exit (signal-exit); the owner file goes with it, so that
  // an exit without release() (process.exit, an uncaught error) leaves nothing that names a dead console.
  process.on('exit', removeOwnerFile);
  log.info('data directory lock taken', { dataDir, pid: record.pid, kind: record.kind });

  return {
    dataDir,
    recordUrl(url: string) {
      if (released || (record.kind !== 'browser-host' && record.kind !== 'console-service')) return;
      record.url = withoutToken(url);
      // Only over our own record: if another console took the lock over, the file is its record now.
      if (ownsOwnerFile()) writeOwnerFile(ownerPath, record);
    },
    async release() {
      if (released) return;
      released = true;
      process.off('exit', removeOwnerFile);
      // A record of another console means the lock was taken from us (its lock directory is then that
      // console's, not ours to remove); proper-lockfile's own check stops our timer when it notices.
      const current = readOwnerFile(ownerPath)?.record;
      if (current && current.nonce !== record.nonce) return;
      // The owner file goes first: a console starting meanwhile sees an unnamed holder and waits.
      removeOwnerFile();
      try {
        await releaseLock();
      } catch (error) {
        // ERELEASED: compromised earlier, and already said so.
        if ((error as NodeJS.ErrnoException).code !== 'ERELEASED') {
          log.warn('the data directory lock could not be removed', { dataDir, error: error instanceof Error ? error.message : String(error) });
        }
      }
    },
  };
}

/**
 * Who holds the data directory now, as its owner file says, when that process is still running here;
 * null when nobody does (or a holder is gone). `npm run serve -- --stop` stops a service of another
 * version by it: the socket refuses that client's hello, a signal does not.
 */
export function liveDataDirHolder(dataDir: string): OwnerRecord | null {
  const record = readOwnerFile(path.join(path.resolve(dataDir), ownerFileName))?.record ?? null;
  if (!record || record.hostname !== hostname() || isGone(record)) return null;
  return record;
}

/** True when the recorded console's process is certainly not running any more. */
function isGone(record: OwnerRecord): boolean {
  if (record.hostname !== hostname()) return false;
  if (!isProcessAlive(record.pid)) return true;
  // Alive under the same pid, but started at another time: the pid was reused by an unrelated process.
  const startTime = processStartTime(record.pid);
  return record.processStartTime !== null && startTime !== null && startTime !== record.processStartTime;
}

/**
 * Takes a dead console's lock away. The owner file is read again just before, so that a lock another
 * console has meanwhile taken over (and renamed itself in) is left alone.
 */
function clearStaleLock(args: { found: { raw: string; record: OwnerRecord }; ownerPath: string; lockPath: string; dataDir: string; log: Logger }): void {
  const { found, ownerPath, lockPath, dataDir, log } = args;
  if (readOwnerFile(ownerPath)?.raw !== found.raw) return;
  try {
    unlinkSync(ownerPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    rmdirSync(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  log.warn('took over the data directory lock of a console that is no longer running', {
    dataDir,
    pid: found.record.pid,
    kind: found.record.kind,
    startedAt: found.record.startedAt,
  });
}

function readOwnerFile(ownerPath: string): { raw: string; record: OwnerRecord } | null {
  let raw: string;
  try {
    raw = readFileSync(ownerPath, 'utf8');
  } catch {
    return null;
  }
  try {
    const value = JSON.parse(raw) as Partial<OwnerRecord> | null;
    if (
      !value ||
      value.version !== 1 ||
      typeof value.nonce !== 'string' ||
      !Number.isInteger(value.pid) ||
      (value.pid ?? 0) <= 0 ||
      typeof value.hostname !== 'string' ||
      (value.kind !== 'browser-host' && value.kind !== 'console-service' && value.kind !== 'desktop-app' && value.kind !== 'ledger-restore')
    ) {
      return null;
    }
    return { raw, record: value as OwnerRecord };
  } catch {
    return null;
  }
}

/** Written whole and renamed into place, so a reader never sees half a record. */
function writeOwnerFile(ownerPath: string, record: OwnerRecord): void {
  const temporary = `${ownerPath}.${process.pid}.${record.nonce}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, ownerPath);
}

/** The token is a secret: neither the owner file nor a refusal may carry it. */
function withoutToken(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString();
  } catch {
    return null;
  }
}

/** Who holds the lock, in words: "pid 123, the desktop app". */
export function describeHolder(holder: OwnerRecord | null): string {
  if (!holder) return 'a console that has not recorded its pid';
  const pid = holder.hostname === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.hostname}`;
  if (holder.kind === 'desktop-app') return `${pid}, the desktop app`;
  if (holder.kind === 'ledger-restore') return `${pid}, restoring the ledger from a backup`;
  if (holder.kind === 'console-service') {
    return holder.url ? `${pid}, the console service at ${holder.url}; stop it with npm run serve -- --stop` : `${pid}, the console service, still starting`;
  }
  return holder.url ? `${pid}, ${holder.url}` : `${pid}, a browser host that is still starting`;
}
