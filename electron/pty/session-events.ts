/**
 * What a PtySession tells: its output as it comes, and its exit once. Every session keeps them alike (a
 * local PTY, pty-session.ts; an agent on an SSH host, hosts/remote-run/remote-session.ts): a listener
 * that asks for the exit after it happened hears it at once, on the next microtask.
 */
export class SessionEvents<Exit> {
  private readonly dataListeners = new Set<(bytes: Buffer) => void>();
  private readonly exitListeners = new Set<(exit: Exit) => void>();
  private ended: Exit | null = null;

  /** The exit, once it happened. */
  get exit(): Exit | null {
    return this.ended;
  }

  onData(listener: (bytes: Buffer) => void): () => void {
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }

  onExit(listener: (exit: Exit) => void): () => void {
    const exit = this.ended;
    if (exit) {
      queueMicrotask(() => listener(exit));
      return () => {};
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  emitData(bytes: Buffer): void {
    for (const listener of this.dataListeners) listener(bytes);
  }

  emitExit(exit: Exit): void {
    this.ended = exit;
    for (const listener of this.exitListeners) listener(exit);
  }
}
