import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The core is plain Node and the renderer is web code: only the thin Electron shell may import
 * `electron` (DESIGN.md section 2). This keeps the browser host and the tests free of a binary that
 * is not available everywhere, and keeps Electron APIs out of code the renderer could reach.
 */

const repoRoot = path.resolve(import.meta.dirname, '..');
const scannedDirs = ['electron', 'shared', 'renderer'];

const electronImport =
  /(?:\bfrom\s*|\bimport\s*(?:\(\s*)?|\brequire\s*\(\s*|\bimport\s+\w+\s*=\s*require\s*\(\s*)['"`]electron(?:\/[^'"`]*)?['"`]/;

function isAllowed(relativePath: string): boolean {
  const file = relativePath.split(path.sep).join('/');
  return (
    file === 'electron/main.ts' ||
    file === 'electron/preload.ts' ||
    file.startsWith('electron/shell/') ||
    /\.test\.tsx?$/.test(file)
  );
}

function sourceFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(?:ts|tsx|mts|cts)$/.test(entry.name) ? [full] : [];
  });
}

describe('the electron import boundary', () => {
  it('recognises every way of importing electron', () => {
    for (const line of [
      "import { app } from 'electron';",
      'import type { WebContents } from "electron";',
      "import 'electron';",
      "export { ipcMain } from 'electron';",
      "const electron = require('electron');",
      "const { shell } = await import('electron');",
      "import electron = require('electron');",
      "import { ipcRenderer } from 'electron/renderer';",
    ]) {
      expect(electronImport.test(line), line).toBe(true);
    }
    expect(electronImport.test("import { x } from './electron-stand-ins';")).toBe(false);
    expect(electronImport.test("import { y } from 'electron-store';")).toBe(false);
  });

  it('finds the shell files that do import it (so the scan is not looking in the wrong place)', () => {
    const files = scannedDirs.flatMap((dir) => sourceFiles(path.join(repoRoot, dir)));
    const importing = files.filter((file) => electronImport.test(readFileSync(file, 'utf8')));
    expect(importing.map((file) => path.relative(repoRoot, file).split(path.sep).join('/'))).toEqual(
      expect.arrayContaining(['electron/main.ts', 'electron/preload.ts']),
    );
  });

  it('holds: nothing outside main.ts, preload.ts, electron/shell/ and tests imports electron', () => {
    const offenders = scannedDirs
      .flatMap((dir) => sourceFiles(path.join(repoRoot, dir)))
      .map((file) => path.relative(repoRoot, file))
      .filter((file) => !isAllowed(file) && electronImport.test(readFileSync(path.join(repoRoot, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
