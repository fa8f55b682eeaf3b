import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { test, expect } from '@playwright/test';

/**
 * What a person sees in the terminal that started the console: sentences, never the log's JSON
 * records (those are in `<data dir>/logs/console.log`). Real processes: `npm start`'s script where the
 * Electron binary cannot be had, and the built browser host refusing a ledger.
 */

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const readyLine = /^Operator Console: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+$/;

let scratch: string;
test.beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'oc-e2e-terminal-'));
});
test.afterEach(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** The messages of the log file's whole records (the console may be writing the last one as this reads: it is left for the next look). */
function logMessages(dataDir: string): string[] {
  const file = path.join(dataDir, 'logs', 'console.log');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => (JSON.parse(line) as { message: string }).message);
}

test('npm start without Electron: its one line, the address, and on Ctrl-C one more; the records go to the log file', async () => {
  const dataDir = path.join(scratch, 'data');
  const noElectron = path.join(scratch, 'no-electron');
  mkdirSync(noElectron);
  const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start.mjs'), '--port', '0', '--data-dir', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: noElectron, OPERATOR_CONSOLE_LOG_LEVEL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stdout: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no address in 30 s:\n${stderr}`)), 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      stdout.push(line);
      if (readyLine.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  // Let start-up finish its background work (the sandbox probe, the daily backup 10 s in) before stopping.
  await expect.poll(() => logMessages(dataDir), { timeout: 25_000 }).toContain('ledger backed up');
  child.kill('SIGINT');
  expect(await exited).toBe(0);

  expect(stdout).toHaveLength(1);
  const lines = stderr.trim().split('\n');
  expect(lines[0]).toBe(`Electron binary unavailable (no Electron executable in ELECTRON_OVERRIDE_DIST_PATH=${noElectron}); serving Operator Console in your browser instead.`);
  expect(lines.at(-1)).toBe('Operator Console: SIGINT received, shutting down.');
  // Whatever else there is (a warning this machine earns) is a sentence for a person.
  for (const line of lines) expect(line).toMatch(/^(Operator Console|Electron binary unavailable)\b[^{}]*$/);
  // The records are in the log file, whole.
  expect(logMessages(dataDir)).toEqual(expect.arrayContaining(['data directory lock taken', 'browser host listening', 'ledger backed up', 'browser host closed']));
});

test('a damaged ledger: one line, exit code 1, and nothing new beside the ledger', async () => {
  const dataDir = path.join(scratch, 'data');
  mkdirSync(dataDir);
  // Not a database at all, as a disk fault or a stray copy leaves it.
  writeFileSync(path.join(dataDir, 'ledger.sqlite'), Buffer.alloc(64 * 1024, 0x5a));
  const child = spawn(process.execPath, [path.join(repoRoot, 'dist', 'electron', 'serve.js'), '--port', '0', '--data-dir', dataDir], {
    cwd: repoRoot,
    env: { ...process.env, OPERATOR_CONSOLE_LOG_LEVEL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));

  expect(code).toBe(1);
  expect(stdout).toBe('');
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^Operator Console: The ledger .*ledger\.sqlite is damaged and cannot be read \(SQLite: file is not a database\)\./);
  expect(readdirSync(dataDir).sort()).toEqual(['ledger.sqlite', 'logs']);
  // Logged by the console service, which writes and flushes the record before it tells serve.
  expect(logMessages(dataDir)).toEqual(['data directory lock taken', lines[0]]);
});
