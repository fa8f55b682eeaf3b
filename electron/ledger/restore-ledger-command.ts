import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveDataDir } from '../platform/data-dir';
import { acquireDataDirLock, DataDirLockedError, describeHolder } from '../platform/data-dir-lock';
import { createConsoleLog, type ConsoleLog } from '../platform/log';
import { ledgerBackupsDirName, LedgerBackups } from './ledger-backups';
import { LedgerRestoreError, restoreLedgerBackup } from './ledger-restore';
import { isEntryPoint } from '../platform/entry-point';

/**
 * `npm run ledger:restore -- [--data-dir DIR] [BACKUP]` (scripts/restore-ledger.mjs runs the built
 * entry, dist/electron/restore-ledger.js): puts a backup in the ledger's place, with no console
 * running. Given a file in a data directory's backups folder, that data directory; given none, the
 * newest backup. It holds the data directory lock meanwhile, so it refuses while a console uses the
 * directory and no console can start halfway through.
 */

export interface RestoreCommandIo {
  env?: NodeJS.ProcessEnv;
  /**
   * The console's log, as a console writes it: warnings at the terminal as sentences, every record in
   * `<data dir>/logs/console.log` once this command holds the data directory. Default: its own.
   */
  log?: ConsoleLog;
  out?: (line: string) => void;
  err?: (line: string) => void;
  now?: () => number;
}

const usage = 'Usage: npm run ledger:restore -- [--data-dir DIR] [BACKUP]';

/** Answers the exit code: 0 restored, 1 refused or failed, 2 a mistake on the command line. */
export async function restoreLedgerCommand(argv: readonly string[], io: RestoreCommandIo = {}): Promise<number> {
  const out = io.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = io.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  let values: { 'data-dir'?: string | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...argv], options: { 'data-dir': { type: 'string' } }, strict: true, allowPositionals: true }));
  } catch (error) {
    err(`Operator Console: ${error instanceof Error ? error.message : String(error)}. ${usage}`);
    return 2;
  }
  if (positionals.length > 1) {
    err(`Operator Console: name one backup to restore, not ${positionals.length}. ${usage}`);
    return 2;
  }
  const named = positionals[0] ? path.resolve(positionals[0]) : undefined;
  // A backup in <data dir>/backups/ says which data directory it belongs to.
  const dataDir = path.resolve(
    values['data-dir'] ??
      (named && path.basename(path.dirname(named)) === ledgerBackupsDirName ? path.dirname(path.dirname(named)) : resolveDataDir({ env: io.env ?? process.env })),
  );
  const backups = new LedgerBackups(dataDir);
  const backupFile = named ?? backups.newest()?.file;
  if (!backupFile) {
    err(`Operator Console: there is no backup in ${backups.dir}; nothing was changed.`);
    return 1;
  }

  const log = io.log ?? createConsoleLog();
  let lock;
  try {
    lock = await acquireDataDirLock({ dataDir, owner: { kind: 'ledger-restore' }, log });
  } catch (error) {
    if (!io.log) await log.close();
    if (!(error instanceof DataDirLockedError)) throw error;
    err(
      `Operator Console: the ledger was not restored: a console is using ${dataDir} (${describeHolder(error.holder)}). ` +
        'Stop it first, then run this again.',
    );
    return 1;
  }
  // The data directory is this command's now: what it does goes in the console's log too.
  log.writeToFile(dataDir);
  try {
    const restored = restoreLedgerBackup({ dataDir, backupFile, now: (io.now ?? Date.now)() });
    log.info('ledger restored from a backup', { ledgerFile: restored.ledgerFile, backupFile: restored.backupFile, keptAt: restored.keptAt });
    const kept = restored.keptAt ? ` The ledger it replaced is kept at ${restored.keptAt}.` : '';
    out(`Operator Console: restored ${restored.ledgerFile} from ${restored.backupFile}.${kept} Start the console again.`);
    return 0;
  } catch (error) {
    if (!(error instanceof LedgerRestoreError)) throw error;
    // Said below in its own words; the file keeps it as a record.
    log.error('ledger not restored', { backupFile, reason: error.message }, { terminal: false });
    err(`Operator Console: ${error.message}`);
    return 1;
  } finally {
    await lock.release();
    if (!io.log) await log.close();
  }
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  try {
    process.exitCode = await restoreLedgerCommand(argv);
  } catch (error) {
    process.stderr.write(`Operator Console: the ledger was not restored: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

if (isEntryPoint(import.meta.url)) void main();
