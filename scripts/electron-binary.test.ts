import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findElectronBinary, installedElectronBinary, platformExecutable, shortReason } from './electron-binary.mjs';

const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oc-electron-binary-'));
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fakeExecutable(file: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}

/** An app directory whose node_modules/electron/index.js is `source`, standing in for the real package. */
function appWithElectronPackage(source: string): string {
  const appDir = tempDir();
  mkdirSync(path.join(appDir, 'node_modules', 'electron'), { recursive: true });
  writeFileSync(path.join(appDir, 'node_modules', 'electron', 'package.json'), JSON.stringify({ name: 'electron', main: 'index.js' }));
  writeFileSync(path.join(appDir, 'node_modules', 'electron', 'index.js'), source);
  return appDir;
}

/** The environment without an override, so the lookup goes through the electron package. */
function envWithoutOverride(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.ELECTRON_OVERRIDE_DIST_PATH;
  return env;
}

describe('finding the Electron binary', () => {
  it('uses the executable in ELECTRON_OVERRIDE_DIST_PATH', async () => {
    const distDir = tempDir();
    const executable = fakeExecutable(path.join(distDir, platformExecutable()));
    const result = await findElectronBinary({ appDir: tempDir(), env: { ELECTRON_OVERRIDE_DIST_PATH: distDir } });
    expect(result).toEqual({ ok: true, path: executable });
    expect(installedElectronBinary({ appDir: tempDir(), env: { ELECTRON_OVERRIDE_DIST_PATH: distDir } })).toBe(executable);
  });

  it('gives a reason when the override holds no executable', async () => {
    const distDir = tempDir();
    const result = await findElectronBinary({ appDir: tempDir(), env: { ELECTRON_OVERRIDE_DIST_PATH: distDir } });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain('ELECTRON_OVERRIDE_DIST_PATH');
  });

  it('asks the electron package, ignoring what it prints while downloading', async () => {
    const executable = fakeExecutable(path.join(tempDir(), 'electron'));
    const appDir = appWithElectronPackage(
      `console.log('Downloading Electron binary...');\nmodule.exports = ${JSON.stringify(executable)};\n`,
    );
    expect(await findElectronBinary({ appDir, env: envWithoutOverride() })).toEqual({ ok: true, path: executable });
  });

  it('gives the root cause, in short, when the package cannot download its binary', async () => {
    const appDir = appWithElectronPackage(
      "console.log('Downloading Electron binary...');\n" +
        "console.error('TypeError: fetch failed\\n    at node:internal/deps/undici/undici:14976:13');\n" +
        "throw new Error('Electron failed to install correctly. Please delete `node_modules/electron` and run \"npx install-electron --no\" manually.');\n",
    );
    const result = await findElectronBinary({ appDir, env: envWithoutOverride() });
    expect(result).toEqual({ ok: false, reason: 'the electron package could not provide it: fetch failed' });
  });

  it('gives a reason when the package names an executable that is not there', async () => {
    const appDir = appWithElectronPackage(`module.exports = ${JSON.stringify(path.join(os.tmpdir(), 'no-such-electron'))};`);
    const result = await findElectronBinary({ appDir, env: envWithoutOverride() });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('does not exist') });
  });

  it('gives up on a package that does not answer in time', async () => {
    const appDir = appWithElectronPackage('Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);');
    const result = await findElectronBinary({ appDir, env: envWithoutOverride(), timeoutMs: 500 });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('did not answer') });
  });

  it('finds an already downloaded binary without downloading', () => {
    const appDir = tempDir();
    expect(installedElectronBinary({ appDir, env: {} })).toBeUndefined();
    mkdirSync(path.join(appDir, 'node_modules', 'electron'), { recursive: true });
    writeFileSync(path.join(appDir, 'node_modules', 'electron', 'path.txt'), 'electron');
    expect(installedElectronBinary({ appDir, env: {} })).toBeUndefined();
    const executable = fakeExecutable(path.join(appDir, 'node_modules', 'electron', 'dist', 'electron'));
    expect(installedElectronBinary({ appDir, env: {} })).toBe(executable);
  });

  it('shortens a stack dump to its first error message', () => {
    expect(shortReason('TypeError: fetch failed\n    at x\nError: wrapper')).toBe('fetch failed');
    expect(shortReason('')).toBe('no output');
  });
});
