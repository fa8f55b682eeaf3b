import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Finds a file under resources/ by walking up from `fromDir`. From source (electron/<domain>/) and
 * from the build (dist/electron/, or a chunk in dist/electron/chunks/) the repository root is a
 * different number of levels up, so searching is sturdier than a fixed `../..`. Not found: the
 * conventional location, so that the error names where it was expected.
 */
export function findResourceFile(relative: string, fromDir: string): string {
  const relativePath = path.join('resources', relative);
  let dir = fromDir;
  for (let level = 0; level < 6; level += 1) {
    const candidate = path.join(dir, relativePath);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.resolve(fromDir, '..', '..', relativePath);
}

export function moduleDir(importMetaUrl: string): string {
  return path.dirname(fileURLToPath(importMetaUrl));
}
