import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  /**
   * The console service's process id: the process that holds the data directory and runs the core
   * (`npm run serve` starts it detached, or attaches to it when it already runs).
   */
  pid: number;
  /** The `serve` process this launcher started (it stays attached to the service until stopped). */
  launcherPid: number;
  dataDir: string;
  /** Everything the host printed on stdout: its contract is exactly one line. */
  stdoutLines: string[];
  stderr(): string;
  /**
   * SIGTERM to `serve`, and resolves with its exit code once it is gone. The service behind it stops
   * then when nothing needs it; when it goes on (runs still going) and no other launcher of this process
   * is attached to it, it is stopped too (SIGTERM, then SIGKILL): no test leaves a service behind.
   * `leaveServiceRunning` is an operator quitting mid-run: the service keeps its runs for the next
   * launcher on the data directory to attach to (the last one to stop ends it; so does this process's exit).
   */
  stop(options?: { leaveServiceRunning?: boolean }): Promise<number | null>;
  /** SIGKILL to the service and to `serve`, as a crash would: nothing is cleaned up, the data directory stays. */
  crash(): Promise<void>;
}

/** The launchers of this process attached to each service, so that the last one to stop ends it. */
const attachedLaunchers = new Map<number, Set<BrowserHost>>();
// A test that failed before stopping what it left running: its services do not outlive the test run.
process.once('exit', () => {
  for (const pid of attachedLaunchers.keys()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is gone for every purpose here (only its parent could reap it).
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Ends a service no launcher needs any more: SIGTERM (a clean shutdown), SIGKILL if it hangs. */
async function endService(pid: number): Promise<void> {
  if (!alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  if (await gone(pid, 10_000)) return;
  process.kill(pid, 'SIGKILL');
  await gone(pid, 5_000);
}

/** Starts the built browser host (`dist/electron/serve.js`) on a free port and a data dir of its own. */
export async function startBrowserHost(options: { dataDir?: string; port?: number; env?: NodeJS.ProcessEnv; /** More of serve's flags (`--restart-now`). */ args?: string[] } = {}): Promise<BrowserHost> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'oc-e2e-data-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(repoRoot, 'dist', 'electron', 'serve.js'), '--port', String(options.port ?? 0), '--data-dir', dataDir, ...(options.args ?? [])],
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
  // The service's pid, as the data directory's lock names its holder.
  const servicePid = (JSON.parse(readFileSync(path.join(dataDir, 'console-owner.json'), 'utf8')) as { pid: number }).pid;
  const attached = attachedLaunchers.get(servicePid) ?? new Set<BrowserHost>();
  attachedLaunchers.set(servicePid, attached);
  const detach = async (leaveServiceRunning: boolean) => {
    attached.delete(host);
    if (attached.size > 0 || leaveServiceRunning) return;
    attachedLaunchers.delete(servicePid);
    await endService(servicePid);
  };
  const host: BrowserHost = {
    url: match[1]!,
    origin: `http://127.0.0.1:${match[2]}`,
    port: Number(match[2]),
    token: match[3]!,
    pid: servicePid,
    launcherPid: child.pid!,
    dataDir,
    stdoutLines,
    stderr: () => stderr,
    crash: async () => {
      attached.delete(host);
      if (alive(servicePid)) process.kill(servicePid, 'SIGKILL');
      child.kill('SIGKILL');
      await exited;
      await gone(servicePid, 5_000);
    },
    stop: async (options = {}) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await exited;
      clearTimeout(timer);
      await detach(options.leaveServiceRunning === true && alive(servicePid));
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
  attached.add(host);
  return host;
}
