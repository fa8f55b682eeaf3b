import { randomUUID } from 'node:crypto';
import { OperatorError } from '../../shared/errors';
import type { OutputFanout, OutputSubscription } from '../pty/output-fanout';
import type { ClientChannel } from '../events/client-channel';

/** Viewers may not open output streams without end: one page opens a handful at most. */
const maxStreamsPerClient = 32;

interface Stream {
  client: ClientChannel;
  subscription: OutputSubscription;
}

/**
 * Live output streams, each owned by the client (window or socket) that opened it: its bytes go to
 * that client alone, and it closes when the client goes away.
 */
export class OutputStreams {
  private readonly streams = new Map<string, Stream>();
  private readonly byClient = new Map<string, Set<string>>();

  constructor(private readonly fanout: OutputFanout, private readonly runExists: (runId: string) => boolean) {}

  open(runId: string, from: 'start' | 'tail' | number, client: ClientChannel | undefined, until?: number) {
    if (!client) {
      throw new OperatorError({ code: 'invalid_request', message: 'Live output needs a connected client (a window or a WebSocket).' });
    }
    if (!this.runExists(runId)) throw new OperatorError({ code: 'not_found', message: 'That run is no longer in the console.' });
    let owned = this.byClient.get(client.id);
    if (!owned) {
      owned = new Set();
      this.byClient.set(client.id, owned);
      const ids = owned;
      client.onClose(() => {
        for (const id of [...ids]) this.close(id);
        this.byClient.delete(client.id);
      });
    }
    if (owned.size >= maxStreamsPerClient) {
      throw new OperatorError({ code: 'conflict', message: 'Too many output streams are open in this window. Close a run’s terminal first.' });
    }
    const subscriptionId = randomUUID();
    const subscription = this.fanout.subscribe({
      runId,
      fromOffset: from === 'start' ? 0 : from,
      ...(until !== undefined ? { untilOffset: until } : {}),
      send: (message) => {
        if (message.type === 'output') {
          client.push('runOutput', { subscriptionId, runId, offset: message.offset, bytes: message.bytes });
        } else if (message.type === 'attempt') {
          const { attempt, previous, maxAttempts, offset } = message;
          client.push('runOutputAttempt', { subscriptionId, runId, offset, attempt, previous, maxAttempts });
        } else {
          client.push('runOutputSkipped', {
            subscriptionId,
            runId,
            fromOffset: message.fromOffset,
            toOffset: message.toOffset,
            skippedBytes: message.skippedBytes,
          });
        }
      },
    });
    this.streams.set(subscriptionId, { client, subscription });
    owned.add(subscriptionId);
    return { subscriptionId, fromOffset: subscription.fromOffset, totalBytes: subscription.liveEnd, untilOffset: subscription.untilOffset };
  }

  ack(subscriptionId: string, bytes: number, client: ClientChannel | undefined): { ok: boolean } {
    const stream = this.streams.get(subscriptionId);
    // Only the owner may move its window; another client's ack is ignored, not an error it can probe.
    if (!stream || stream.client.id !== client?.id) return { ok: false };
    stream.subscription.ack(bytes);
    return { ok: true };
  }

  closeFor(subscriptionId: string, client: ClientChannel | undefined): { ok: boolean } {
    const stream = this.streams.get(subscriptionId);
    if (!stream || stream.client.id !== client?.id) return { ok: false };
    this.close(subscriptionId);
    return { ok: true };
  }

  private close(subscriptionId: string): void {
    const stream = this.streams.get(subscriptionId);
    if (!stream) return;
    this.streams.delete(subscriptionId);
    this.byClient.get(stream.client.id)?.delete(subscriptionId);
    stream.subscription.close();
  }
}
