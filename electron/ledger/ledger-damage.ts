import path from 'node:path';
import Database from 'better-sqlite3';
import { OperatorError } from '../../shared/errors';
import { describeBackup, type LedgerBackup } from './ledger-backups';

/**
 * A ledger SQLite cannot read: a file that is not a database, one cut short, or one with a corrupt page.
 * SQLite's own words ("file is not a database", "database disk image is malformed") name neither the
 * file nor a way out, so the console says which file it is, that it was left as it was, and how to get
 * back to the newest backup (scripts/restore-ledger.mjs; the desktop app offers it as a button).
 */
export class LedgerDamagedError extends OperatorError {
  readonly file: string;
  readonly newestBackup: LedgerBackup | null;
  /** What SQLite said, for the log and the operator who wants to know. */
  readonly sqliteMessage: string;

  constructor(args: { file: string; newestBackup: LedgerBackup | null; sqliteMessage: string }) {
    super({ code: 'ledger_damaged', message: damagedLedgerMessage(args) });
    this.name = 'LedgerDamagedError';
    this.file = args.file;
    this.newestBackup = args.newestBackup;
    this.sqliteMessage = args.sqliteMessage;
  }
}

/**
 * For the request dispatcher: a page that goes bad while the console runs (the output is not checked
 * at start) is named as the damaged ledger it is, with the way back, and no more daily copies are
 * taken of it. Any other failure is left for the dispatcher to answer (undefined).
 */
export function explainLedgerDamage(
  ledger: { file: string; backups: { newest(): LedgerBackup | null } },
  dailyBackup: { ledgerFoundDamaged(): void },
): (error: unknown) => LedgerDamagedError | undefined {
  return (error) => {
    if (!isLedgerDamage(error)) return undefined;
    dailyBackup.ledgerFoundDamaged();
    return new LedgerDamagedError({ file: ledger.file, newestBackup: ledger.backups.newest(), sqliteMessage: error.message });
  };
}

/** SQLite's answers that mean the file itself is bad (not busy, not full, not a mistake in our SQL). */
export function isLedgerDamage(error: unknown): error is InstanceType<typeof Database.SqliteError> {
  if (!(error instanceof Database.SqliteError)) return false;
  return error.code.startsWith('SQLITE_CORRUPT') || error.code.startsWith('SQLITE_NOTADB');
}

/** The command that restores a backup, as the operator can paste it into a shell. */
export function restoreCommand(backupFile: string): string {
  return `npm run ledger:restore -- ${shellQuote(backupFile)}`;
}

function damagedLedgerMessage(args: { file: string; newestBackup: LedgerBackup | null; sqliteMessage: string }): string {
  const what = `The ledger ${args.file} is damaged and cannot be read (SQLite: ${args.sqliteMessage}). The console left it as it is.`;
  if (args.newestBackup) {
    return (
      `${what} To go back to its newest backup, ${describeBackup(args.newestBackup)} (${args.newestBackup.file}), ` +
      `stop every console on this data directory and run \`${restoreCommand(args.newestBackup.file)}\`; ` +
      'the damaged file is kept beside it. Runs recorded since that backup are lost.'
    );
  }
  const dataDir = path.dirname(args.file);
  return (
    `${what} There is no backup of it in ${path.join(dataDir, 'backups')}. To start with an empty ledger, ` +
    `stop the console and move ${path.basename(args.file)} (and any ${path.basename(args.file)}-wal) out of ${dataDir}; ` +
    'keep it: the sqlite3 shell\'s `.recover` can often get most of it back.'
  );
}

function shellQuote(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
