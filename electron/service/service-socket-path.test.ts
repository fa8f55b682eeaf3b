import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareServiceSocketFolder, serviceSocketPath } from './service-socket-path';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'oc-socket-path-'));
  dirs.push(dir);
  return dir;
}

describe('where the console service listens', () => {
  it('in <data dir>/service/console.sock, made private before anything listens there', () => {
    const dataDir = tempDir();
    const socketPath = serviceSocketPath(dataDir, {});
    expect(socketPath).toBe(path.join(dataDir, 'service', 'console.sock'));
    prepareServiceSocketFolder(socketPath);
    expect(statSync(path.dirname(socketPath)).mode & 0o777).toBe(0o700);
  });

  it('for a data directory too deep for a socket path, in the runtime folder under a private folder of this user, one per data directory', () => {
    const runtime = tempDir();
    const deep = path.join(tempDir(), 'a'.repeat(60), 'b'.repeat(60));
    const socketPath = serviceSocketPath(deep, { XDG_RUNTIME_DIR: runtime });
    expect(path.dirname(socketPath)).toBe(path.join(runtime, `operator-console-${process.getuid!()}`));
    expect(Buffer.byteLength(socketPath)).toBeLessThanOrEqual(103);
    expect(serviceSocketPath(`${deep}-other`, { XDG_RUNTIME_DIR: runtime })).not.toBe(socketPath);
    expect(serviceSocketPath(deep, { XDG_RUNTIME_DIR: runtime })).toBe(socketPath);
    prepareServiceSocketFolder(socketPath);
    expect(statSync(path.dirname(socketPath)).mode & 0o777).toBe(0o700);
  });

  it('refuses a folder that is a link (someone else may have planted it), saying what to remove', () => {
    const runtime = tempDir();
    const elsewhere = tempDir();
    const socketPath = serviceSocketPath(path.join(tempDir(), 'x'.repeat(120)), { XDG_RUNTIME_DIR: runtime });
    mkdirSync(runtime, { recursive: true });
    symlinkSync(elsewhere, path.dirname(socketPath));
    expect(() => prepareServiceSocketFolder(socketPath)).toThrow(/is not a folder \(a link or a file is in the way\); remove it and start again/);
  });
});
