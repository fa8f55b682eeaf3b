import type { Logger } from '../platform/log';
import { describeError } from '../platform/log';
import type { LedgerBackup, LedgerBackups } from './ledger-backups';
import { isLedgerDamage } from './ledger-damage';
import type { LedgerDb } from './database-handle';

export const dayMs = 24 * 60 * 60 * 1000;

export interface DailyLedgerBackupOptions {
  db: LedgerDb;
  backups: LedgerBackups;
  log: Logger;
  now: () => number;
  /** The first look, after start-up has settled (the console's first seconds are its busiest). */
  firstCheckAfterMs?: number;
  /** How often it looks again whether a day has passed since the newest daily backup. */
  checkEveryMs?: number;
}

/**
 * The rolling daily copy of the ledger: taken soon after start when the newest daily backup is a day
 * old (or there is none), then whenever a day has passed, looked at every hour. One copy at a time;
 * a failed one (a full disk) is logged and tried again at the next look. A copy never waits on the
 * runs: it reads through the main connection in small steps (LedgerBackups.takeDaily).
 */
export class DailyLedgerBackup {
  private readonly options: DailyLedgerBackupOptions;
  private timers: NodeJS.Timeout[] = [];
  private inFlight: Promise<LedgerBackup | null> | null = null;
  private closed = false;
  /** Once the ledger was found damaged, copying it would only push good backups out of the rotation. */
  private damaged = false;

  constructor(options: DailyLedgerBackupOptions) {
    this.options = options;
  }

  start(): void {
    const first = setTimeout(() => void this.backUpIfDue(), this.options.firstCheckAfterMs ?? 10_000);
    const every = setInterval(() => void this.backUpIfDue(), this.options.checkEveryMs ?? 60 * 60 * 1000);
    first.unref();
    every.unref();
    this.timers = [first, every];
  }

  /** Takes a daily backup if the newest is a day old or there is none; answers it, or null if none was due. */
  backUpIfDue(): Promise<LedgerBackup | null> {
    if (this.inFlight) return this.inFlight;
    if (this.closed || this.damaged) return Promise.resolve(null);
    const now = this.options.now();
    const newest = this.options.backups.newest('daily');
    if (newest && now - newest.takenAt < dayMs) return Promise.resolve(null);
    const { backups, db, log } = this.options;
    this.inFlight = backups
      .takeDaily(db, now, { cancelled: () => this.closed })
      .then(
        (backup) => {
          log.info('ledger backed up', { file: backup.file, reason: 'daily' });
          return backup;
        },
        (error: unknown) => {
          if (this.closed) return null;
          if (isLedgerDamage(error)) this.damaged = true;
          log.warn('the daily ledger backup failed; it is tried again within the hour', { error: describeError(error), backupsDir: backups.dir });
          return null;
        },
      )
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  /** The console found a page it cannot read: no more copies of this ledger. */
  ledgerFoundDamaged(): void {
    this.damaged = true;
  }

  /** Stops the timers and a copy in flight (its partial file is removed); resolves once it has let go of the connection. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    await this.inFlight;
  }
}
