import { copyFileSync, existsSync, lstatSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ledgerFileName } from './ledger';
import { syncFile } from './ledger-backups';
import { inspectWithoutTrace } from './traceless-inspection';

/** A restore that did not happen: its message says why and what to do instead. Nothing was changed. */
export class LedgerRestoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LedgerRestoreError';
  }
}

export interface RestoredLedger {
  /** `<data dir>/ledger.sqlite`, now the backup's copy. */
  ledgerFile: string;
  backupFile: string;
  /** Where the ledger it replaced was moved (with its -wal beside it), or null when there was none. */
  keptAt: string | null;
}

/**
 * Puts a backup in the ledger's place. The caller holds the data directory lock (no console is using
 * the ledger). The backup is checked first; the ledger it replaces is never deleted but moved aside as
 * `ledger.sqlite.before-restore-<time>`, its -wal with it (the two belong together: the -wal may hold
 * its last transactions, and must not be applied to the backup); the -shm, an index SQLite rebuilds, is
 * removed. The copy is made under another name and renamed in, so the ledger is never half a file.
 */
export function restoreLedgerBackup(args: { dataDir: string; backupFile: string; now?: number; nativeBinding?: string | undefined }): RestoredLedger {
  const ledgerFile = path.join(args.dataDir, ledgerFileName);
  const backupFile = path.resolve(args.backupFile);
  checkBackup(backupFile, args.nativeBinding);

  const restoring = `${ledgerFile}.restoring`;
  copyFileSync(backupFile, restoring);
  syncFile(restoring);

  const aside = `${ledgerFile}.before-restore-${new Date(args.now ?? Date.now()).toISOString().replace(/:/g, '-')}`;
  const keptAt = existsSync(ledgerFile) ? aside : null;
  if (keptAt) renameSync(ledgerFile, keptAt);
  if (existsSync(`${ledgerFile}-wal`)) renameSync(`${ledgerFile}-wal`, `${aside}-wal`);
  rmSync(`${ledgerFile}-shm`, { force: true });
  renameSync(restoring, ledgerFile);
  return { ledgerFile, backupFile, keptAt };
}

/** A backup is put in place only if SQLite reads all of it. */
function checkBackup(backupFile: string, nativeBinding: string | undefined): void {
  let stat;
  try {
    stat = lstatSync(backupFile);
  } catch {
    throw new LedgerRestoreError(`There is no backup at ${backupFile}. Its folder lists the backups there are.`);
  }
  if (!stat.isFile()) throw new LedgerRestoreError(`${backupFile} is not a file; a backup is a ledger-<time>-<why>.sqlite file in the backups folder.`);
  let problem: string;
  try {
    // Read without a trace: a backup refused here is left as it was found, with nothing beside it.
    const rows = inspectWithoutTrace(backupFile, (db) => (db.pragma('quick_check') as Array<{ quick_check: string }>).map((row) => row.quick_check), { nativeBinding });
    if (rows.length === 1 && rows[0] === 'ok') return;
    problem = rows.slice(0, 3).join('; ');
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  throw new LedgerRestoreError(
    `The backup ${backupFile} cannot be read either (SQLite: ${problem}). Nothing was changed; restore an older one from ${path.dirname(backupFile)}.`,
  );
}
