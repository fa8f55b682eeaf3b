import { app as electronApp, dialog as electronDialog } from 'electron';
import type { LedgerDamagedError } from '../ledger/ledger-damage';
import { restoreLedgerBackup } from '../ledger/ledger-restore';
import { acquireDataDirLock } from '../platform/data-dir-lock';
import type { Logger } from '../platform/log';
import type { ServiceStartError } from '../service/service-launcher';

/** The parts of Electron the dialog uses (stand-ins replace them in tests). */
export interface DamagedLedgerDialogShell {
  app: Pick<Electron.App, 'relaunch' | 'exit'>;
  dialog: Pick<Electron.Dialog, 'showMessageBox' | 'showErrorBox'>;
}

export interface OfferLedgerRestoreOptions {
  dataDir: string;
  /** The Electron-ABI better-sqlite3 addon: the backup is read before it is put in place. */
  nativeBinding?: string | undefined;
  /** Gives the data directory lock up, after the restore and before the relaunch takes it again. */
  releaseDataDir: () => Promise<void>;
  shell?: DamagedLedgerDialogShell;
}

/**
 * When the ledger cannot be read at start (the core was never made): says so, with the file and its
 * newest backup, and offers **Restore newest backup**, which does what `npm run ledger:restore` does
 * (the damaged file is moved aside, never deleted) while this app still holds the data directory,
 * then relaunches. Without a backup there is only Quit; the message says how to start afresh.
 */
export async function offerLedgerRestore(
  error: Pick<LedgerDamagedError, 'message'> & { newestBackup: { file: string } | null },
  options: OfferLedgerRestoreOptions,
): Promise<'restored' | 'quit' | 'failed'> {
  const shell = options.shell ?? { app: electronApp, dialog: electronDialog };
  const backup = error.newestBackup;
  const { response } = await shell.dialog.showMessageBox({
    type: 'error',
    title: 'Operator Console',
    message: 'The console’s ledger is damaged',
    detail: backup
      ? `${error.message}\n\nRestore newest backup puts that backup in its place and starts the console again.`
      : error.message,
    buttons: backup ? ['Restore newest backup', 'Quit'] : ['Quit'],
    defaultId: 0,
    cancelId: backup ? 1 : 0,
    noLink: true,
  });
  if (!backup || response !== 0) {
    await options.releaseDataDir();
    shell.app.exit(1);
    return 'quit';
  }
  try {
    restoreLedgerBackup({ dataDir: options.dataDir, backupFile: backup.file, nativeBinding: options.nativeBinding });
  } catch (failure) {
    await options.releaseDataDir();
    shell.dialog.showErrorBox('Operator Console could not restore the ledger', failure instanceof Error ? failure.message : String(failure));
    shell.app.exit(1);
    return 'failed';
  }
  await options.releaseDataDir();
  shell.app.relaunch();
  shell.app.exit(0);
  return 'restored';
}

/**
 * The console service refused to start on a damaged ledger (its launcher's ServiceStartError says so,
 * with the newest backup): the app offers the restore as it did before the service existed. The
 * service has given the data directory up; the app takes it for the restore, so that no console starts
 * halfway through, and the relaunch starts the service on the restored ledger.
 */
export async function offerLedgerRestoreForService(
  error: Pick<ServiceStartError, 'message'> & { ledgerDamaged: { newestBackup: string | null } },
  options: Omit<OfferLedgerRestoreOptions, 'releaseDataDir'> & { log: Logger },
): Promise<'restored' | 'quit' | 'failed'> {
  const shell = options.shell ?? { app: electronApp, dialog: electronDialog };
  let lock;
  try {
    lock = await acquireDataDirLock({ dataDir: options.dataDir, owner: { kind: 'ledger-restore' }, log: options.log });
  } catch (failure) {
    // Another console took the directory meanwhile: it is its ledger to restore now.
    shell.dialog.showErrorBox('Operator Console could not restore the ledger', failure instanceof Error ? failure.message : String(failure));
    shell.app.exit(1);
    return 'failed';
  }
  const backup = error.ledgerDamaged.newestBackup;
  return offerLedgerRestore(
    { message: error.message.replace(/^Operator Console: /, ''), newestBackup: backup ? { file: backup } : null },
    { ...options, releaseDataDir: () => lock.release() },
  );
}
