import { nativeTheme, type BrowserWindowConstructorOptions } from 'electron';

/** The page colours behind the first paint, so the window does not flash white in dark mode. */
export const windowBackground = { light: '#f6f7f9', dark: '#16181d' } as const;

export function currentWindowBackground(): string {
  return nativeTheme.shouldUseDarkColors ? windowBackground.dark : windowBackground.light;
}

/**
 * The console window. The renderer is treated as untrusted web content: it gets no Node, runs in the
 * OS sandbox in its own JavaScript world, and reaches the core only through the preload's fixed,
 * per-channel bridge.
 */
export function appWindowOptions(options: { preloadPath: string }): BrowserWindowConstructorOptions {
  return {
    title: 'Operator Console',
    width: 1280,
    height: 820,
    minWidth: 880,
    minHeight: 560,
    // Shown on ready-to-show, once the first frame is painted.
    show: false,
    backgroundColor: currentWindowBackground(),
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      // Operators type paths, commands and prompts; red squiggles under them help nobody.
      spellcheck: false,
    },
  };
}
