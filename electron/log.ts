/**
 * The console's log: one JSON object per line on stderr (stdout belongs to the host's ready line).
 * Callers pass facts, never secrets; errors are logged once, where they are turned into values.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogSink = (line: string) => void;

const levelRank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(options: { sink?: LogSink; level?: LogLevel } = {}): Logger {
  const sink = options.sink ?? ((line: string) => process.stderr.write(`${line}\n`));
  const threshold = levelRank[options.level ?? (process.env.OPERATOR_CONSOLE_LOG_LEVEL as LogLevel | undefined) ?? 'info'] ?? 20;
  const write = (level: LogLevel, message: string, fields?: LogFields) => {
    if (levelRank[level] < threshold) return;
    sink(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

/** A logger that keeps lines in memory, for tests that assert what was (and was not) logged. */
export function createMemoryLogger(): Logger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', sink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return Object.assign(logger, { lines });
}
