import type { OutputFanout, OutputMessage, OutputSubscription, SubscribeOutputOptions } from '../pty/output-fanout';
import type { PtyOutputSource } from '../pty/output-pipeline';
import type { PtyExit } from '../pty/pty-session';
import type { TestRunLedger } from './output-test-kit';

/** What the output fanout tests (electron/pty/output-fanout*.test.ts) watch and drive it with. */

const subscriptions: OutputSubscription[] = [];

/** For afterEach: closes every viewer a test opened. */
export function closeViewers(): void {
  subscriptions.splice(0).forEach((subscription) => subscription.close());
}

export function ledgerBytes(test: TestRunLedger, runId: string, from = 0): Buffer {
  return Buffer.from(test.ledger.output.read(runId, from, test.ledger.output.totalBytes(runId)).bytes);
}

/**
 * A viewer as a terminal would be: it checks that every message continues exactly where the previous
 * one ended (no gap, no duplicate) and keeps the bytes it was sent.
 */
export function viewer(fanout: OutputFanout, options: Omit<SubscribeOutputOptions, 'send'>, ack: 'never' | 'inline' | 'later' = 'never') {
  const messages: OutputMessage[] = [];
  const parts: Buffer[] = [];
  /** Each attempt start sent, with where in the viewer's stream it came (the next byte's offset). */
  const attempts: Array<{ number: number; offset: number; at: number | undefined }> = [];
  let expectedOffset: number | undefined;
  let sent = 0;
  let unacked = 0;
  let maxUnacked = 0;
  const errors: string[] = [];
  const subscription = fanout.subscribe({
    ...options,
    send: (message) => {
      messages.push(message);
      if (message.type === 'skipped') {
        if (expectedOffset !== undefined && message.fromOffset !== expectedOffset) errors.push(`skip from ${message.fromOffset}, expected ${expectedOffset}`);
        if (message.skippedBytes !== message.toOffset - message.fromOffset) errors.push('skippedBytes disagrees with the offsets');
        expectedOffset = message.toOffset;
        return;
      }
      if (message.type === 'attempt') {
        attempts.push({ number: message.attempt.number, offset: message.offset, at: expectedOffset });
        return;
      }
      if (expectedOffset !== undefined && message.offset !== expectedOffset) errors.push(`output at ${message.offset}, expected ${expectedOffset}`);
      expectedOffset = message.offset + message.bytes.length;
      parts.push(Buffer.from(message.bytes));
      sent += message.bytes.length;
      unacked += message.bytes.length;
      maxUnacked = Math.max(maxUnacked, unacked);
      const n = message.bytes.length;
      if (ack === 'inline') {
        unacked -= n;
        subscription.ack(n);
      }
      if (ack === 'later') {
        setImmediate(() => {
          unacked -= n;
          subscription.ack(n);
        });
      }
    },
  });
  subscriptions.push(subscription);
  return {
    messages,
    attempts,
    errors,
    bytes: () => Buffer.concat(parts),
    firstOffset: () => messages.find((m) => m.type === 'output')?.offset,
    endOffset: () => expectedOffset,
    sent: () => sent,
    maxUnacked: () => maxUnacked,
    skips: () => messages.filter((m) => m.type === 'skipped'),
    ackAll: () => {
      const n = unacked;
      unacked = 0;
      subscription.ack(n);
    },
    subscription: () => subscription,
  };
}

/** A PTY stand-in whose bytes the test emits by hand, for exact control over timing. */
export function scriptedPty() {
  const dataListeners = new Set<(bytes: Buffer) => void>();
  const exitListeners = new Set<(exit: PtyExit) => void>();
  let pauses = 0;
  const session: PtyOutputSource = {
    onData: (listener) => (dataListeners.add(listener), () => dataListeners.delete(listener)),
    onExit: (listener) => (exitListeners.add(listener), () => exitListeners.delete(listener)),
    pause: () => void (pauses += 1),
    resume: () => {},
  };
  let counter = 0;
  return {
    session,
    pauses: () => pauses,
    /** Emits `size` bytes whose values follow the offset, so any misplaced byte shows. */
    emit(size: number) {
      const bytes = Buffer.alloc(size);
      for (let k = 0; k < size; k += 1) bytes[k] = (counter + k) % 251;
      counter += size;
      for (const listener of dataListeners) listener(bytes);
    },
    exit: () => exitListeners.forEach((listener) => listener({ exitCode: 0, signal: null })),
  };
}

export const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
