import type { Logger } from './log';

/**
 * The last line of defence: an exception nothing caught, a promise nothing awaited. Both are logged
 * with their stack to the console's log (the file, which is what an operator of the desktop app can
 * read), the log is flushed, and then the shell decides: the browser host stops, the desktop app
 * offers to relaunch (shell/crash-dialog.ts). Node's own default for both is to exit; so is ours, once
 * the operator has been told where the details are.
 */

export type CrashKind = 'uncaught_exception' | 'unhandled_rejection';

export interface Crash {
  kind: CrashKind;
  /** One line for the operator: the error's message. */
  message: string;
  /** Where the stack is: the log file, when the console writes one. */
  logFile: string | undefined;
}

export interface CrashHandlerOptions {
  log: Logger & { flush?: () => Promise<void> };
  /** Called once, after the first crash is logged and the log flushed (or a second has passed). */
  onCrash(crash: Crash): void;
  /**
   * An unhandled rejection this says is survivable is logged and the console goes on: a write that
   * failed because the disk is full has changed nothing (SQLite rolled it back), and stopping the
   * console would only strand its runs. The shells pass isDiskFullError.
   */
  survivable?: (reason: unknown) => boolean;
  /** The process to watch; tests pass an emitter of their own. */
  target?: Pick<NodeJS.Process, 'on' | 'removeListener'>;
  flushTimeoutMs?: number;
}

function describe(reason: unknown): { message: string; stack: string } {
  if (reason instanceof Error) return { message: reason.message || reason.name, stack: reason.stack ?? `${reason.name}: ${reason.message}` };
  const text = typeof reason === 'string' ? reason : (() => {
    try {
      return JSON.stringify(reason) ?? String(reason);
    } catch {
      return String(reason);
    }
  })();
  return { message: text, stack: text };
}

/** Installs both handlers; answers a function that removes them. */
export function installCrashHandlers(options: CrashHandlerOptions): () => void {
  const target = options.target ?? process;
  let crashed = false;
  const handle = (kind: CrashKind, reason: unknown) => {
    const { message, stack } = describe(reason);
    // Kept in the file only: onCrash tells the person (the host's one line, the desktop app's dialog).
    options.log.error(kind === 'uncaught_exception' ? 'uncaught exception' : 'unhandled promise rejection', { error: stack, ...(crashed ? { whileHandlingAnother: true } : {}) }, { terminal: false });
    // A second failure while the first is being handled (the dialog is open, the host is stopping)
    // is logged and nothing more: one decision per crash.
    if (crashed) return;
    crashed = true;
    const flushed = options.log.flush?.() ?? Promise.resolve();
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, options.flushTimeoutMs ?? 1000).unref());
    void Promise.race([flushed.catch(() => undefined), timeout]).then(() => options.onCrash({ kind, message, logFile: options.log.file }));
  };
  const onException = (error: unknown) => handle('uncaught_exception', error);
  const onRejection = (reason: unknown) => {
    if (options.survivable?.(reason)) {
      options.log.error('unhandled promise rejection; the console goes on', { error: describe(reason).stack });
      return;
    }
    handle('unhandled_rejection', reason);
  };
  target.on('uncaughtException', onException);
  target.on('unhandledRejection', onRejection);
  return () => {
    target.removeListener('uncaughtException', onException);
    target.removeListener('unhandledRejection', onRejection);
  };
}

/** What the browser host prints on stderr before it stops after a crash. */
export function crashLine(crash: Crash): string {
  const what = crash.kind === 'uncaught_exception' ? 'an unexpected error' : 'an unexpected failure nothing waited for';
  const where = crash.logFile ? `The details are in its log, ${crash.logFile}.` : 'It keeps no log file this time, so the details are lost; the line about its log file above says why.';
  return `Operator Console stopped after ${what}: ${crash.message.split('\n')[0]!.slice(0, 300)}. ${where} Start it again with \`npm run serve\`; runs that were going on are shown as stranded and can be resumed.`;
}
