import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Session, WebContents } from 'electron';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../platform/log';
import { fileAppLocation } from './app-location';
import { contentSecurityPolicy, installContentSecurityPolicy } from './content-security-policy';
import { navigationEvent, StandInSession, StandInWebContents } from './electron-stand-ins';
import { denyPermissions, guardNavigation } from './navigation-guard';

const rendererDir = path.resolve('/opt/operator-console/dist/renderer');
const location = fileAppLocation(rendererDir);

function guardedWindow() {
  const contents = new StandInWebContents(location.indexUrl);
  const log = createMemoryLogger();
  guardNavigation(contents as unknown as WebContents, location, log);
  return { contents, log };
}

describe('the navigation guard', () => {
  it('prevents navigating or redirecting the window to a website or another local file', () => {
    const { contents, log } = guardedWindow();
    for (const [kind, url] of [
      ['will-navigate', 'https://attacker.example/phish'],
      ['will-navigate', pathToFileURL('/etc/passwd').href],
      ['will-redirect', 'http://127.0.0.1:9999/'],
    ] as const) {
      const event = navigationEvent(url);
      contents.emit(kind, event);
      expect(event.defaultPrevented, `${kind} ${url}`).toBe(true);
    }
    expect(log.lines.filter((line) => line.message === 'navigation refused')).toHaveLength(3);
  });

  it('lets the window reload its own page', () => {
    const { contents } = guardedWindow();
    const event = navigationEvent(`${location.indexUrl}#/runs`);
    contents.emit('will-navigate', event);
    expect(event.defaultPrevented).toBe(false);
  });

  it('denies window.open, for websites and the app alike', () => {
    const { contents } = guardedWindow();
    expect(contents.windowOpenHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler?.({ url: location.indexUrl })).toEqual({ action: 'deny' });
  });

  it('hands the system browser only the forge addresses the console recorded, and still opens no window', () => {
    const contents = new StandInWebContents(location.indexUrl);
    const log = createMemoryLogger();
    const opened: string[] = [];
    const recorded = 'https://github.com/acme/refunds/compare/main...operator-console/run_1?expand=1';
    guardNavigation(contents as unknown as WebContents, location, log, {
      openExternal: (url) => {
        if (url !== recorded) return false;
        opened.push(url);
        return true;
      },
    });
    expect(contents.windowOpenHandler?.({ url: recorded })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler?.({ url: 'https://attacker.example/phish' })).toEqual({ action: 'deny' });
    expect(opened).toEqual([recorded]);
    expect(log.lines.map((line) => line.message)).toEqual(['forge address opened in the browser', 'window.open refused']);
  });

  it('refuses to attach a webview', () => {
    const { contents } = guardedWindow();
    const event = navigationEvent('');
    contents.emit('will-attach-webview', event, {}, {});
    expect(event.defaultPrevented).toBe(true);
  });
});

describe('permissions', () => {
  const session = new StandInSession();
  denyPermissions(session as unknown as Session, location);
  const contents = new StandInWebContents(location.indexUrl);

  const request = (permission: string, requestingUrl: string) => {
    let granted: boolean | undefined;
    (session.permissionRequestHandler as unknown as (...args: unknown[]) => void)(
      contents,
      permission,
      (answer: boolean) => (granted = answer),
      { requestingUrl },
    );
    return granted;
  };

  it('refuses camera, microphone, notifications, geolocation and the rest', () => {
    for (const permission of ['media', 'notifications', 'geolocation', 'openExternal', 'clipboard-read']) {
      expect(request(permission, location.indexUrl), permission).toBe(false);
    }
  });

  it("allows the app's own page to write to the clipboard (the terminal's copy), nobody else", () => {
    expect(request('clipboard-sanitized-write', location.indexUrl)).toBe(true);
    expect(request('clipboard-sanitized-write', 'https://example.com/')).toBe(false);
    const check = session.permissionCheckHandler as unknown as (...args: unknown[]) => boolean;
    expect(check(contents, 'clipboard-sanitized-write', 'file:///', { requestingUrl: location.indexUrl })).toBe(true);
    expect(check(contents, 'media', 'file:///', { requestingUrl: location.indexUrl })).toBe(false);
  });
});

describe('the content security policy header', () => {
  const session = new StandInSession();
  installContentSecurityPolicy(session as unknown as Session, location);
  const respond = (url: string, responseHeaders: Record<string, string[]> = {}) => {
    let answer: unknown;
    session.headersListener?.({ url, responseHeaders }, (response) => (answer = response));
    return answer as { responseHeaders?: Record<string, string[]> };
  };

  it("is the strict policy, on the app's own files, replacing any other", () => {
    const answer = respond(pathToFileURL(path.join(rendererDir, 'index.html')).href, {
      'content-security-policy': ["default-src *"],
      'Content-Type': ['text/html'],
    });
    expect(answer.responseHeaders).toEqual({
      'Content-Type': ['text/html'],
      'Content-Security-Policy': [contentSecurityPolicy],
    });
    expect(contentSecurityPolicy).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    );
  });

  it('leaves responses from anywhere else alone', () => {
    expect(respond('https://example.com/')).toEqual({});
  });
});
