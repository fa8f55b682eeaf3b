/** Thrown where an attempt notices it was stopped (by the operator, or by the console closing). */
export class AttemptStopped extends Error {
  constructor() {
    super('The attempt was stopped.');
  }
}

/** Waits for `promise` unless `signal` aborts first: a long wait (a busy connection) ends on Stop. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AttemptStopped());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AttemptStopped());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * Takes a Stop that came during work that had to finish despite it (a task root made whole, a
 * confinement that must be undone by its maker): called right after such an await, and nowhere else.
 */
export function takeStop(signal: AbortSignal): void {
  if (signal.aborted) throw new AttemptStopped();
}
