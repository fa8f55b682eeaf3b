import { describe, expect, it, vi } from 'vitest';
import { nativeThemeStandIn } from './electron-stand-ins';
import { appWindowOptions, windowBackground } from './window-options';

vi.mock('electron', async () => (await import('./electron-stand-ins')).electronStandIn);

describe('the console window', () => {
  it('keeps Node out of the page: isolated, sandboxed, no node integration, web security on', () => {
    const { webPreferences } = appWindowOptions({ preloadPath: '/app/dist/electron/preload.cjs' });
    expect(webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
      spellcheck: false,
    });
  });

  it('loads the built CommonJS preload', () => {
    expect(appWindowOptions({ preloadPath: '/app/dist/electron/preload.cjs' }).webPreferences?.preload).toBe(
      '/app/dist/electron/preload.cjs',
    );
  });

  it('paints the background of the system theme, so dark mode does not flash white', () => {
    nativeThemeStandIn.shouldUseDarkColors = true;
    expect(appWindowOptions({ preloadPath: 'p' }).backgroundColor).toBe(windowBackground.dark);
    nativeThemeStandIn.shouldUseDarkColors = false;
    expect(appWindowOptions({ preloadPath: 'p' }).backgroundColor).toBe(windowBackground.light);
  });
});
