// Finding the Electron executable, for `npm start` (scripts/start.mjs) and the native-module step
// (scripts/prepare-native.mjs). Kept apart from both so it can be unit tested.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** @import { ElectronBinaryResult, ElectronLookup } from './electron-binary.mjs' */

const pathMarker = 'operator-console-electron-path=';

/**
 * Where the electron package puts the executable inside its dist directory (as its install.js does).
 * @param {NodeJS.Platform} platform
 */
export function platformExecutable(platform = process.platform) {
  if (platform === 'darwin') return 'Electron.app/Contents/MacOS/Electron';
  if (platform === 'win32') return 'electron.exe';
  return 'electron';
}

/** @param {string} file */
function isFile(file) {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * node_modules/electron/path.txt: written by the package once it has downloaded its binary.
 * @param {string} appDir
 */
function recordedExecutable(appDir) {
  const pathFile = path.join(appDir, 'node_modules', 'electron', 'path.txt');
  return existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
}

/**
 * The executable inside ELECTRON_OVERRIDE_DIST_PATH, honoured the way the electron package does:
 * path.txt's name if the package recorded one, else the platform's usual name.
 * @param {string} appDir
 * @param {string} overrideDir
 * @param {NodeJS.Platform} platform
 */
function overrideExecutable(appDir, overrideDir, platform) {
  const names = [recordedExecutable(appDir) ?? '', platformExecutable(platform), 'electron'].filter((name) => name !== '');
  for (const name of names) {
    const candidate = path.join(overrideDir, name);
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * An Electron executable that is already on disk, without downloading anything: the override, or the
 * binary the electron package downloaded. Undefined when there is none.
 * @param {ElectronLookup} lookup
 */
export function installedElectronBinary({ appDir, env = process.env, platform = process.platform }) {
  if (env.ELECTRON_OVERRIDE_DIST_PATH) return overrideExecutable(appDir, env.ELECTRON_OVERRIDE_DIST_PATH, platform);
  const recorded = recordedExecutable(appDir);
  if (!recorded) return undefined;
  const candidate = path.join(appDir, 'node_modules', 'electron', 'dist', recorded);
  return isFile(candidate) ? candidate : undefined;
}

/**
 * The first error message in a Node stack dump: the root cause, not the wrapper that rethrew it.
 * @param {string} stderr
 */
export function shortReason(stderr) {
  const match = /^\s*(?:[A-Za-z]*Error|Error \[\w+\]): (.+)$/m.exec(stderr);
  const line = match?.[1] ?? stderr.split('\n').find((text) => text.trim())?.trim() ?? 'no output';
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

/**
 * Finds the Electron executable. Resolves to { ok: true, path } or { ok: false, reason } (a short
 * phrase for the one line `npm start` prints); never rejects.
 *
 * Without an override, this asks the electron package in a child process: requiring it downloads the
 * binary on first use (which may take a while, hence the long timeout) and throws where it cannot,
 * and a child process keeps both the download's output and a failure out of this process.
 * @param {ElectronLookup & { timeoutMs?: number }} lookup
 * @returns {Promise<ElectronBinaryResult>}
 */
export function findElectronBinary({ appDir, env = process.env, platform = process.platform, timeoutMs = 120_000 }) {
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const found = overrideExecutable(appDir, env.ELECTRON_OVERRIDE_DIST_PATH, platform);
    return Promise.resolve(
      found
        ? { ok: true, path: found }
        : { ok: false, reason: `no Electron executable in ELECTRON_OVERRIDE_DIST_PATH=${env.ELECTRON_OVERRIDE_DIST_PATH}` },
    );
  }
  // The marker sets the path apart from whatever the package prints while downloading.
  const script = `process.stdout.write('\\n${pathMarker}' + require('electron') + '\\n')`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-e', script],
      { cwd: appDir, env, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) {
          if (error.killed) resolve({ ok: false, reason: `the electron package did not answer within ${Math.round(timeoutMs / 1000)} s` });
          else resolve({ ok: false, reason: `the electron package could not provide it: ${shortReason(String(stderr))}` });
          return;
        }
        const line = String(stdout)
          .split('\n')
          .find((text) => text.startsWith(pathMarker));
        const found = line?.slice(pathMarker.length).trim();
        if (!found) resolve({ ok: false, reason: 'the electron package did not name an executable' });
        else if (!isFile(found)) resolve({ ok: false, reason: `${found} does not exist` });
        else resolve({ ok: true, path: found });
      },
    );
  });
}

/**
 * The Electron version and ABI from the installed electron package, or undefined without one.
 * @param {string} appDir
 */
export function electronPackageInfo(appDir) {
  const packageDir = path.join(appDir, 'node_modules', 'electron');
  try {
    /** @type {unknown} */
    const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    const version = typeof manifest === 'object' && manifest !== null && 'version' in manifest ? manifest.version : undefined;
    const abi = readFileSync(path.join(packageDir, 'abi_version'), 'utf8').trim();
    if (typeof version !== 'string' || !/^\d+$/.test(abi)) return undefined;
    return { version, abi };
  } catch {
    return undefined;
  }
}

/**
 * Where scripts/prepare-native.mjs puts the Electron-ABI better-sqlite3 (electron/shell/native-binding.ts reads it).
 * @param {string} appDir
 * @param {string} abi
 */
export function electronSqlitePath(appDir, abi) {
  return path.join(appDir, 'native', `electron-abi${abi}`, 'better_sqlite3.node');
}
