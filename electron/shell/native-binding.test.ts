import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeNativeModuleFailure, electronSqliteBinding } from './native-binding';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the Electron-ABI SQLite addon', () => {
  it('is used when prepare-native made one for this ABI, and not otherwise', () => {
    const appDir = mkdtempSync(path.join(os.tmpdir(), 'oc-native-'));
    made.push(appDir);
    expect(electronSqliteBinding(appDir, '150')).toBeUndefined();
    mkdirSync(path.join(appDir, 'native', 'electron-abi150'), { recursive: true });
    writeFileSync(path.join(appDir, 'native', 'electron-abi150', 'better_sqlite3.node'), '');
    expect(electronSqliteBinding(appDir, '150')).toBe(path.join(appDir, 'native', 'electron-abi150', 'better_sqlite3.node'));
    expect(electronSqliteBinding(appDir, '151')).toBeUndefined();
  });

  it('turns an ABI mismatch into advice that names the command to run', () => {
    const error = new Error(
      "The module 'better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 150.",
    );
    expect(describeNativeModuleFailure(error, '/app', '150')).toMatch(/node scripts\/prepare-native\.mjs/);
    expect(describeNativeModuleFailure(new Error('disk full'), '/app', '150')).toBeUndefined();
  });
});
