import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Where the app's own page lives. Every security check in the shell (navigation, IPC sender, CSP)
 * asks the same question, "is this URL our index page?", so it is answered once, here.
 */
export interface AppLocation {
  /** The URL the window loads: dist/renderer/index.html as a file:// URL, or a dev server's page. */
  readonly indexUrl: string;
  /** The built renderer's directory, whose files the CSP header covers. Undefined for a dev server. */
  readonly rendererDir: string | undefined;
  /** True when `url` is the index page itself, at any in-app (hash) route. */
  isAppPage(url: string): boolean;
  /** True when `url` is one of the app's own files (the page, its scripts, styles and images). */
  isAppResource(url: string): boolean;
}

/** The built renderer: dist/renderer/index.html, loaded with loadFile. */
export function fileAppLocation(rendererDir: string): AppLocation {
  const indexUrl = pathToFileURL(path.join(rendererDir, 'index.html')).href;
  // The trailing slash keeps /dist/renderer-other/ from passing as /dist/renderer/.
  const dirUrl = pathToFileURL(rendererDir + path.sep).href;
  return {
    indexUrl,
    rendererDir,
    isAppPage: (url) => withoutHashOrQuery(url) === indexUrl,
    isAppResource: (url) => {
      const bare = withoutHashOrQuery(url);
      return bare !== undefined && bare.startsWith(dirUrl);
    },
  };
}

/**
 * A Vite dev server's page, for working on the renderer inside Electron. Only loopback http URLs are
 * accepted: the window's preload grants full access to the core, so it must never load a remote page.
 */
export function devServerAppLocation(rawUrl: string): AppLocation {
  const url = new URL(rawUrl);
  const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
  if (url.protocol !== 'http:' || !loopback) {
    throw new Error(`The renderer dev server must be a loopback http:// URL, not ${rawUrl}.`);
  }
  url.hash = '';
  url.search = '';
  const indexUrl = url.href;
  const origin = url.origin;
  return {
    indexUrl,
    rendererDir: undefined,
    isAppPage: (candidate) => {
      const bare = withoutHashOrQuery(candidate);
      return bare === indexUrl || bare === new URL('index.html', indexUrl).href;
    },
    isAppResource: (candidate) => {
      try {
        return new URL(candidate).origin === origin;
      } catch {
        return false;
      }
    },
  };
}

/** The URL with its fragment and query removed, normalised by the URL parser; undefined if unparsable. */
function withoutHashOrQuery(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    url.hash = '';
    url.search = '';
    return url.href;
  } catch {
    return undefined;
  }
}
