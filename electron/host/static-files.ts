import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** The built renderer, as the browser host serves it: which file a URL path names, and its type. */

export const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/**
 * Maps a URL path to a file inside the static root, or nothing. The resolved path (symlinks too) must
 * stay under the root, so "..", encoded slashes and links cannot reach the rest of the disk.
 */
export async function resolveStaticFile(root: string, pathname: string): Promise<{ path: string; size: number } | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const relative = decoded === '/' ? 'index.html' : `.${decoded}`;
  const candidate = path.resolve(root, relative);
  if (!isInside(root, candidate)) return undefined;
  try {
    const real = await realpath(candidate);
    if (!isInside(root, real)) return undefined;
    const info = await stat(real);
    if (!info.isFile()) return undefined;
    return { path: real, size: info.size };
  } catch {
    return undefined;
  }
}

function isInside(root: string, candidate: string): boolean {
  return candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}
