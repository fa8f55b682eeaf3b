import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { OperatorError } from '../../shared/errors';
import { describeBytes, freeDiskBytesSync, isDiskFullError } from '../platform/disk-space';
import type { Logger } from '../platform/log';
import type { LedgerDb } from './database-handle';
import type { OutputWriter } from './output-writer';

/**
 * The ledger's room on the disk. SQLite never gives a file's free pages back by itself: a deleted run's
 * output left its pages free inside `ledger.sqlite`, for new output, and the file kept its size. On a
 * full disk that made deleting runs useless. So the ledger is in incremental auto-vacuum, and after a
 * deletion the output writer's thread (off the event loop) moves the pages in use out of the file's
 * end into the holes, a step at a time, and the checkpoint after each step cuts the file and empties
 * the WAL.
 *
 * Why incremental, and in small steps: a full VACUUM rewrites the whole ledger and needs about its size
 * free again (its copy goes through the WAL), which is exactly what a full disk does not have. A step
 * of incremental vacuum needs only room for the pages it moves in the WAL, and halves itself when even
 * that is refused; deleting a run's output goes in slices for the same reason. Only the one-off
 * conversion of a ledger made by an earlier console (convertForReclaim) is a full VACUUM, at start,
 * and only when the disk has room for it.
 */

/** How the ledger gives free pages back: step by step, or not until it is converted. */
export type LedgerReclaimMode = 'incremental' | 'not_converted';

export interface LedgerSpaceFigures {
  file: string;
  /** `ledger.sqlite` as the disk counts it. */
  fileBytes: number;
  /** Its `-wal` (0 when there is none). */
  walBytes: number;
  /** Free pages inside the file (room deleted runs left), which can go back to the disk. */
  reclaimableBytes: number;
  mode: LedgerReclaimMode;
  /** Space is being given back right now. */
  reclaiming: boolean;
}

export interface ReclaimResult {
  /** How much smaller the ledger and its WAL are on the disk. */
  reclaimedBytes: number;
}

/** The first slice of a deletion: small enough that its WAL fits in the disk reserve. */
const outputSliceBytes = 16 * 1024 * 1024;
/** A slice is halved on a full disk down to this; smaller than this, the disk has no room at all. */
const smallestOutputSliceBytes = 64 * 1024;
/** Pages per reclaim step (4 MiB at SQLite's 4 KiB pages); halved on a full disk down to 8. */
const reclaimStepPages = 1024;
const smallestReclaimStepPages = 8;

export class LedgerSpace {
  private reclaiming: Promise<ReclaimResult> | null = null;

  constructor(private readonly ledger: { file: string; db: LedgerDb; outputWriter: OutputWriter }) {}

  /** Cheap enough for every look at Clean up: two stats and three pragmas. */
  figures(): LedgerSpaceFigures {
    const { db, file } = this.ledger;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const freePages = db.pragma('freelist_count', { simple: true }) as number;
    return {
      file,
      fileBytes: sizeOf(file),
      walBytes: sizeOf(`${file}-wal`),
      reclaimableBytes: freePages * pageSize,
      mode: reclaimMode(db),
      reclaiming: this.reclaiming !== null,
    };
  }

  /**
   * Deletes the runs' output on the writer's thread, a slice at a time, giving each slice's room back
   * to the disk before the next (on a full disk the next slice's WAL needs it). The runs' records are
   * the caller's to delete afterwards: what is left of them is small.
   */
  async deleteOutput(runIds: readonly string[], log: Logger): Promise<void> {
    for (const runId of runIds) {
      let slice = outputSliceBytes;
      for (;;) {
        let deleted;
        try {
          deleted = await this.ledger.outputWriter.deleteOutputSlice(runId, slice);
        } catch (error) {
          if (!isDiskFullError(error)) throw error;
          if (slice <= smallestOutputSliceBytes) throw noRoomToDelete(this.ledger.file);
          slice = Math.max(smallestOutputSliceBytes, Math.floor(slice / 2));
          await this.reclaimLogged(log);
          continue;
        }
        if (deleted.rows > 0) await this.reclaimLogged(log);
        if (!deleted.more) break;
      }
    }
  }

  /**
   * Gives every free page back to the disk, a step at a time on the writer's thread. One at a time: a
   * call while one runs joins it (it goes on until no page is free, those freed meanwhile included).
   */
  reclaim(): Promise<ReclaimResult> {
    this.reclaiming ??= this.reclaimAll().finally(() => {
      this.reclaiming = null;
    });
    return this.reclaiming;
  }

  /** reclaim() where a failure must not fail what called it (the deletion happened): it is logged. */
  async reclaimLogged(log: Logger): Promise<void> {
    try {
      await this.reclaim();
    } catch (error) {
      log.warn('the ledger’s free space could not be given back to the disk; Clean up offers it again', { error: error instanceof Error ? error.message : String(error) });
    }
  }

  private async reclaimAll(): Promise<ReclaimResult> {
    const before = this.diskBytes();
    let step = reclaimStepPages;
    let left = Number.POSITIVE_INFINITY;
    for (;;) {
      let result;
      try {
        result = await this.ledger.outputWriter.reclaimStep(step);
      } catch (error) {
        if (!isDiskFullError(error) || step <= smallestReclaimStepPages) throw error;
        step = Math.max(smallestReclaimStepPages, Math.floor(step / 2));
        continue;
      }
      // Done, not convertible step by step, or no longer moving (never loop on a step that frees nothing).
      if (!result.incremental || result.freePages === 0 || result.freePages >= left) break;
      left = result.freePages;
    }
    return { reclaimedBytes: Math.max(0, before - this.diskBytes()) };
  }

  private diskBytes(): number {
    return sizeOf(this.ledger.file) + sizeOf(`${this.ledger.file}-wal`);
  }
}

function sizeOf(file: string): number {
  return statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

export function reclaimMode(db: LedgerDb): LedgerReclaimMode {
  // 2 is INCREMENTAL (0 NONE, 1 FULL).
  return db.pragma('auto_vacuum', { simple: true }) === 2 ? 'incremental' : 'not_converted';
}

function noRoomToDelete(file: string): OperatorError {
  return new OperatorError({
    code: 'disk_full',
    reason: 'disk_full',
    message: `The run’s output could not be deleted: the disk of ${path.dirname(file)} is so full that the ledger cannot even note the deletion. Free a few MiB on that disk (outside the data directory), then delete it again.`,
  });
}

/** Room a conversion leaves free beyond what it needs, so the console itself can go on writing. */
const conversionMarginBytes = 64 * 1024 * 1024;
/** Above this much in use, the person at the terminal is told the start takes longer, once. */
const conversionWorthSayingBytes = 256 * 1024 * 1024;

/**
 * A ledger made by an earlier console is in no auto-vacuum mode, and SQLite switches a file with
 * tables only by rewriting it whole (VACUUM). That is done here, once, at start (before anything else
 * uses the ledger: a safe time), and only when the disks have room for it: the rewritten file goes
 * through the WAL (about its size in use) and is built in SQLite's temporary folder first (the same
 * again). Without the room the ledger stays as it is, keeps its free pages for new output, and the
 * next start tries again; Clean up says why nothing can be given back meanwhile.
 */
export function convertForReclaim(db: LedgerDb, file: string, log: Logger | undefined): LedgerReclaimMode {
  if (reclaimMode(db) === 'incremental') return 'incremental';
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const inUse = ((db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number)) * pageSize;
  const dataDir = path.dirname(file);
  const tempDir = sqliteTempDir();
  const sameDisk = tempDir !== null && deviceOf(tempDir) === deviceOf(dataDir);
  const needed = { data: inUse * (sameDisk ? 2 : 1) + conversionMarginBytes, temp: sameDisk ? 0 : inUse + conversionMarginBytes };
  const free = { data: freeDiskBytesSync(dataDir), temp: tempDir && !sameDisk ? freeDiskBytesSync(tempDir) : null };
  if ((free.data !== null && free.data < needed.data) || (free.temp !== null && free.temp < needed.temp)) {
    log?.warn('the ledger was not converted to give deleted runs’ space back to the disk: its disk has too little room for that; the next start tries again', {
      inUse: describeBytes(inUse),
      needed: describeBytes(needed.data),
      free: free.data === null ? null : describeBytes(free.data),
      tempDir,
    });
    return 'not_converted';
  }
  if (inUse >= conversionWorthSayingBytes) {
    log?.warn(`converting the ledger (${describeBytes(inUse)}) once, so that deleting runs gives their disk space back; this start takes longer than usual`);
  }
  const started = Date.now();
  const sizeBefore = sizeOf(file);
  try {
    db.pragma('auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
  } catch (error) {
    log?.warn('the ledger could not be converted to give deleted runs’ space back to the disk; the next start tries again', { error: error instanceof Error ? error.message : String(error) });
  } finally {
    // Whether or not it finished, the WAL does not keep the copy: it goes into the file, and the WAL is emptied.
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Busy or full: the writer's checkpoints get to it.
    }
  }
  const mode = reclaimMode(db);
  if (mode === 'incremental') log?.info('ledger converted to give deleted runs’ space back to the disk', { ms: Date.now() - started, bytesBefore: sizeBefore, bytesAfter: sizeOf(file) });
  return mode;
}

/** Where SQLite builds its temporary files on Unix: the first of these that is a writable folder. */
function sqliteTempDir(): string | null {
  for (const dir of [process.env.SQLITE_TMPDIR, process.env.TMPDIR, '/var/tmp', '/usr/tmp', '/tmp']) {
    if (!dir) continue;
    try {
      if (!statSync(dir).isDirectory()) continue;
      accessSync(dir, constants.W_OK | constants.X_OK);
      return dir;
    } catch {
      // Not there, or not writable: SQLite tries the next.
    }
  }
  return null;
}

function deviceOf(dir: string): number | null {
  return statSync(dir, { throwIfNoEntry: false })?.dev ?? null;
}
