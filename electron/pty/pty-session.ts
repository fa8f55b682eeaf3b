import { accessSync, constants as fsConstants, readSync, statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { spawn, type IPty } from 'node-pty';
import { OperatorError } from '../../shared/errors';
import { isProcessAlive, ProcessGroupWatch, signalProcessGroup } from '../platform/process-group';
import { SessionEvents } from './session-events';

export interface PtySessionOptions {
  /** A command name (searched on env.PATH) or a path (relative paths resolve against cwd). */
  executable: string;
  args: readonly string[];
  cwd: string;
  /** The child's whole environment: nothing is inherited from the console's own. */
  env: Readonly<Record<string, string>>;
  cols: number;
  rows: number;
}

export interface PtyExit {
  /**
   * The code the process exited with, or null when a signal killed it: node-pty reports 0 for a
   * signal death, which read as "exit 0 (SIGTERM)".
   */
  exitCode: number | null;
  /** The signal that ended the process, or null when it exited by itself. */
  signal: NodeJS.Signals | null;
}

/** One agent process on its own pseudo-terminal. */
export interface PtySession {
  readonly pid: number;
  /** The absolute path that was started. */
  readonly executablePath: string;
  /** Null while the process runs. */
  readonly exit: PtyExit | null;
  /**
   * Raw bytes exactly as the PTY produced them (never decoded, so a character split across two reads
   * stays intact). Attach listeners in the same tick as startPtySession: bytes read before a listener
   * exists are not kept.
   */
  onData(listener: (bytes: Buffer) => void): () => void;
  /** Fires once, after every byte has been delivered to onData. */
  onExit(listener: (exit: PtyExit) => void): () => void;
  /** Input for the agent, as if typed (Enter is "\r"). Ignored once the process has exited. */
  write(data: string | Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** Stops reading the PTY, so the agent blocks on its next write once the kernel buffer is full. */
  pause(): void;
  resume(): void;
  readonly paused: boolean;
  /**
   * SIGTERM to the whole process group, SIGKILL to the group if anything of it is still running after
   * the grace. Resolves with the agent's exit once it and its group are gone.
   */
  stop(options?: { graceMs?: number }): Promise<PtyExit>;
}

/** How often a paused session checks whether its process is gone (see drainAfterExit). */
const exitWatchIntervalMs = 20;
/** How often stop() checks whether the group has emptied before its grace runs out. */
const stopPollIntervalMs = 25;

/**
 * Starts `executable` on a new PTY. Throws an OperatorError `spawn_failed` (before anything is started)
 * when the executable cannot be found or is not an executable file.
 */
export function startPtySession(options: PtySessionOptions): PtySession {
  const executablePath = resolveExecutable(options.executable, options.env, options.cwd);
  let pty: IPty;
  try {
    pty = spawn(executablePath, [...options.args], {
      name: options.env.TERM ?? 'xterm-256color',
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: { ...options.env },
      // Raw Buffers: the ledger stores exactly what the PTY produced.
      encoding: null,
    });
  } catch (error) {
    throw new OperatorError({
      code: 'spawn_failed',
      message: `Could not start ${executablePath}: ${(error as Error).message}. Check that it is a working executable, or set another path for it.`,
    });
  }
  return new NodePtySession(pty, executablePath);
}

/**
 * Resolves a command the way execvp would (a name is searched on the child's PATH, not the console's),
 * so that a missing CLI is reported up front with a fix instead of as an opaque exit code 1.
 */
export function resolveExecutable(executable: string, env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  if (executable.includes('/')) {
    const candidate = path.resolve(cwd, executable);
    if (isExecutableFile(candidate)) return candidate;
    throw new OperatorError({
      code: 'spawn_failed',
      reason: 'executable_not_found',
      message: `Cannot start ${candidate}: it does not exist or is not an executable file. Install it there, or set the correct path to it.`,
    });
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.resolve(cwd, dir, executable);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new OperatorError({
    code: 'spawn_failed',
    reason: 'executable_not_found',
    message: `Cannot start "${executable}": no executable by that name was found on the run's PATH. Install ${executable}, or set the full path to it.`,
  });
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function signalName(signal: number | undefined): NodeJS.Signals | null {
  if (!signal) return null;
  const entry = Object.entries(osConstants.signals).find(([, number]) => number === signal);
  return entry ? (entry[0] as NodeJS.Signals) : null;
}

class NodePtySession implements PtySession {
  readonly pid: number;
  private readonly events = new SessionEvents<PtyExit>();
  private readonly exited: Promise<PtyExit>;
  private isPaused = false;
  private drainingAfterExit = false;
  private exitWatch: NodeJS.Timeout | undefined;
  private stopping: Promise<PtyExit> | undefined;

  constructor(
    private readonly pty: IPty,
    readonly executablePath: string,
  ) {
    this.pid = pty.pid;
    // node-pty types onData as string; with `encoding: null` it hands over Buffers.
    pty.onData((data) => this.emitData(data as unknown as Buffer));
    this.readToTheEndOnHangup();
    this.exited = new Promise((resolve) => {
      // node-pty fires exit once the PTY's read side has closed (so every byte came first), or 200 ms
      // after the process exited if it never closes (see drainAfterExit).
      pty.onExit(({ exitCode, signal }) => {
        this.clearExitWatch();
        const killedBy = signalName(signal);
        const exit = { exitCode: killedBy ? null : exitCode, signal: killedBy };
        this.events.emitExit(exit);
        resolve(exit);
      });
    });
  }

  get exit(): PtyExit | null {
    return this.events.exit;
  }

  get paused(): boolean {
    return this.isPaused;
  }

  onData(listener: (bytes: Buffer) => void): () => void {
    return this.events.onData(listener);
  }

  onExit(listener: (exit: PtyExit) => void): () => void {
    return this.events.onExit(listener);
  }

  write(data: string | Uint8Array): void {
    if (this.events.exit) return;
    this.pty.write(typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }

  resize(cols: number, rows: number): void {
    if (this.events.exit) return;
    this.pty.resize(cols, rows);
  }

  pause(): void {
    if (this.isPaused || this.events.exit || this.drainingAfterExit) return;
    this.isPaused = true;
    this.pty.pause();
    this.exitWatch = setInterval(() => {
      if (!isProcessAlive(this.pid)) this.drainAfterExit();
    }, exitWatchIntervalMs);
  }

  resume(): void {
    if (!this.isPaused) return;
    this.isPaused = false;
    this.clearExitWatch();
    this.pty.resume();
  }

  stop(options: { graceMs?: number } = {}): Promise<PtyExit> {
    this.stopping ??= this.stopGroup(options.graceMs ?? 5000);
    return this.stopping;
  }

  private async stopGroup(graceMs: number): Promise<PtyExit> {
    const pgid = this.pid;
    signalProcessGroup(pgid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    const group = new ProcessGroupWatch(pgid);
    // The run is stopped when the agent has exited and nothing of its group is left running.
    while (!(this.events.exit && !(await group.alive()))) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        signalProcessGroup(pgid, 'SIGKILL');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(stopPollIntervalMs, remaining)));
    }
    return this.exited;
  }

  private emitData(bytes: Buffer): void {
    this.events.emitData(bytes);
  }

  /**
   * When the agent's side of the terminal closes, libuv reports end-of-file as soon as the kernel
   * signals the hangup after a short read, although the last kilobytes the agent wrote may still be
   * waiting in the kernel's PTY buffer (seen here in about one flood out of thirty). So at that end we
   * read the rest ourselves, until the kernel says EIO (empty, other side closed) or EAGAIN. This
   * reaches into node-pty's read stream and descriptor: the listener is prepended so it runs before
   * the stream closes the descriptor.
   */
  private readToTheEndOnHangup(): void {
    const internals = this.pty as unknown as { _socket?: NodeJS.EventEmitter; _fd?: number };
    const socket = internals._socket;
    const fd = internals._fd;
    if (process.platform === 'win32' || !socket || typeof fd !== 'number') return;
    socket.prependListener('end', () => {
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        let count: number;
        try {
          count = readSync(fd, buffer, 0, buffer.length, null);
        } catch {
          return; // EIO: everything was read; EAGAIN: nothing more for now
        }
        if (count <= 0) return;
        this.emitData(Buffer.from(buffer.subarray(0, count)));
      }
    });
  }

  /**
   * Once the agent has exited, node-pty waits only 200 ms for the PTY's read side to close and then
   * destroys it, dropping whatever was still unread. A session paused for backpressure would lose its
   * last output that way, so when the process is gone we read on regardless: what is left is bounded
   * by the kernel's PTY buffer.
   */
  private drainAfterExit(): void {
    this.clearExitWatch();
    this.drainingAfterExit = true;
    if (this.isPaused) {
      this.isPaused = false;
      this.pty.resume();
    }
  }

  private clearExitWatch(): void {
    if (this.exitWatch) clearInterval(this.exitWatch);
    this.exitWatch = undefined;
  }
}
