import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, Menu, nativeImage, nativeTheme, Notification, safeStorage, session, shell, Tray } from 'electron';
import { resolveDataDir } from './platform/data-dir';
import { installCrashHandlers } from './platform/crash-handlers';
import { isDiskFullError } from './platform/disk-space';
import { createConsoleLog, detailsInLog } from './platform/log';
import { devServerAppLocation, fileAppLocation, type AppLocation } from './shell/app-location';
import { parseShellArgs } from './shell/command-line';
import { offerRelaunch } from './shell/crash-dialog';
import { installContentSecurityPolicy } from './shell/content-security-policy';
import { bindDesktopNotifications } from './shell/desktop-notifier';
import { bindIpc } from './shell/ipc-binding';
import { handSecretsKeyToService } from './shell/secrets-key';
import { backgroundRunsView, trayAvailable, watchLiveRuns, windowTitle, type BackgroundRunsView } from './shell/background-runs';
import { electronSqliteBinding } from './shell/native-binding';
import { denyPermissions, guardNavigation } from './shell/navigation-guard';
import { appWindowOptions, currentWindowBackground } from './shell/window-options';
import { quitRunsQuestion, settleRunsOnQuit } from './shell/quit-runs';
import { connectToService, ServiceVersionMismatchError, type ServiceConnection } from './service/service-client';
import { settleVersionChoice, versionChoiceOrder, versionChoiceQuestion } from './shell/version-choice';
import { attachOrStartService, ServiceStartError } from './service/service-launcher';
import { offerLedgerRestoreForService } from './shell/damaged-ledger-dialog';
import { serviceSocketPath } from './service/service-socket-path';

/**
 * The desktop app's main process: a thin shell that finds or starts the console service of its data
 * directory (electron/service/: the core in a detached process of its own, so runs outlive the app)
 * and binds each window's IPC to a connection on the service's socket. Everything with a decision in
 * it lives in electron/shell/ and electron/service/, where it is tested with the same Node client this
 * uses; this file only wires those pieces to Electron's lifecycle.
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
      if (shellConnection) openWindow();
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
  /** The shell's own connection (notifications, the badge, recorded addresses); each window has its own. */
  let shellConnection: ServiceConnection | undefined;
  let unbindIpc: (() => void) | undefined;
  let unbindNotifications: (() => void) | undefined;
  let stopWatchingRuns: (() => void) | undefined;

  // Runs going on in the service: each window's title says how many, and with no window open a tray
  // icon does (shell/background-runs.ts decides; this applies it).
  let liveRuns = 0;
  let tray: Tray | undefined;
  const backgroundView = (): BackgroundRunsView =>
    backgroundRunsView({ liveRuns, openWindows: liveWindows().length, trayAvailable: trayAvailable(process.platform, process.env), platform: process.platform });
  function showBackgroundRuns(): void {
    const view = backgroundView();
    for (const window of liveWindows()) window.setTitle(windowTitle(window.webContents.getTitle(), view));
    if (!view.tray) {
      tray?.destroy();
      tray = undefined;
      return;
    }
    tray ??= new Tray(nativeImage.createFromPath(path.join(app.getAppPath(), 'resources', 'icons', 'tray.png')));
    tray.setToolTip(view.tray.tooltip);
    tray.setContextMenu(
      Menu.buildFromTemplate(
        view.tray.menu.map((item) => ({ label: item.label, click: () => (item.action === 'open' ? void openWindow() : app.quit()) })),
      ),
    );
  }

  /** `route`: an in-app hash route (`#/runs/run_1`) the window opens at, instead of the start page. */
  function openWindow(route?: string): BrowserWindow {
    const window = new BrowserWindow(appWindowOptions({ preloadPath }));
    windows.add(window);
    guardNavigation(window.webContents, location, log, {
      // Only an http(s) address the console recorded on a run itself (a compare page, a pull request).
      openExternal: async (url) => {
        if (!/^https?:\/\//i.test(url) || !shellConnection) return false;
        const { recorded } = await shellConnection.call('isRecordedForgeAddress', { url });
        if (recorded) await shell.openExternal(url);
        return recorded;
      },
    });
    window.once('ready-to-show', () => window.show());
    // The page names itself (its page and open notices); the shell adds the runs going.
    window.on('page-title-updated', (event, title) => {
      event.preventDefault();
      window.setTitle(windowTitle(title, backgroundView()));
    });
    window.on('closed', () => {
      windows.delete(window);
      showBackgroundRuns();
    });
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
        // The service keeps console.log; the shell, a process beside it, keeps its own file.
        log.writeToFile(dataDir, { fileName: 'desktop-app.log' });
        // Find the data directory's service, or start it detached: Electron's binary run as Node, with
        // the SQLite addon built for Electron's ABI. A service of another version is refused with
        // service_version_mismatch: the operator chooses how to switch (shell/version-choice.ts).
        const sqliteBinding = electronSqliteBinding(appDir);
        const start = {
          dataDir,
          port: 0,
          serviceEntry: path.join(distElectronDir, 'service.js'),
          execPath: process.execPath,
          env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', ...(sqliteBinding ? { OPERATOR_CONSOLE_SQLITE_BINDING: sqliteBinding } : {}) },
        };
        let attached;
        try {
          attached = await attachOrStartService({ ...start, client: 'desktop-app' });
        } catch (error) {
          if (error instanceof ServiceStartError && error.ledgerDamaged) {
            // The service refused a damaged ledger: offer Restore newest backup, then relaunch.
            log.error('the ledger is damaged', { refusal: error.message, newestBackup: error.ledgerDamaged.newestBackup });
            await offerLedgerRestoreForService({ message: error.message, ledgerDamaged: error.ledgerDamaged }, { dataDir, nativeBinding: sqliteBinding, log });
            return;
          }
          if (!(error instanceof ServiceVersionMismatchError)) throw error;
          // Another version runs here: never stop its runs silently (shell/version-choice.ts).
          const question = versionChoiceQuestion(error.service, error.message, __APP_VERSION__);
          const answer = await dialog.showMessageBox({ type: 'question', ...question, defaultId: 0, cancelId: versionChoiceOrder.indexOf('quit') });
          const settled = await settleVersionChoice(versionChoiceOrder[answer.response] ?? 'quit', { socketPath: serviceSocketPath(dataDir), start, client: 'desktop-app', appVersion: __APP_VERSION__ });
          if (settled.kind === 'quit') {
            if (settled.say) await dialog.showMessageBox({ type: 'info', message: 'Switching after the runs', detail: settled.say, buttons: ['Quit'] });
            log.info('desktop app quits: another version of the service runs', { choice: versionChoiceOrder[answer.response], servicePid: error.service?.pid });
            app.exit(0);
            return;
          }
          attached = await attachOrStartService({ ...start, client: 'desktop-app' });
        }
        const connection = attached.connection;
        shellConnection = connection;
        log.info('desktop app attached to the console service', { dataDir, version: __APP_VERSION__, electron: process.versions.electron, servicePid: connection.welcome.pid, started: attached.started });
        connection.onClose(() => {
          if (shutdown !== 'running') return;
          log.error('the console service stopped', { advice: 'Quit the console and start it again; runs it had are stranded and can be resumed.' });
          dialog.showErrorBox('The console service stopped', `Quit Operator Console and start it again; runs it had are stranded and can be resumed.\n\n${detailsInLog(log)}`);
        });

        // safeStorage lives in this process only: the app unlocks the service's secrets key (and seals its
        // secrets from before the service again), so that no key is entered again (shell/secrets-key.ts).
        await handSecretsKeyToService({ connection, dataDir, sealer: safeStorage, log }).catch((error: unknown) =>
          log.warn('secrets key not handed to the console service', {
            error: error instanceof Error ? error.message : String(error),
            advice: 'Runs that need a key the desktop app saved are refused until it is; see the AI connection required notice.',
          }),
        );

        installContentSecurityPolicy(session.defaultSession, location);
        denyPermissions(session.defaultSession, location);
        const socketPath = serviceSocketPath(dataDir);
        unbindIpc = bindIpc({
          connect: () => connectToService(socketPath, { client: 'desktop-app' }),
          location,
          log,
          appContents: () => liveWindows().map((window) => window.webContents),
        });
        unbindNotifications = bindDesktopNotifications({
          events: { listen: (listener) => connection.onEvent((event, payload) => listener(event, payload as never)) },
          log,
          Notification,
          windows: liveWindows,
          openWindow: (route) => void openWindow(route),
          setBadgeCount: (count) => void app.setBadgeCount(count),
          openNotices: async () => (await connection.call('countOpenNotices')).open,
        });

        stopWatchingRuns = watchLiveRuns(connection, (count) => {
          liveRuns = count;
          showBackgroundRuns();
          // The last background run ended with no window open: nothing is left to show (macOS keeps its app).
          if (liveWindows().length === 0 && backgroundView().lastWindowClosed === 'quit') app.quit();
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
    // With runs going and a tray to show them in, the app stays there; otherwise it quits (not on macOS).
    if (backgroundView().lastWindowClosed === 'quit') app.quit();
    else showBackgroundRuns();
  });

  // Quitting the app with runs going asks once (quit-runs.ts): keep them running in the background (the
  // default, rememberable) or stop them. Then the app detaches: the service stops when no run is going
  // and no other app is attached, and otherwise goes on. before-quit fires again from app.quit() below.
  let shutdown: 'running' | 'closing' | 'closed' = 'running';
  app.on('before-quit', (event) => {
    if (shutdown === 'closed' || !shellConnection) return;
    event.preventDefault();
    if (shutdown === 'closing') return;
    shutdown = 'closing';
    const connection = shellConnection;
    void settleRunsOnQuit({
      connection,
      rememberedFile: path.join(app.getPath('userData'), 'quit-choice.json'),
      ask: async (going) => {
        const question = quitRunsQuestion(going);
        const answer = await dialog.showMessageBox({ type: 'question', ...question, defaultId: 0, cancelId: 0, checkboxChecked: false });
        return { choice: answer.response === 1 ? 'stop' : 'keep', remember: answer.checkboxChecked };
      },
    })
      .then((settled) => log.info('quitting with runs', settled))
      .catch((error: unknown) => log.warn('runs not settled on quit', { error: error instanceof Error ? error.message : String(error) }))
      .then(() => {
        unbindIpc?.();
        unbindNotifications?.();
        stopWatchingRuns?.();
        tray?.destroy();
        return connection.control('quit');
      })
      .then((result) => {
        if (!result.stopping) log.info('the console service goes on', { liveRuns: result.liveRuns, otherClients: result.otherClients });
      })
      .catch((error: unknown) => log.warn('the console service did not answer the quit', { error: error instanceof Error ? error.message : String(error) }))
      .then(() => connection.close())
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
