import type { Session, WebContents } from 'electron';
import type { Logger } from '../platform/log';
import type { AppLocation } from './app-location';

/**
 * Keeps the window on the app's own page. The preload gives whatever page is loaded full use of the
 * core, so a link, a redirect or a script must never take the window somewhere else. In-app routes
 * are hash changes, which are same-document and never reach these events.
 *
 * External links are denied rather than handed to the system browser: every action link the console
 * makes is an in-app route, and opening arbitrary URLs from agent output is not worth the risk. The
 * one exception is an address the console derived itself and recorded on a run (a forge's compare
 * page, a pull request): `openExternal` is asked, and opens only those, in the system browser.
 */
export function guardNavigation(
  contents: Pick<WebContents, 'on' | 'setWindowOpenHandler'>,
  location: AppLocation,
  log: Logger,
  /** Asked of the console service (is the address recorded on a run?), hence possibly a promise. */
  options: { openExternal?: (url: string) => boolean | Promise<boolean> } = {},
): void {
  const refuseForeign = (event: { preventDefault(): void; url: string }, kind: string) => {
    if (location.isAppPage(event.url)) return;
    event.preventDefault();
    log.warn('navigation refused', { kind, url: describeUrl(event.url) });
  };
  contents.on('will-navigate', (event) => refuseForeign(event, 'navigate'));
  contents.on('will-redirect', (event) => refuseForeign(event, 'redirect'));

  contents.setWindowOpenHandler((details) => {
    // The window never opens it either way; a recorded forge address goes to the system browser.
    const said = (opened: boolean) => {
      if (opened) log.info('forge address opened in the browser', { url: describeUrl(details.url) });
      else log.warn('window.open refused', { url: describeUrl(details.url) });
    };
    const opened = options.openExternal?.(details.url) ?? false;
    if (typeof opened === 'boolean') said(opened);
    else opened.then(said, () => said(false));
    return { action: 'deny' };
  });

  // The window has webviewTag: false already; this also refuses one if that ever changes.
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    log.warn('webview refused');
  });
}

/**
 * Refuses every permission request (camera, microphone, notifications through the web API,
 * geolocation, ...). The one exception is writing to the clipboard from the app's own page, which the
 * terminal's copy command needs.
 */
export function denyPermissions(
  session: Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>,
  location: AppLocation,
): void {
  const allowed = (permission: string, url: string) =>
    permission === 'clipboard-sanitized-write' && location.isAppPage(url);
  session.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(allowed(permission, details.requestingUrl ?? contents.getURL()));
  });
  session.setPermissionCheckHandler((contents, permission, _origin, details) =>
    allowed(permission, details.requestingUrl ?? contents?.getURL() ?? ''),
  );
}

/** Enough of a URL to recognise it in the log, without query strings that might hold tokens. */
export function describeUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return url.protocol === 'file:' ? 'file://…' : `${url.protocol}//${url.host}${url.pathname}`.slice(0, 200);
  } catch {
    return 'unparsable URL';
  }
}
