import { logRedaction, type LogRedaction } from './log-redaction';
import { openLogFile, type LogFile, type LogFileOptions } from './log-file';

/**
 * The console's log: one JSON object per line on stderr (stdout belongs to the host's ready line),
 * and, once the data directory is known, in the rotating file `<data dir>/logs/console.log`
 * (log-file.ts), which is where the desktop app's operator can read it. Every line is redacted
 * before any sink sees it (log-redaction.ts).
 * Callers pass facts, never secrets; errors are logged once, where they are turned into values.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** The file this log is written to, when it is written to one: what messages pointing to the log name. */
  readonly file?: string | undefined;
}

export type LogSink = (line: string) => void;

const levelRank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

const stderrSink: LogSink = (line) => process.stderr.write(`${line}\n`);

export interface LoggerOptions {
  sink?: LogSink | undefined;
  level?: LogLevel | undefined;
  /** Default: the process's one redaction, which knows every secret the console holds. */
  redaction?: LogRedaction | undefined;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const sink = options.sink ?? stderrSink;
  const redaction = options.redaction ?? logRedaction;
  const threshold = levelRank[options.level ?? (process.env.OPERATOR_CONSOLE_LOG_LEVEL as LogLevel | undefined) ?? 'info'] ?? 20;
  const write = (level: LogLevel, message: string, fields?: LogFields) => {
    if (levelRank[level] < threshold) return;
    let line: string;
    try {
      line = JSON.stringify({ time: new Date().toISOString(), level, message, ...(fields ? redaction.fields(fields) : {}) });
    } catch (error) {
      // A field that cannot be serialized (a cycle, a BigInt) must not turn logging into a crash.
      line = JSON.stringify({ time: new Date().toISOString(), level, message, unloggableFields: String(error) });
    }
    sink(redaction.line(line));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

/** The log the desktop app and the browser host run with: stderr always, the log file once it is opened. */
export interface ConsoleLog extends Logger {
  /**
   * Starts writing `<dataDir>/logs/console.log` too, and answers its path. When the file cannot be
   * made, says so on stderr and goes on with stderr alone (answering undefined).
   */
  writeToFile(dataDir: string, options?: LogFileOptions): string | undefined;
  /** Resolves once every line so far is in the file: before exiting after a crash. */
  flush(): Promise<void>;
  /** Flushes and closes the file; stderr goes on. */
  close(): Promise<void>;
}

export function createConsoleLog(options: { stderr?: LogSink; level?: LogLevel; redaction?: LogRedaction } = {}): ConsoleLog {
  const stderr = options.stderr ?? stderrSink;
  let file: LogFile | undefined;
  const logger = createLogger({
    level: options.level,
    redaction: options.redaction,
    sink: (line) => {
      stderr(line);
      file?.write(line);
    },
  });
  return {
    ...logger,
    get file() {
      return file?.file;
    },
    writeToFile(dataDir, fileOptions) {
      if (file) return file.file;
      try {
        file = openLogFile(dataDir, { onError: (error) => stderr(JSON.stringify({ time: new Date().toISOString(), level: 'error', message: 'the log file cannot be written; logging to stderr only', error: error.message })), ...fileOptions });
      } catch (error) {
        logger.error('the log file cannot be opened; logging to stderr only', { dataDir, error: error instanceof Error ? error.message : String(error) });
        return undefined;
      }
      return file.file;
    },
    flush: () => file?.flush() ?? Promise.resolve(),
    close: async () => {
      await file?.close();
    },
  };
}

/** Whether this logger can be given a log file (the console's own, not a test's memory logger). */
export function isConsoleLog(log: Logger): log is ConsoleLog {
  return typeof (log as Partial<ConsoleLog>).writeToFile === 'function';
}

/**
 * The words every message that points to the log ends with: where the log is, so the operator can
 * open it (the desktop app shows no stderr).
 */
export function detailsInLog(log: Pick<Logger, 'file'>): string {
  return log.file ? `Details are in the console’s log, ${log.file} (Settings → About opens its folder).` : 'Details are in the console’s log (its standard error).';
}

/** A logger that keeps lines in memory, for tests that assert what was (and was not) logged. */
export function createMemoryLogger(options: { file?: string } = {}): Logger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', sink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return Object.assign(logger, { lines, file: options.file });
}

/** An error as a log line carries it: its stack where it has one. */
export function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
