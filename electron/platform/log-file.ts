import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createStream, type RotatingFileStream } from 'rotating-file-stream';

/**
 * The console's log file: `<data dir>/logs/console.log`, rotated by size, a few old files kept
 * (`console.log.1` the newest of them). The path never changes, so every message that says "details
 * are in the log" can name it, and Settings → About can open its folder.
 *
 * Why rotating-file-stream: it has no dependencies, is plain Node streams (the same in Electron's main
 * process and the browser host, bundled or not), keeps the current file at one fixed name with the
 * classic logrotate scheme, and is maintained. pino + pino-roll was the other candidate: pino's
 * transports run in worker threads loaded by file path, which a bundled app has to ship and resolve
 * separately; pino-roll used in-thread names the current file by a rising number (no fixed path to
 * show the operator) and brings date-fns with it; and the console already formats its own JSON lines
 * (log.ts) and redacts by value, which pino's path-based redaction does not do. electron-log is
 * Electron-first and would be a second logger in the host.
 */

export const logFileName = 'console.log';
/** Rotated at this size; with the files kept, the log takes at most about (keep + 1) × this. */
export const defaultLogFileBytes = 5 * 1024 * 1024;
export const defaultLogFilesKept = 4;

export interface LogLocation {
  dir: string;
  file: string;
}

export function logLocation(dataDir: string): LogLocation {
  const dir = path.join(dataDir, 'logs');
  return { dir, file: path.join(dir, logFileName) };
}

export interface LogFileOptions {
  /**
   * The file's name in `<data dir>/logs/`: console.log by default, the console service's. The desktop
   * app's shell, a process of its own beside the service, keeps desktop-app.log: two processes must
   * not rotate one file.
   */
  fileName?: string;
  maxFileBytes?: number;
  filesKept?: number;
  /** Where a write error is told (once), since the log file itself cannot say it. Default: stderr. */
  onError?: (error: Error) => void;
}

export interface LogFile extends LogLocation {
  /** Appends one line (a newline is added). After a write error or close, lines are dropped. */
  write(line: string): void;
  /** Resolves once every line written so far has reached the file (or could not). */
  flush(): Promise<void>;
  /** Flushes and closes the file; later lines are dropped. */
  close(): Promise<void>;
}

export function openLogFile(dataDir: string, options: LogFileOptions = {}): LogFile {
  const fileName = options.fileName ?? logFileName;
  const location = { dir: logLocation(dataDir).dir, file: path.join(logLocation(dataDir).dir, fileName) };
  // The log names runs, projects and paths: private to the operator, like the rest of the data directory.
  mkdirSync(location.dir, { recursive: true, mode: 0o700 });
  const stream: RotatingFileStream = createStream(fileName, {
    path: location.dir,
    size: `${Math.max(1, Math.floor((options.maxFileBytes ?? defaultLogFileBytes) / 1024))}K`,
    rotate: options.filesKept ?? defaultLogFilesKept,
    mode: 0o600,
  });
  const onError = options.onError ?? ((error: Error) => process.stderr.write(`Operator Console: the log file ${location.file} cannot be written (${error.message}); logging to stderr only.\n`));
  let broken = false;
  let closed = false;
  let pending = 0;
  let waiters: Array<() => void> = [];
  const settle = () => {
    if (pending > 0) return;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };
  stream.on('error', (error) => {
    if (broken) return;
    broken = true;
    onError(error);
    pending = 0;
    settle();
  });
  // A rotation's own warnings (an old file that could not be removed) must not stop the log.
  stream.on('warning', () => undefined);

  return {
    ...location,
    write(line) {
      if (broken || closed) return;
      pending += 1;
      stream.write(`${line}\n`, () => {
        pending = Math.max(0, pending - 1);
        settle();
      });
    },
    flush() {
      if (pending === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    close() {
      if (closed) return this.flush();
      closed = true;
      if (broken) return Promise.resolve();
      return new Promise((resolve) => {
        stream.once('close', () => resolve());
        stream.once('error', () => resolve());
        stream.end();
      });
    },
  };
}
