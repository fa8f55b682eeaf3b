import { app as electronApp, dialog as electronDialog } from 'electron';
import type { LedgerDamagedError } from '../ledger/ledger-damage';
import { restoreLedgerBackup } from '../ledger/ledger-restore';

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
export async function offerLedgerRestore(error: LedgerDamagedError, options: OfferLedgerRestoreOptions): Promise<'restored' | 'quit' | 'failed'> {
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
