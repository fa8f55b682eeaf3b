import { logRedaction, type LogRedaction } from './log-redaction';
import { openLogFile, type LogFile, type LogFileOptions } from './log-file';

/**
 * The console's log has two readers, and each gets what it can use:
 * - the log file, `<data dir>/logs/console.log` (log-file.ts), keeps every record as one JSON object
 *   per line: what the desktop app's operator opens from Settings → About, and what a script reads;
 * - the person at the terminal (stderr; stdout belongs to the host's ready line) gets sentences, and
 *   only for warnings and errors: a record's message with its facts in words, never JSON, never a
 *   stack. `OPERATOR_CONSOLE_LOG_LEVEL=debug` asks for more: every record, stacks included.
 * Every record is redacted before either sees it (log-redaction.ts). Callers pass facts, never
 * secrets; errors are logged once, where they are turned into values.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface LogOptions {
  /**
   * False when the person is told another way (a dialog, a line of the shell's own): the record is
   * kept in the file and not said twice at the terminal.
   */
  terminal?: boolean;
}

export interface Logger {
  debug(message: string, fields?: LogFields, options?: LogOptions): void;
  info(message: string, fields?: LogFields, options?: LogOptions): void;
  warn(message: string, fields?: LogFields, options?: LogOptions): void;
  error(message: string, fields?: LogFields, options?: LogOptions): void;
  /** The file this log is written to, when it is written to one: what messages pointing to the log name. */
  readonly file?: string | undefined;
}

/** Where records go as JSON lines (the log file, a test's memory). */
export type LogSink = (line: string) => void;
/** Where sentences for a person go (the terminal). */
export type TerminalSink = (sentence: string) => void;

const levelRank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** The process's terminal: stderr, one sentence a line. */
const stderrTerminal: TerminalSink = (sentence) => process.stderr.write(`${sentence}\n`);

function levelFromEnv(): LogLevel | undefined {
  const level = process.env.OPERATOR_CONSOLE_LOG_LEVEL;
  return level && level in levelRank ? (level as LogLevel) : undefined;
}

export interface LoggerOptions {
  /** Where every record goes as a JSON line. Default: nowhere (a logger without a file). */
  sink?: LogSink | undefined;
  /**
   * The person's terminal: warnings and errors as sentences (every record at `debug`). Default: the
   * process's stderr; null: none (a test's memory logger).
   */
  terminal?: TerminalSink | null | undefined;
  /** The least level kept. Default: OPERATOR_CONSOLE_LOG_LEVEL, else info. */
  level?: LogLevel | undefined;
  /** Default: the process's one redaction, which knows every secret the console holds. */
  redaction?: LogRedaction | undefined;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const sink = options.sink;
  const terminal = options.terminal === undefined ? stderrTerminal : options.terminal;
  const redaction = options.redaction ?? logRedaction;
  const level = options.level ?? levelFromEnv() ?? 'info';
  const threshold = levelRank[level];
  // Debugging asked for: the terminal gets every record kept, with its stacks.
  const debugging = level === 'debug';
  const terminalThreshold = debugging ? levelRank.debug : levelRank.warn;
  const write = (level: LogLevel, message: string, fields: LogFields | undefined, logOptions: LogOptions | undefined) => {
    if (levelRank[level] < threshold) return;
    const safeFields = fields ? redaction.fields(fields) : undefined;
    if (sink) {
      let line: string;
      try {
        line = JSON.stringify({ time: new Date().toISOString(), level, message, ...safeFields });
      } catch (error) {
        // A field that cannot be serialized (a cycle, a BigInt) must not turn logging into a crash.
        line = JSON.stringify({ time: new Date().toISOString(), level, message, unloggableFields: String(error) });
      }
      sink(redaction.line(line));
    }
    if (terminal && levelRank[level] >= terminalThreshold && logOptions?.terminal !== false) {
      terminal(redaction.line(terminalSentence(level, message, safeFields, { stacks: debugging })));
    }
  };
  return {
    debug: (m, f, o) => write('debug', m, f, o),
    info: (m, f, o) => write('info', m, f, o),
    warn: (m, f, o) => write('warn', m, f, o),
    error: (m, f, o) => write('error', m, f, o),
  };
}

const terminalPrefix: Record<LogLevel, string> = {
  debug: 'Operator Console (debug)',
  info: 'Operator Console',
  warn: 'Operator Console warning',
  error: 'Operator Console error',
};
/** A fact's value is cut here at the terminal (the file keeps it whole). */
const terminalValueChars = 300;

/**
 * A record as a person reads it: `Operator Console warning: <message> (<fact>: <value>; …).` A value
 * is its first line (a stack's message, not its frames) unless stacks are asked for.
 */
export function terminalSentence(level: LogLevel, message: string, fields: LogFields | undefined, options: { stacks?: boolean } = {}): string {
  const facts = Object.entries(fields ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}: ${describeValue(value, options.stacks ?? false)}`);
  const text = message.trim().replace(/[.:;,\s]+$/, '');
  return `${terminalPrefix[level]}: ${text}${facts.length > 0 ? ` (${facts.join('; ')})` : ''}.`;
}

function describeValue(value: unknown, stacks: boolean): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value instanceof Error) text = stacks ? (value.stack ?? value.message) : value.message;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  if (stacks) return text;
  const firstLine = text.split('\n', 1)[0]!.trim();
  return firstLine.length > terminalValueChars ? `${firstLine.slice(0, terminalValueChars)}…` : firstLine;
}

/** The log the desktop app, the browser host and the ledger restore command run with: one per process. */
export interface ConsoleLog extends Logger {
  /**
   * Starts writing `<dataDir>/logs/console.log`, with the records kept since the process started,
   * and answers its path. When the file cannot be made, says so at the terminal and goes on without
   * it (answering undefined).
   */
  writeToFile(dataDir: string, options?: LogFileOptions): string | undefined;
  /**
   * A sentence for the person at the terminal, printed as it is (the shell's own: the one line a
   * refused start prints, "shutting down"), and kept in the file as a record of `level`.
   */
  tell(sentence: string, level?: LogLevel): void;
  /** Resolves once every line so far is in the file: before exiting after a crash. */
  flush(): Promise<void>;
  /** Flushes and closes the file; warnings and errors still reach the terminal. */
  close(): Promise<void>;
}

/** Records logged before the file is open are kept for it, up to this many (the rest are dropped). */
const earlyRecordsKept = 1000;

export function createConsoleLog(options: { terminal?: TerminalSink; level?: LogLevel; redaction?: LogRedaction } = {}): ConsoleLog {
  const terminal = options.terminal ?? stderrTerminal;
  let file: LogFile | undefined;
  let closed = false;
  // Until the data directory is known (and this console holds it), records wait here for the file.
  let early: string[] | null = [];
  const toFile: LogSink = (line) => {
    if (file) file.write(line);
    else if (early && early.length < earlyRecordsKept) early.push(line);
  };
  const logger = createLogger({ level: options.level, redaction: options.redaction, sink: toFile, terminal });
  const record = createLogger({ level: options.level, redaction: options.redaction, sink: toFile, terminal: null });
  return {
    ...logger,
    get file() {
      return file?.file;
    },
    writeToFile(dataDir, fileOptions) {
      if (file) return file.file;
      if (closed) return undefined;
      try {
        file = openLogFile(dataDir, {
          onError: (error) => terminal(`Operator Console warning: the log file cannot be written (${error.message}); from now on only warnings and errors are kept, here.`),
          ...fileOptions,
        });
      } catch (error) {
        early = null;
        logger.warn('the log file cannot be opened; only warnings and errors are kept, here', { dataDir, error: error instanceof Error ? error.message : String(error) });
        return undefined;
      }
      for (const line of early ?? []) file.write(line);
      early = null;
      return file.file;
    },
    tell(sentence, level = 'info') {
      terminal((options.redaction ?? logRedaction).line(sentence));
      record[level](sentence);
    },
    flush: () => file?.flush() ?? Promise.resolve(),
    close: async () => {
      closed = true;
      early = null;
      await file?.close();
    },
  };
}

/** Whether this logger can be given a log file (the console's own, not a test's memory logger). */
export function isConsoleLog(log: Logger): log is ConsoleLog {
  return typeof (log as Partial<ConsoleLog>).writeToFile === 'function';
}

/** What a message that would point to the log says when the console has no log file. */
export const noLogFile = 'The console keeps no log file this time (it could not be made; the terminal that started the console says why).';

/**
 * The words every message that points to the log ends with: where the log is, so the operator can
 * open it (the desktop app shows no terminal).
 */
export function detailsInLog(log: Pick<Logger, 'file'>): string {
  return log.file ? `Details are in the console’s log, ${log.file} (Settings → About opens its folder).` : noLogFile;
}

/** A logger that keeps records in memory, for tests that assert what was (and was not) logged. */
export function createMemoryLogger(options: { file?: string } = {}): Logger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', terminal: null, sink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return Object.assign(logger, { lines, file: options.file });
}

/** An error as a log record carries it: its stack where it has one (the terminal shows its first line). */
export function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
