/**
 * Acknowledges parsed output to the core in batches: xterm.js calls back once per write, which can be
 * thousands of times a second during a flood; one ack every `intervalMs` with the summed count frees
 * the same window with a fraction of the messages.
 */
export class AckBatcher {
  private pending = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;

  constructor(
    private readonly send: (bytes: number) => void,
    private readonly intervalMs = 16,
    private readonly timers: Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'> = globalThis,
  ) {}

  /** `bytes` more have been parsed by the terminal. */
  add(bytes: number): void {
    if (this.disposed || bytes <= 0) return;
    this.pending += bytes;
    this.timer ??= this.timers.setTimeout(() => this.flush(), this.intervalMs);
  }

  flush(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.disposed || this.pending === 0) return;
    const bytes = this.pending;
    this.pending = 0;
    this.send(bytes);
  }

  /** The subscription is gone: drop what was not sent (the core has forgotten the window). */
  dispose(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = 0;
    this.disposed = true;
  }
}
