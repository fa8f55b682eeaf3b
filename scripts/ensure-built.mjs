// Builds the console when one of the files a script runs from is missing. The build's own output goes
// to stderr: the browser host's stdout must stay exactly one line (the address).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @param {string[]} files paths relative to the repository root
 */
export function ensureBuilt(files) {
  if (files.every((file) => existsSync(path.join(repoRoot, file)))) return;
  process.stderr.write('Operator Console: not built yet; running `npm run build` first.\n');
  // Under npm, npm_execpath is npm's own CLI script: running it with this node avoids needing a shell.
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli
    ? [process.execPath, [npmCli, 'run', 'build']]
    : [process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build']];
  const result = spawnSync(command, args, {
    cwd: repoRoot,
    stdio: ['ignore', 2, 2],
    shell: !npmCli && process.platform === 'win32',
  });
  if (result.status !== 0) {
    process.stderr.write(`Operator Console: the build failed (${result.error?.message ?? `exit code ${result.status}`}); see above.\n`);
    process.exit(1);
  }
}
