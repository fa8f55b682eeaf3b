import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** The console version this checkout builds (package.json), as the bundler writes it into the build. */
export const builtVersion = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * A build of the console that says it is another version: a copy of this build inside the repository
 * (so its imports still find node_modules) with the version the bundler wrote in replaced. Returns its
 * serve entry, and the function that removes it.
 */
export function otherVersionBuild(version: string): { serveEntry: string; remove(): void } {
  const root = path.join(repoRoot, 'test-results', `oc-other-version-${process.pid}-${Date.now()}`);
  mkdirSync(root, { recursive: true });
  cpSync(path.join(repoRoot, 'dist'), path.join(root, 'dist'), { recursive: true });
  const ours = JSON.stringify(builtVersion);
  let replaced = 0;
  for (const entry of readdirSync(path.join(root, 'dist', 'electron'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    if (!text.includes(ours)) continue;
    writeFileSync(file, text.replaceAll(ours, JSON.stringify(version)));
    replaced += 1;
  }
  if (replaced === 0) throw new Error(`no file of the build names the version ${builtVersion}`);
  return { serveEntry: path.join(root, 'dist', 'electron', 'serve.js'), remove: () => rmSync(root, { recursive: true, force: true }) };
}
