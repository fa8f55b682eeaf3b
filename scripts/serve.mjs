// `npm run serve -- [--port N] [--data-dir DIR]`: builds the console if it has not been built, then
// starts the browser host. Stdout must stay exactly one line (the address), so the build's own output
// goes to stderr.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serveEntry = path.join(repoRoot, 'dist', 'electron', 'serve.js');
const rendererIndex = path.join(repoRoot, 'dist', 'renderer', 'index.html');

if (!existsSync(serveEntry) || !existsSync(rendererIndex)) {
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

/** @type {unknown} The build's module, whose types are electron/host/serve.ts's. */
const serve = await import(pathToFileURL(serveEntry).href);
await /** @type {{ main(argv: string[]): Promise<void> }} */ (serve).main(process.argv.slice(2));
