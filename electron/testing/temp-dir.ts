import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A fresh temp directory per test, removed afterwards; tests use real files, never mocks of fs. */
export function makeTempDir(prefix = 'oc-test-'): { path: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { path: dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
