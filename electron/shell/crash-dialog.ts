import { app as electronApp, dialog as electronDialog } from 'electron';
import type { Crash } from '../platform/crash-handlers';
import { noLogFile } from '../platform/log';

/** The parts of Electron the crash dialog uses (stand-ins replace them in tests). */
export interface CrashDialogShell {
  app: Pick<Electron.App, 'isReady' | 'relaunch' | 'quit' | 'exit'>;
  dialog: Pick<Electron.Dialog, 'showMessageBox' | 'showErrorBox'>;
}

/** If quitting cleanly wedges after a crash (the core may be what broke), the app exits anyway. */
export const crashQuitTimeoutMs = 5_000;

function crashDetail(crash: Crash): string {
  const where = crash.logFile ? `The details are in the console’s log, ${crash.logFile}.` : noLogFile;
  return `${crash.message.slice(0, 1000)}\n\n${where}\n\nRelaunch starts the console again; runs that were going on are shown as stranded and can be resumed.`;
}

/**
 * After a crash in the main process (platform/crash-handlers.ts has logged it): says what happened and where
 * the log is, and offers Relaunch or Quit. Either way the app quits through before-quit, which closes
 * the core and gives up the data directory, bounded in time.
 */
export async function offerRelaunch(crash: Crash, shell: CrashDialogShell = { app: electronApp, dialog: electronDialog }): Promise<'relaunch' | 'quit'> {
  const title = 'Operator Console hit an unexpected error';
  if (!shell.app.isReady()) {
    // No window can be shown yet; the error box works before ready.
    shell.dialog.showErrorBox(title, crashDetail(crash));
    shell.app.exit(1);
    return 'quit';
  }
  const { response } = await shell.dialog.showMessageBox({
    type: 'error',
    title: 'Operator Console',
    message: title,
    detail: crashDetail(crash),
    buttons: ['Relaunch', 'Quit'],
    defaultId: 0,
    cancelId: 1,
    noLink: true,
  });
  const choice = response === 0 ? 'relaunch' : 'quit';
  if (choice === 'relaunch') shell.app.relaunch();
  setTimeout(() => shell.app.exit(1), crashQuitTimeoutMs);
  shell.app.quit();
  return choice;
}
