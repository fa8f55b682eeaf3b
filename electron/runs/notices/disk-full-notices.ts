import { statSync, unlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Notice } from '../../../shared/entities';
import { OperatorError, type OperatorErrorShape } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import { describeBytes, freeDiskBytes, freeDiskBytesSync, freeSpaceAdvice, isDiskFullError } from '../../platform/disk-space';
import type { Ledger } from '../../ledger/ledger';
import type { Logger } from '../../platform/log';
import type { NoticeService } from '../../notices/notice-service';
import { diskFull, type DiskSpace } from '../admission';

/** Under this much free space on the data directory's disk new runs are refused (OPERATOR_CONSOLE_MIN_FREE_MIB overrides). */
export const defaultMinFreeBytes = 256 * 1024 * 1024;
/** How often free space is looked at while a Disk full notice is open. */
export const defaultDiskCheckIntervalMs = 5000;
const largestShown = 3;
/** Kept free on the data directory's disk for the writes a full disk must still allow (see DiskFullNotices). */
export const defaultReserveBytes = 4 * 1024 * 1024;
export const reserveFileName = 'disk-reserve';

export interface DiskFullNoticesOptions {
  dataDir: string;
  ledger: Ledger;
  notices: NoticeService;
  log: Logger;
  minFreeBytes?: number | undefined;
  checkIntervalMs?: number | undefined;
  /** The size of the reserve file; 0 keeps none. */
  reserveBytes?: number | undefined;
}

/** What raised the notice: a run refused up front, or one whose output could not be stored. */
export interface DiskFullCause {
  runId: string;
  taskId: string | null;
}

/**
 * The "Disk full" notice: one for the console (not per agent), naming the data directory, its free
 * space, the ledger's size and the largest task roots, linking to Clean up (the renderer adds Open
 * the data folder). While it is open, free space is looked at every few seconds, and the notice
 * resolves itself (its refused runs offering Run again) once there is room for runs again.
 *
 * Its own writes go to the same full disk. So the console keeps a few MiB in a reserve file
 * (`<data dir>/disk-reserve`), given back the moment the disk is found full: what must still be
 * written then (the run's end, this notice, a Delete of the run) has room. It is made again once
 * space is back. Each write may fail all the same: it is logged, and a notice that could not be
 * raised is raised at the next look if the disk is still full then.
 */
export class DiskFullNotices {
  readonly minFreeBytes: number;
  private readonly checkIntervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private closed = false;
  /** Causes whose notice could not be written yet. */
  private unraised: DiskFullCause[] = [];
  private readonly reserveBytes: number;
  private readonly reserveFile: string;
  private reserving: Promise<void> | null = null;

  constructor(private readonly options: DiskFullNoticesOptions) {
    this.minFreeBytes = options.minFreeBytes ?? defaultMinFreeBytes;
    this.checkIntervalMs = options.checkIntervalMs ?? defaultDiskCheckIntervalMs;
    this.reserveBytes = options.reserveBytes ?? defaultReserveBytes;
    this.reserveFile = path.join(options.dataDir, reserveFileName);
  }

  /** At start: a notice a previous console left open is watched again; else the reserve is made (if missing). */
  start(): void {
    if (this.safely('look for open Disk full notices', () => this.options.notices.openOfKind(diskFull).length > 0)) this.watch();
    else this.reserve();
  }

  /** Waits for the reserve file being written, if it is (close waits for it). */
  async settled(): Promise<void> {
    await this.reserving;
  }

  /** The data directory's free space now, for admission (a statfs: cheap enough for every admission). */
  space(): DiskSpace {
    const freeBytes = freeDiskBytesSync(this.options.dataDir);
    // Room again while the notice is open: it resolves now rather than at the next look.
    if (this.timer && freeBytes !== null && freeBytes >= this.minFreeBytes) void this.check();
    return { dataDir: this.options.dataDir, freeBytes, minFreeBytes: this.minFreeBytes };
  }

  /** The disk is full for a run (refused, or its output could not be stored): raises the notice, or joins it. */
  raise(cause: DiskFullCause): void {
    if (this.closed) return;
    this.releaseReserve();
    const raised = this.safely('raise the Disk full notice', () => {
      this.options.notices.raise({
        kind: diskFull,
        severity: 'error',
        title: 'Disk full',
        ...this.content(freeDiskBytesSync(this.options.dataDir)),
        code: 'disk_full',
        reason: diskFull,
        runId: cause.runId,
        taskId: cause.taskId,
        dedupeKey: diskFull,
      });
      return true;
    });
    if (!raised) this.unraised.push(cause);
    this.watch();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private watch(): void {
    if (this.closed || this.timer) return;
    this.timer = setInterval(() => void this.check(), this.checkIntervalMs);
    this.timer.unref();
  }

  /** Looks at free space: resolves the notice once there is room for runs, else keeps its figures current. */
  private async check(): Promise<void> {
    if (this.checking || this.closed) return;
    this.checking = true;
    try {
      const free = await freeDiskBytes(this.options.dataDir);
      if (this.closed || free === null) return;
      const open = this.safely('read the Disk full notices', () => this.options.notices.openOfKind(diskFull)) ?? [];
      if (free >= this.minFreeBytes) {
        this.unraised = [];
        for (const notice of open) {
          this.safely('resolve the Disk full notice', () => this.options.notices.resolve(notice.id, `Space is back: ${describeBytes(free)} free on the data directory’s disk.`));
        }
        this.options.log.info('disk space is back', { freeBytes: free });
        if (this.timer) clearInterval(this.timer);
        this.timer = null;
        if (free >= this.minFreeBytes + this.reserveBytes) this.reserve();
        return;
      }
      const unraised = this.unraised;
      this.unraised = [];
      for (const cause of unraised) this.raise(cause);
      for (const notice of open) this.revise(notice, free);
    } finally {
      this.checking = false;
    }
  }

  /** Makes the reserve file in the background, unless it is there, or space is short already. */
  private reserve(): void {
    if (this.reserveBytes <= 0 || this.reserving || this.closed) return;
    if ((statSync(this.reserveFile, { throwIfNoEntry: false })?.size ?? 0) >= this.reserveBytes) return;
    const free = freeDiskBytesSync(this.options.dataDir);
    if (free !== null && free < this.minFreeBytes + this.reserveBytes) return;
    this.reserving = writeFile(this.reserveFile, Buffer.alloc(this.reserveBytes), { mode: 0o600 })
      .catch((error: unknown) => {
        this.options.log.warn('could not make the disk reserve', { file: this.reserveFile, error: String(error) });
        this.releaseReserve();
      })
      .finally(() => {
        this.reserving = null;
      });
  }

  /** Gives the reserve's space back to the disk (at once: what must be written next needs it). */
  private releaseReserve(): void {
    try {
      unlinkSync(this.reserveFile);
      this.options.log.warn('disk reserve given back: the data directory’s disk is full', { file: this.reserveFile });
    } catch {
      // None there (never made, or given back already).
    }
  }

  private revise(notice: Notice, free: number): void {
    const content = this.content(free);
    this.safely('update the Disk full notice', () => this.options.notices.revise(notice.id, content));
  }

  private content(free: number | null): { message: string; actionUrl: string; actionLabel: string } {
    const { dataDir } = this.options;
    const freeWords = free === null ? '' : ` (${describeBytes(free)} free; new runs need ${describeBytes(this.minFreeBytes)})`;
    const parts = [
      `The disk of the data directory ${dataDir} is full${freeWords}. A run whose output cannot be stored is ended, and new runs are refused until there is room.`,
    ];
    const ledger = this.safely('measure the ledger', () => this.options.ledger.space.figures());
    if (ledger) {
      const reclaimable = ledger.mode === 'incremental' && ledger.reclaimableBytes > 0 ? ` (${describeBytes(ledger.reclaimableBytes)} of it is free space Clean up can give back)` : '';
      parts.push(`The ledger (ledger.sqlite) takes ${describeBytes(ledger.fileBytes + ledger.walBytes)}${reclaimable}.`);
    }
    const largest = this.largestTaskRoots();
    if (largest.length > 0) parts.push(`Largest task roots: ${largest.join(', ')}.`);
    parts.push(
      ledger?.mode === 'not_converted'
        ? 'Free space on that disk: Clean up removes finished runs’ files. (This ledger was made by an earlier console and gives deleted runs’ output back to the disk only once it is converted, which the console does at a start with room for it.) This notice resolves itself when space is back.'
        : 'Free space on that disk: Clean up removes finished runs’ files, and deleting runs you no longer need gives the room their output took in the ledger back to the disk at once. This notice resolves itself when space is back.',
    );
    return { message: parts.join(' '), actionUrl: actionRoute({ kind: 'cleanup' }), actionLabel: 'Open Clean up' };
  }

  /** The finished runs' task roots as last measured, largest first, in words. */
  private largestTaskRoots(): string[] {
    return (
      this.safely('read the task roots’ sizes', () =>
        this.options.ledger.runs
          .withFiles()
          .filter((row) => row.disk_bytes !== null && row.disk_bytes > 0)
          .sort((a, b) => b.disk_bytes! - a.disk_bytes!)
          .slice(0, largestShown)
          .map((row) => {
            const summary = this.options.ledger.runs.summary(row.id);
            return `“${summary?.taskTitle ?? row.id}” (${summary?.agentName ?? 'an agent'}) ${describeBytes(row.disk_bytes!)}`;
          }),
      ) ?? []
    );
  }

  /** Runs `work`; a failure (the ledger on a full disk) is logged, and answered with undefined. */
  private safely<T>(doing: string, work: () => T): T | undefined {
    try {
      return work();
    } catch (error) {
      this.options.log.warn(`could not ${doing}`, { error: String(error) });
      return undefined;
    }
  }
}

/** Less free than this on the data directory's disk, and a failure to write there is taken to be the disk's. */
const nearlyFullBytes = 1024 * 1024;

/**
 * True when a failure is the disk's: a write refused for want of space, git saying so (git-errors.ts),
 * or any failure while the data directory's disk has next to nothing free (git's checkout says only
 * "unable to write file", without why).
 */
export function isDiskFullFailure(error: unknown, dataDir: string): boolean {
  if (isDiskFullError(error) || (error instanceof OperatorError && error.reason === 'disk_full')) return true;
  const free = freeDiskBytesSync(dataDir);
  return free !== null && free < nearlyFullBytes;
}

/** How a run ended for a full disk reads on its page: what happened, that what was stored is kept, what to do. */
export function runDiskFullFailure(dataDir: string, what: string): OperatorErrorShape {
  return {
    code: 'disk_full',
    reason: diskFull,
    message: `${what}: the disk of the data directory ${dataDir} is full. What was stored is kept. ${freeSpaceAdvice}, then run it again.`,
    actionUrl: actionRoute({ kind: 'cleanup' }),
  };
}
