import { isOperatorError } from '../../shared/errors';

/**
 * What the operator reads when something fails. The core's errors are written for people (they say
 * what to do next); anything else is an internal fault whose text would only confuse, so it is
 * replaced by a plain sentence. A stack trace is never shown.
 */
export function operatorMessage(error: unknown): string {
  if (isOperatorError(error)) return error.message;
  if (isErrorShape(error)) return error.message;
  return 'The console could not complete that request. Try again; if it keeps failing, restart the console.';
}

/** An in-app action link carried by an error, when there is one. */
export function operatorActionUrl(error: unknown): string | undefined {
  if (isOperatorError(error) || isErrorShape(error)) return safeActionHref(error.actionUrl ?? null);
  return undefined;
}

/** Errors that crossed a boundary as plain objects still carry the operator-facing shape. */
function isErrorShape(value: unknown): value is { code: string; message: string; actionUrl?: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Error) &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/**
 * Action links are in-app hash routes (shared/routes.ts). Anything else (a script URL, a foreign page)
 * is not rendered as a link.
 */
export function safeActionHref(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  return /^#\/[^\s]*$/.test(url) ? url : undefined;
}
