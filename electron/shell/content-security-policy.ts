import type { Session } from 'electron';
import type { AppLocation } from './app-location';

/**
 * The renderer's Content Security Policy: only the app's own scripts, no plugins, no framing, and no
 * connections anywhere but the app itself (the core is reached through IPC, never the network).
 * Inline styles are allowed because React's `style` props and xterm.js set them.
 */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Adds the policy as a response header to every one of the app's own files. A header (rather than
 * only a <meta> tag) also covers `frame-ancestors`, which browsers ignore in <meta>, and cannot be
 * removed by script that manages to edit the document.
 *
 * Older Electron versions did not run webRequest listeners for file:// responses, so index.html should
 * carry the same policy in a <meta http-equiv="Content-Security-Policy"> as well; the two agree, and a
 * page under two policies must satisfy both.
 *
 * Pages from a Vite dev server get no header: its hot-reload client needs inline scripts, and the
 * packaged app never loads a dev server.
 */
export function installContentSecurityPolicy(session: Pick<Session, 'webRequest'>, location: AppLocation): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    if (location.rendererDir === undefined || !location.isAppResource(details.url)) {
      callback({});
      return;
    }
    const responseHeaders: Record<string, string[]> = {};
    for (const [name, value] of Object.entries(details.responseHeaders ?? {})) {
      // Ours replaces any policy already there, so exactly one policy is in force.
      if (name.toLowerCase() !== 'content-security-policy') responseHeaders[name] = value;
    }
    responseHeaders['Content-Security-Policy'] = [contentSecurityPolicy];
    callback({ responseHeaders });
  });
}
