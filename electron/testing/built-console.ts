import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * For tests that run the built console in processes of its own (`node dist/electron/serve.js`, the
 * service it starts): builds it when the build is missing or older than the sources, so those
 * processes run this checkout's code, not an old build.
 */

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
export const serveEntry = path.join(repoRoot, 'dist', 'electron', 'serve.js');
export const serviceEntry = path.join(repoRoot, 'dist', 'electron', 'service.js');
const buildOutputs = [serveEntry, serviceEntry, path.join(repoRoot, 'dist', 'electron', 'service-client.js'), path.join(repoRoot, 'dist', 'renderer', 'index.html')];

/** Newest non-test source under a folder. */
function newestSource(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return Math.max(newest, newestSource(full));
    return /\.test\.tsx?$/.test(entry.name) ? newest : Math.max(newest, statSync(full).mtimeMs);
  }, 0);
}

/** For beforeAll (give it two minutes). */
export function ensureConsoleBuilt(): void {
  const built = buildOutputs.every((file) => existsSync(file));
  const sources = Math.max(...['electron', 'shared', 'renderer'].map((dir) => newestSource(path.join(repoRoot, dir))));
  if (built && Math.min(...buildOutputs.map((file) => statSync(file).mtimeMs)) >= sources) return;
  // The same builds as `npm run build`, with vite directly, as scripts/start.mjs does.
  const vite = path.join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
  for (const mode of ['renderer', 'node', 'preload']) {
    const step = spawnSync(process.execPath, [vite, 'build', '--mode', mode], { cwd: repoRoot, encoding: 'utf8' });
    if (step.status !== 0) throw new Error(`the ${mode} build failed:\n${step.stdout}${step.stderr}`);
  }
}
