import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { z } from 'zod';
import type { PtyExit, PtySession } from '../../pty/pty-session';
import { SessionEvents } from '../../pty/session-events';
import { signalProcessGroup } from '../../platform/process-group';
import { sshWords } from '../ssh-failure';
import { sshArgv, type HostConnection } from './host-connection';
import { attachWords, stopOnHost, type RemoteRunLayout } from './remote-supervisor';

/**
 * An agent running under the console's supervisor on an SSH host, as the run sees a local PTY
 * (the `PtySession` the output pipeline, Stop, input and resize already use).
 *
 * Its output is read with `ssh host python3 supervisor attach DIR N`: the supervisor's spool from
 * byte N, then followed, in frames (see remote-supervisor.py), then the exit. N is the number of
 * spool bytes this session has handed on, so a connection that drops (ssh killed, a network gone)
 * is resumed from the next byte: no gap, no duplicate. The agent does not notice: it writes to the
 * PTY, the supervisor to the spool, whoever listens. Input and resizes go up the same connection
 * while it is there; input while it is not is refused (`InputNotSent`), never dropped unsaid: the run's
 * terminal takes no typing while its host is unreachable, and says so.
 *
 * A host that cannot be reached is told (`onReachability`) as soon as a reconnect fails, and again
 * when it answers; the session keeps trying, more slowly, until the run's exit arrives. Pausing (the
 * ledger is behind) stops reading ssh's output, and ssh's flow control stops the reader on the host;
 * the agent never waits for it.
 */

const frameHeaderBytes = 5;
const maxDataFrame = 1024 * 1024;
const maxExitFrame = 4096;
const reconnectDelaysMs = [0, 500, 1000, 2000, 4000, 5000];

const exitSchema = z.object({ exitCode: z.number().int().min(0).max(255).nullable(), signal: z.string().regex(/^SIG[A-Z0-9]{1,12}$/).nullable() });

export interface RemoteSessionOptions {
  connection: HostConnection;
  layout: RemoteRunLayout;
  attemptId: string;
  pid: number;
  executablePath: string;
  /** The host answered again (true), or could not be reached (false, with ssh's words). */
  onReachability?: (reachable: boolean, detail: string) => void;
  /** Where the spool is read from (0 for a new attempt). */
  startOffset?: number;
  /**
   * How long a Stop waits for the host to confirm the agent's end beyond its grace, while the host
   * does not answer, before the session ends without it (`onGaveUp`).
   */
  stopGiveUpMs?: number;
  /** The session ended without the host's word (a Stop the host never answered). */
  onGaveUp?: () => void;
  /** The host was last known unreachable (a run taken up again after a restart): its first answer is told. */
  unreachableAtStart?: boolean;
  /** Asked at a Stop: true when the console is closing, and the agent is left running on the host (`left`) rather than stopped. */
  leaveRunning?: () => boolean;
}

/** Input for an agent on a host that the console is not connected to at that moment: refused, not sent later. */
export class InputNotSent extends Error {
  constructor(readonly host: string) {
    super(`not connected to ${host}: the input was not sent`);
  }
}

export class RemoteSession implements PtySession {
  readonly pid: number;
  readonly executablePath: string;
  private readonly events = new SessionEvents<PtyExit>();
  private resolveExit!: (exit: PtyExit) => void;
  private readonly exited = new Promise<PtyExit>((resolve) => (this.resolveExit = resolve));
  private reader: ChildProcessWithoutNullStreams | null = null;
  private attached = false;
  private received: number;
  private isPaused = false;
  private failures = 0;
  private reachable = true;
  private size: { cols: number; rows: number } | null = null;
  private sentSize: string | null = null;
  private stopping: Promise<PtyExit> | undefined;
  private closed = false;

  constructor(private readonly options: RemoteSessionOptions) {
    this.pid = options.pid;
    this.executablePath = options.executablePath;
    this.received = options.startOffset ?? 0;
    this.reachable = !options.unreachableAtStart;
    // Started after the caller attached its listeners (the same tick), as a local PTY's first bytes are.
    queueMicrotask(() => this.connect());
  }

  get exit(): PtyExit | null {
    return this.events.exit;
  }

  get paused(): boolean {
    return this.isPaused;
  }

  /** Spool bytes handed on so far: where a new connection resumes. */
  get offset(): number {
    return this.received;
  }

  onData(listener: (bytes: Buffer) => void): () => void {
    return this.events.onData(listener);
  }

  onExit(listener: (exit: PtyExit) => void): () => void {
    return this.events.onExit(listener);
  }

  write(data: string | Uint8Array): void {
    if (this.events.exit) return;
    // Not connected (the host unreachable, or a dropped connection being made again): nothing would carry it.
    if (!this.attached || !this.reader) throw new InputNotSent(this.options.connection.name);
    this.send('I', typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }

  resize(cols: number, rows: number): void {
    if (this.events.exit) return;
    this.size = { cols, rows };
    this.sendSize();
  }

  pause(): void {
    this.isPaused = true;
    this.reader?.stdout.pause();
  }

  resume(): void {
    this.isPaused = false;
    this.reader?.stdout.resume();
  }

  /** Asks the supervisor to stop the agent's group (SIGTERM, SIGKILL after the grace), again while the host is unreachable; resolves with the exit. */
  stop(options: { graceMs?: number } = {}): Promise<PtyExit> {
    if (!this.stopping && this.options.leaveRunning?.()) {
      this.leave();
      return this.exited;
    }
    this.stopping ??= this.stopOnHost(options.graceMs ?? 5000);
    return this.stopping;
  }

  /** True when the console closed and left the agent running on the host: the next start takes it up from `offset`. */
  left = false;

  private leave(): void {
    if (this.events.exit) return;
    this.closed = true;
    this.left = true;
    this.killReader();
    this.exitNow(Buffer.from('{"exitCode":null,"signal":null}'));
  }

  /**
   * The console closes: if the exit has not arrived in `ms` (a host that does not answer), the session
   * stops waiting for it and ends without one. The agent is left to the supervisor; the next start's
   * recovery asks the host to stop it.
   */
  giveUpAfter(ms: number): void {
    setTimeout(() => {
      if (this.events.exit) return;
      this.closed = true;
      this.killReader();
      this.gaveUp = true;
      this.options.onGaveUp?.();
      this.exitNow(Buffer.from('{"exitCode":null,"signal":null}'));
    }, ms).unref();
  }

  /** True when the session ended without the host's word on the agent's exit. */
  gaveUp = false;

  private async stopOnHost(graceMs: number): Promise<PtyExit> {
    // A host that never answers does not keep the run going here: after the grace and this long, the run ends.
    this.giveUpAfter(graceMs + (this.options.stopGiveUpMs ?? 30_000));
    this.send('S', Buffer.from(String(graceMs)));
    while (!this.events.exit && !this.closed) {
      try {
        await stopOnHost(this.options.connection, this.options.layout, this.options.attemptId, graceMs);
      } catch {
        // Unreachable for now: asked again below, until the exit arrives.
      }
      await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, Math.max(graceMs, 1000) + 2000))]);
    }
    return this.exited;
  }

  private send(kind: 'I' | 'R' | 'S', payload: Buffer): void {
    if (!this.attached || !this.reader) return;
    const header = Buffer.alloc(frameHeaderBytes);
    header.write(kind, 0, 'latin1');
    header.writeUInt32BE(payload.length, 1);
    this.reader.stdin.write(Buffer.concat([header, payload]));
  }

  private sendSize(): void {
    if (!this.size) return;
    const text = `${this.size.cols} ${this.size.rows}`;
    if (text === this.sentSize || !this.attached) return;
    this.sentSize = text;
    this.send('R', Buffer.from(text));
  }

  private connect(): void {
    if (this.events.exit || this.closed) return;
    const { connection, layout, attemptId } = this.options;
    const argv = sshArgv(
      { ...connection, options: [...connection.options, '-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=3'] },
      attachWords(layout, attemptId, this.received),
    );
    // Its own process group: a stop or a close ends ssh and nothing else.
    const reader = spawn(connection.settings.program, argv, { env: connection.settings.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.reader = reader;
    // The frame being read: its header as it arrives, then its payload. A data frame's bytes are handed
    // on as they arrive (no copy, no wait for the whole frame); the others are small and kept whole.
    let header = Buffer.alloc(0);
    let kind = '';
    let remaining = 0;
    let small: Buffer[] = [];
    let stderr = '';
    let gotFrame = false;
    let broken = false;
    reader.stdin.on('error', () => {});
    reader.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString('utf8');
    });
    const frameDone = () => {
      gotFrame = true;
      if (kind === 'H') this.attachedNow();
      else if (kind === 'E') this.exitNow(Buffer.concat(small));
      kind = '';
      small = [];
    };
    reader.stdout.on('data', (chunk: Buffer) => {
      let at = 0;
      while (at < chunk.length && !broken) {
        if (kind === '') {
          const needed = frameHeaderBytes - header.length;
          header = Buffer.concat([header, chunk.subarray(at, at + needed)]);
          at += Math.min(needed, chunk.length - at);
          if (header.length < frameHeaderBytes) return;
          kind = String.fromCharCode(header[0]!);
          remaining = header.readUInt32BE(1);
          header = Buffer.alloc(0);
          const limit = kind === 'D' ? maxDataFrame : kind === 'E' ? maxExitFrame : kind === 'H' ? 0 : -1;
          if (remaining > limit) {
            broken = true;
            stderr += `\nthe host sent a frame the console does not read (${limit >= 0 ? `${remaining} bytes` : 'unknown kind'})`;
            this.killReader();
            return;
          }
          if (remaining === 0) frameDone();
          continue;
        }
        const take = Math.min(remaining, chunk.length - at);
        const part = chunk.subarray(at, at + take);
        at += take;
        remaining -= take;
        if (kind === 'D') this.deliver(part);
        else small.push(part);
        if (remaining === 0) frameDone();
      }
    });
    if (this.isPaused) reader.stdout.pause();
    reader.on('close', (code) => {
      if (this.reader === reader) this.reader = null;
      this.attached = false;
      if (this.events.exit || this.closed) return;
      this.failures = gotFrame ? 0 : this.failures + 1;
      if (!gotFrame) this.setReachable(false, `${sshWords(stderr)}${code === 255 ? '' : ` (exit ${code})`}`);
      const delay = reconnectDelaysMs[Math.min(this.failures, reconnectDelaysMs.length - 1)]!;
      setTimeout(() => this.connect(), delay).unref();
    });
  }

  private attachedNow(): void {
    this.attached = true;
    this.sentSize = null;
    this.setReachable(true, '');
    this.sendSize();
  }

  private setReachable(reachable: boolean, detail: string): void {
    if (this.reachable === reachable) return;
    this.reachable = reachable;
    this.options.onReachability?.(reachable, detail);
  }

  private deliver(bytes: Buffer): void {
    if (this.events.exit) return;
    this.received += bytes.length;
    this.events.emitData(bytes);
  }

  private exitNow(payload: Buffer): void {
    if (this.events.exit) return;
    let exit: PtyExit = { exitCode: null, signal: null };
    try {
      const parsed = exitSchema.safeParse(JSON.parse(payload.toString('utf8')));
      if (parsed.success) exit = { exitCode: parsed.data.exitCode, signal: parsed.data.signal as NodeJS.Signals | null };
    } catch {
      // Not the supervisor's exit: the run ends with neither a code nor a signal.
    }
    // Recorded (and told) first: the guard above reads it, so nothing set off below ends the session twice.
    this.events.emitExit(exit);
    if (!this.gaveUp && !this.left) this.setReachable(true, '');
    this.killReader();
    this.resolveExit(exit);
  }

  private killReader(): void {
    const reader = this.reader;
    if (reader?.pid && reader.exitCode === null && reader.signalCode === null) signalProcessGroup(reader.pid, 'SIGKILL');
  }
}
