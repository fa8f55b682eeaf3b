import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, nativeTheme, Notification, session, shell } from 'electron';
import { createCore, type Core } from './core';
import { resolveDataDir } from './platform/data-dir';
import { acquireDataDirLock, type DataDirLock } from './platform/data-dir-lock';
import { installCrashHandlers } from './platform/crash-handlers';
import { isDiskFullError } from './platform/disk-space';
import { createConsoleLog, detailsInLog } from './platform/log';
import { devServerAppLocation, fileAppLocation, type AppLocation } from './shell/app-location';
import { parseShellArgs } from './shell/command-line';
import { offerRelaunch } from './shell/crash-dialog';
import { offerLedgerRestore } from './shell/damaged-ledger-dialog';
import { LedgerDamagedError } from './ledger/ledger-damage';
import { installContentSecurityPolicy } from './shell/content-security-policy';
import { bindDesktopNotifications } from './shell/desktop-notifier';
import { bindIpc } from './shell/ipc-binding';
import { describeNativeModuleFailure, electronSqliteBinding } from './shell/native-binding';
import { denyPermissions, guardNavigation } from './shell/navigation-guard';
import { createSafeStorageVault } from './shell/safe-storage-vault';
import { appWindowOptions, currentWindowBackground } from './shell/window-options';

/**
 * The desktop app's main process: a thin shell that opens one window and binds the plain-Node core to
 * it over IPC. Everything with a decision in it lives in electron/shell/ where it is unit tested;
 * this file only wires those pieces to Electron's lifecycle.
 */

// stderr from the start; the log file in the data directory once this app holds it.
const log = createConsoleLog();
// An uncaught exception or unhandled rejection is logged with its stack, then the operator is offered a relaunch.
installCrashHandlers({ log, survivable: isDiskFullError, onCrash: (crash) => void offerRelaunch(crash) });

// Built to dist/electron/main.js; the preload and the renderer are built beside it.
const distElectronDir = path.dirname(fileURLToPath(import.meta.url));
const preloadPath = path.join(distElectronDir, 'preload.cjs');
const rendererDir = path.join(distElectronDir, '..', 'renderer');

function appLocation(): AppLocation {
  // A renderer dev server is for working on the UI from a checkout; a packaged app never honours it.
  const devServerUrl = process.env.OPERATOR_CONSOLE_RENDERER_URL;
  if (devServerUrl && !app.isPackaged) return devServerAppLocation(devServerUrl);
  return fileAppLocation(rendererDir);
}

function startShell(): void {
  const args = parseShellArgs(process.argv.slice(1));
  const explicitDataDir = args.dataDir || process.env.OPERATOR_CONSOLE_DATA_DIR;
  if (explicitDataDir) {
    // Chromium's profile (and with it the single-instance lock) moves into the chosen data directory,
    // so consoles on different data directories, as the e2e tests start them, can run side by side.
    app.setPath('userData', path.join(path.resolve(explicitDataDir), 'electron-profile'));
  }

  if (!app.requestSingleInstanceLock()) {
    // Another console owns this data directory; it focuses its window (second-instance below).
    app.quit();
    return;
  }

  const windows = new Set<BrowserWindow>();
  const liveWindows = () => [...windows].filter((window) => !window.isDestroyed());

  app.on('second-instance', () => {
    const [window] = liveWindows();
    if (!window) {
      // macOS keeps the app running with no window; a second launch means "show me the console".
      if (core) openWindow();
      return;
    }
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  let location: AppLocation;
  try {
    location = appLocation();
  } catch (error) {
    failStart(error);
    return;
  }
  let core: Core | undefined;
  let dataDirLock: DataDirLock | undefined;
  let unbindIpc: (() => void) | undefined;
  let unbindNotifications: (() => void) | undefined;

  /** `route`: an in-app hash route (`#/runs/run_1`) the window opens at, instead of the start page. */
  function openWindow(route?: string): BrowserWindow {
    const window = new BrowserWindow(appWindowOptions({ preloadPath }));
    windows.add(window);
    guardNavigation(window.webContents, location, log, {
      // Only an http(s) address the console recorded on a run itself (a compare page, a pull request).
      openExternal: (url) => {
        if (!/^https?:\/\//i.test(url) || !core?.ledger.runs.isRecordedForgeAddress(url)) return false;
        void shell.openExternal(url);
        return true;
      },
    });
    window.once('ready-to-show', () => window.show());
    window.on('closed', () => windows.delete(window));
    const hash = route?.replace(/^#/, '');
    const loading = location.rendererDir
      ? window.loadFile(path.join(location.rendererDir, 'index.html'), hash ? { hash } : {})
      : window.loadURL(hash ? `${location.indexUrl}#${hash}` : location.indexUrl);
    loading.catch((error: unknown) => {
      log.error('window failed to load', {
        url: location.indexUrl,
        error: error instanceof Error ? error.message : String(error),
        advice: 'Run `npm run build` (or `npm start`, which builds when needed).',
      });
    });
    return window;
  }

  app.whenReady().then(
    async () => {
      try {
        const appDir = app.getAppPath();
        const dataDir = resolveDataDir({ flag: args.dataDir, electronUserData: app.getPath('userData') });
        // The single-instance lock keeps out a second desktop app; this one keeps out a browser host on
        // the same data directory too. Before the core, whose start-up recovery would stop its runs.
        // A refusal (DataDirLockedError) is one line naming the other console; failStart shows it.
        dataDirLock = await acquireDataDirLock({ dataDir, owner: { kind: 'desktop-app' }, log });
        log.writeToFile(dataDir);
        // safeStorage answers only after `ready`; without it the core keeps secrets with its key file.
        const vault = createSafeStorageVault() ?? undefined;
        if (!vault) log.warn('safeStorage is not available; AI connection secrets use the key file in the data directory');
        else if (!vault.protects) log.warn('safeStorage has no keyring (basic_text); AI connection secrets are not protected');
        try {
          core = createCore({
            dataDir,
            transport: 'electron',
            appVersion: __APP_VERSION__,
            log,
            sqliteNativeBinding: electronSqliteBinding(appDir),
            vault,
          });
        } catch (error) {
          if (error instanceof LedgerDamagedError) {
            // Still holding the data directory: the restore happens with no console on it.
            const lock = dataDirLock;
            log.error('the ledger is damaged', { file: error.file, sqlite: error.sqliteMessage, newestBackup: error.newestBackup?.file ?? null });
            await offerLedgerRestore(error, { dataDir, nativeBinding: electronSqliteBinding(appDir), releaseDataDir: () => lock.release().then(() => log.flush()) });
            return;
          }
          await dataDirLock.release();
          throw new Error(describeNativeModuleFailure(error, appDir) ?? (error instanceof Error ? error.message : String(error)), {
            cause: error,
          });
        }
        log.info('desktop app started', { dataDir, version: __APP_VERSION__, electron: process.versions.electron });

        installContentSecurityPolicy(session.defaultSession, location);
        denyPermissions(session.defaultSession, location);
        unbindIpc = bindIpc({ core, location, log, appContents: () => liveWindows().map((window) => window.webContents) });
        const notices = core.ledger.notices;
        unbindNotifications = bindDesktopNotifications({
          events: core.events,
          log,
          Notification,
          windows: liveWindows,
          openWindow: (route) => void openWindow(route),
          setBadgeCount: (count) => void app.setBadgeCount(count),
          openNotices: () => notices.countOpen(),
        });

        nativeTheme.on('updated', () => {
          for (const window of liveWindows()) window.setBackgroundColor(currentWindowBackground());
        });
        app.on('activate', () => {
          // macOS keeps the app running with no windows; clicking its dock icon opens one again.
          if (liveWindows().length === 0) openWindow();
        });
        openWindow();
      } catch (error) {
        failStart(error);
      }
    },
    (error: unknown) => failStart(error),
  );

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // The core closes before the app exits, so the ledger is checkpointed and no run is left mid-write.
  // before-quit fires again from the app.quit() below; by then the core is closed and quitting goes on.
  let shutdown: 'running' | 'closing' | 'closed' = 'running';
  // The data directory lock is given up last, once the core has closed.
  app.on('before-quit', (event) => {
    if (shutdown === 'closed' || !core) return;
    event.preventDefault();
    if (shutdown === 'closing') return;
    shutdown = 'closing';
    unbindIpc?.();
    unbindNotifications?.();
    void core
      .close()
      .catch((error: unknown) => log.error('core did not close cleanly', { error: error instanceof Error ? error.message : String(error) }))
      .then(() => dataDirLock?.release())
      .then(() => log.close())
      // A log that cannot be closed has no one left to tell; quitting must not become a crash report.
      .catch(() => undefined)
      .finally(() => {
        shutdown = 'closed';
        app.quit();
      });
  });

  // Ctrl-C in the terminal that ran `npm start` (which forwards it here) quits the same clean way.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
}

function failStart(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  log.error('desktop app failed to start', { error: error instanceof Error ? (error.stack ?? message) : message });
  dialog.showErrorBox('Operator Console could not start', log.file ? `${message}\n\n${detailsInLog(log)}` : message);
  void log.flush().finally(() => app.exit(1));
}

startShell();
