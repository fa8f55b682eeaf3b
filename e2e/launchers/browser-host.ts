import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
const readyLine = /^Operator Console: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+))$/;

export interface BrowserHost {
  url: string;
  origin: string;
  port: number;
  token: string;
  /** The host's process id (a second console on the same data directory names it when it refuses). */
  pid: number;
  dataDir: string;
  /** Everything the host printed on stdout: its contract is exactly one line. */
  stdoutLines: string[];
  stderr(): string;
  /** SIGTERM, and resolves with the exit code once it is gone. */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash would: nothing is cleaned up, the data directory stays. */
  crash(): Promise<void>;
}

/** Starts the built browser host (`dist/electron/serve.js`) on a free port and a data dir of its own. */
export async function startBrowserHost(options: { dataDir?: string; port?: number; env?: NodeJS.ProcessEnv } = {}): Promise<BrowserHost> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'oc-e2e-data-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(repoRoot, 'dist', 'electron', 'serve.js'), '--port', String(options.port ?? 0), '--data-dir', dataDir],
    { cwd: repoRoot, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stdoutLines: string[] = [];
  const lines = createInterface({ input: child.stdout! });

  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the browser host did not print its address in 20 s:\n${stderr}`)), 20_000);
    lines.on('line', (line) => {
      stdoutLines.push(line);
      const found = readyLine.exec(line);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the browser host exited (${code}) before it was ready:\n${stderr}`));
    });
  });

  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    url: match[1]!,
    origin: `http://127.0.0.1:${match[2]}`,
    port: Number(match[2]),
    token: match[3]!,
    pid: child.pid!,
    dataDir,
    stdoutLines,
    stderr: () => stderr,
    crash: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
