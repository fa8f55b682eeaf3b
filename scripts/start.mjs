// `npm start [-- args]`: builds the console if needed and opens the desktop app. Where the Electron
// binary is unavailable (it cannot be downloaded on some machines), it says so in one line on stderr
// and serves the same console through the browser host (scripts/serve.mjs) instead.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronPackageInfo, electronSqlitePath, findElectronBinary } from './electron-binary.mjs';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const passThroughArgs = process.argv.slice(2);

const buildOutputs = ['dist/electron/main.js', 'dist/electron/preload.cjs', 'dist/renderer/index.html'];
const sourceDirs = ['electron', 'shared', 'renderer'];
const sourceFiles = ['vite.config.ts', 'package.json'];

// Progress lines only for a person at a terminal: scripts and tests get exactly one line on fallback.
const say = (/** @type {string} */ line) => {
  if (process.stderr.isTTY) process.stderr.write(`${line}\n`);
};

/**
 * The newest modification time under a directory, skipping tests (they are not part of the build).
 * @param {string} dir
 * @returns {number}
 */
function newestMtime(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (!/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function buildIsStale() {
  const outputs = buildOutputs.map((file) => path.join(appDir, file));
  if (!outputs.every((file) => existsSync(file))) return true;
  const oldestOutput = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  const newestSource = Math.max(
    ...sourceDirs.map((dir) => newestMtime(path.join(appDir, dir))),
    ...sourceFiles.map((file) => (existsSync(path.join(appDir, file)) ? statSync(path.join(appDir, file)).mtimeMs : 0)),
  );
  return newestSource > oldestOutput;
}

/** The same three builds as `npm run build`, run with vite directly so npm's banners stay out of the output. */
function build() {
  say('Operator Console: building...');
  const vite = path.join(appDir, 'node_modules', 'vite', 'bin', 'vite.js');
  for (const mode of ['renderer', 'node', 'preload']) {
    const result = spawnSync(process.execPath, [vite, 'build', '--mode', mode], { cwd: appDir, encoding: 'utf8' });
    if (result.status !== 0) {
      process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
      process.stderr.write(`Operator Console: the ${mode} build failed (see above); fix it and run npm start again.\n`);
      process.exit(1);
    }
  }
}

/**
 * The electron package downloads its binary lazily, so on a fresh install the postinstall step had no
 * Electron to build better-sqlite3 for. Now that there is one, make that copy before the app needs it.
 */
function ensureElectronSqlite() {
  const info = electronPackageInfo(appDir);
  if (!info || existsSync(electronSqlitePath(appDir, info.abi))) return;
  say('Operator Console: building the SQLite module for Electron...');
  spawnSync(process.execPath, [path.join(appDir, 'scripts', 'prepare-native.mjs')], { cwd: appDir, stdio: ['ignore', 2, 2] });
}

/**
 * Runs a child with the terminal, passes Ctrl-C and termination on to it, and exits with its code.
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions} options
 * @param {(error: Error) => void} onSpawnError
 */
function runForwarding(command, args, options, onSpawnError) {
  const child = spawn(command, args, { cwd: appDir, stdio: 'inherit', ...options });
  const forward = (/** @type {NodeJS.Signals} */ signal) => () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const handlers = { SIGINT: forward('SIGINT'), SIGTERM: forward('SIGTERM') };
  for (const [signal, handler] of Object.entries(handlers)) process.on(signal, handler);
  child.on('error', (error) => {
    for (const [signal, handler] of Object.entries(handlers)) process.off(signal, handler);
    onSpawnError(error);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1));
  });
}

/** @param {string} reason */
function serveInBrowser(reason) {
  process.stderr.write(`Electron binary unavailable (${reason}); serving Operator Console in your browser instead.\n`);
  runForwarding(process.execPath, [path.join(appDir, 'scripts', 'serve.mjs'), ...passThroughArgs], {}, (error) => {
    process.stderr.write(`Operator Console: could not start the browser host: ${error.message}\n`);
    process.exit(1);
  });
}

if (buildIsStale()) build();

const electron = await findElectronBinary({ appDir });
if (!electron.ok) {
  serveInBrowser(electron.reason);
} else {
  ensureElectronSqlite();
  const env = { ...process.env };
  // Set by some editors' terminals; it would make Electron run this app as a plain Node script.
  delete env.ELECTRON_RUN_AS_NODE;
  runForwarding(electron.path, ['.', ...passThroughArgs], { env }, (error) => serveInBrowser(`${electron.path} did not start: ${error.message}`));
}
