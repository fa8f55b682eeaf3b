import { spawn } from 'node:child_process';
import { bwrapCommand, buildToolBwrapArgs, type SandboxSetup } from './bwrap';
import { buildSeatbeltToolArgs, sandboxExecPath } from './seatbelt';

/**
 * Runs one of the console's own tools (git, rm, sh) on a run's files, which the run may have written
 * and which are therefore hostile input (DESIGN.md section 4). The tool runs inside a sandbox of its
 * own where there is one: the run's files read-only (or, for a removal, only the folders being
 * emptied writable), no network, the home and the data directory hidden, a fixed environment. And
 * always: a time limit after which the whole process group is killed, an output cap, no terminal, and
 * never on the event loop, so the console keeps answering while a tool works or hangs.
 */

export type ToolIsolation =
  | { kind: 'bubblewrap'; setup: SandboxSetup }
  | { kind: 'seatbelt' }
  /** No OS sandbox on this machine: the hardened tool alone. Only ever used for `local` runs. */
  | { kind: 'none' };

export interface ToolRun {
  /** An absolute program and its arguments. */
  command: string[];
  /** The whole environment the tool gets; nothing of the console's own is added. */
  env: Record<string, string>;
  readOnly: string[];
  writable: string[];
  /** Folders to hide besides the home: the data directory, the project. */
  hiddenPaths: string[];
  operatorHome: string;
  cwd: string;
  timeoutMs: number;
  /** Standard output beyond this is not read: the tool is stopped and the result says `truncated`. */
  maxOutputBytes: number;
  /** A tool that only does its work when stdin is open (git's pathspec-from-file reads `-`). */
  stdin?: Buffer;
}

export interface ToolResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  truncated: boolean;
  timedOut: boolean;
}

const maxStderrBytes = 64 * 1024;

export function runTool(isolation: ToolIsolation, run: ToolRun): Promise<ToolResult> {
  const { file, args } = toolCommand(isolation, run);
  return new Promise((resolve, reject) => {
    // Its own process group, so the time limit stops the tool and everything it started.
    // bubblewrap changes into run.cwd itself, inside the sandbox; sandbox-exec and a bare tool start there.
    const cwd = isolation.kind === 'bubblewrap' ? '/' : run.cwd;
    const child = spawn(file, args, { cwd, env: run.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let truncated = false;
    let timedOut = false;
    let settled = false;
    const stopGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, run.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      const room = run.maxOutputBytes - stdoutBytes;
      if (chunk.length > room) {
        stdout.push(chunk.subarray(0, room));
        stdoutBytes += room;
        truncated = true;
        stopGroup();
        return;
      }
      stdout.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < maxStderrBytes) stderr += chunk.slice(0, maxStderrBytes - stderr.length);
    });
    child.stdin.on('error', () => undefined); // a tool that exits before reading all of stdin
    child.stdin.end(run.stdin ?? Buffer.alloc(0));
    child.once('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (exitCode, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Whatever the tool left running in its group goes too.
      stopGroup();
      resolve({ exitCode, signal, stdout: Buffer.concat(stdout), stderr, truncated, timedOut });
    });
  });
}

function toolCommand(isolation: ToolIsolation, run: ToolRun): { file: string; args: string[] } {
  switch (isolation.kind) {
    case 'bubblewrap':
      return bwrapCommand(
        buildToolBwrapArgs(
          { operatorHome: run.operatorHome, hiddenPaths: run.hiddenPaths, readOnly: run.readOnly, writable: run.writable, cwd: run.cwd, command: run.command },
          isolation.setup,
        ),
        isolation.setup,
      );
    case 'seatbelt':
      return {
        file: sandboxExecPath,
        args: buildSeatbeltToolArgs({ operatorHome: run.operatorHome, hiddenPaths: run.hiddenPaths, readOnly: run.readOnly, writable: run.writable, command: run.command }),
      };
    case 'none':
      return { file: run.command[0]!, args: run.command.slice(1) };
  }
}
