// The package's postinstall (`node scripts/prepare-native.mjs [--force]`): makes a second copy of
// better-sqlite3's native addon, built for Electron's ABI, in native/electron-abi<abi>/.
//
// Why a second copy: node_modules/better-sqlite3 is built for Node (ABI 115 on Node 20), which the
// tests and the browser host need; Electron (ABI 150 for Electron 45) refuses that build. The desktop
// app passes the copy to better-sqlite3 as its `nativeBinding` (electron/shell/native-binding.ts), so
// the Node build is never touched. node-pty needs no copy: it is an N-API addon, loadable by both.
//
// Never fails `npm install`: every outcome is one line and exit code 0.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronPackageInfo, electronSqlitePath, installedElectronBinary } from './electron-binary.mjs';

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');
const say = (/** @type {string} */ line) => process.stdout.write(`Operator Console: ${line}\n`);

/**
 * node-gyp as npm runs it for install scripts, else the copy bundled with npm, else one on PATH.
 * @returns {[command: string, args: string[]]}
 */
function nodeGypCommand() {
  if (process.env.npm_config_node_gyp && existsSync(process.env.npm_config_node_gyp)) {
    return [process.execPath, [process.env.npm_config_node_gyp]];
  }
  const bundled =
    process.platform === 'win32'
      ? path.join(path.dirname(process.execPath), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')
      : path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (existsSync(bundled)) return [process.execPath, [bundled]];
  return [process.platform === 'win32' ? 'node-gyp.cmd' : 'node-gyp', []];
}

/**
 * Runs one build step in the scratch copy, appending its output to the log; true on success.
 * @param {string} label
 * @param {string} command
 * @param {string[]} args
 * @param {string} cwd
 * @param {NodeJS.ProcessEnv} env
 * @param {string[]} logLines
 */
function run(label, command, args, cwd, env, logLines) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 10 * 60_000, windowsHide: true });
  logLines.push(`$ ${label}: ${command} ${args.join(' ')}`, result.stdout ?? '', result.stderr ?? '');
  if (result.error) logLines.push(String(result.error));
  return result.status === 0;
}

function prepare() {
  const electron = electronPackageInfo(appDir);
  if (!electron) {
    say('the electron package is not installed; skipped the Electron copy of better-sqlite3.');
    return;
  }
  if (!installedElectronBinary({ appDir })) {
    say(
      'no Electron binary is installed, so the Electron copy of better-sqlite3 was skipped ' +
        '(tests and the browser host use the Node build; `npm start` makes the copy once Electron is downloaded).',
    );
    return;
  }
  const target = electronSqlitePath(appDir, electron.abi);
  if (existsSync(target) && !force) {
    say(`better-sqlite3 for Electron ${electron.version} (ABI ${electron.abi}) is already in ${path.relative(appDir, target)}.`);
    return;
  }
  const packageDir = path.join(appDir, 'node_modules', 'better-sqlite3');
  if (!existsSync(path.join(packageDir, 'package.json'))) {
    say('better-sqlite3 is not installed; skipped its Electron copy.');
    return;
  }

  // Build in a scratch copy, so node_modules/better-sqlite3/build (the Node build) stays as it is.
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'operator-console-native-'));
  const logFile = path.join(appDir, 'native', 'prepare-native.log');
  /** @type {string[]} */
  const logLines = [];
  try {
    const copy = path.join(scratch, 'better-sqlite3');
    cpSync(packageDir, copy, { recursive: true, filter: (source) => source !== path.join(packageDir, 'build') });

    const env = { ...process.env };
    // npm describes the package being installed (this one) in npm_package_*; prebuild-install would
    // read them as better-sqlite3's own and may refuse to download.
    for (const name of Object.keys(env)) if (name.startsWith('npm_package_')) delete env[name];
    const arch = process.arch;

    const prebuildInstall = path.join(appDir, 'node_modules', 'prebuild-install', 'bin.js');
    const fetched =
      existsSync(prebuildInstall) &&
      run(
        'download a prebuilt addon',
        process.execPath,
        [prebuildInstall, '--runtime', 'electron', '--target', electron.version, '--arch', arch, '--platform', process.platform],
        copy,
        env,
        logLines,
      );
    const [gyp, gypArgs] = nodeGypCommand();
    const built =
      fetched ||
      run(
        'build from source',
        gyp,
        [
          ...gypArgs,
          'rebuild',
          '--release',
          `--target=${electron.version}`,
          `--arch=${arch}`,
          '--dist-url=https://electronjs.org/headers',
          // Electron's headers in their own cache, so they are never mistaken for Node's of the same version.
          `--devdir=${path.join(os.homedir(), '.electron-gyp')}`,
        ],
        copy,
        env,
        logLines,
      );
    const addon = path.join(copy, 'build', 'Release', 'better_sqlite3.node');
    if (!built || !existsSync(addon)) {
      mkdirSync(path.dirname(logFile), { recursive: true });
      writeFileSync(logFile, logLines.join('\n'));
      say(
        `could not download or build better-sqlite3 for Electron ${electron.version}; the desktop app cannot open its ledger until it is ` +
          `(the browser host is unaffected). Details: ${path.relative(appDir, logFile)}. Retry with \`node scripts/prepare-native.mjs --force\`.`,
      );
      return;
    }
    mkdirSync(path.dirname(target), { recursive: true });
    // Copy then rename, so a half-written addon is never where the app looks for one.
    copyFileSync(addon, `${target}.partial`);
    renameSync(`${target}.partial`, target);
    rmSync(logFile, { force: true });
    say(
      `${fetched ? 'downloaded' : 'built'} better-sqlite3 for Electron ${electron.version} (ABI ${electron.abi}) into ${path.relative(appDir, target)}.`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

try {
  prepare();
} catch (error) {
  say(`skipped the Electron copy of better-sqlite3: ${error instanceof Error ? error.message : String(error)}`);
}
process.exitCode = 0;
