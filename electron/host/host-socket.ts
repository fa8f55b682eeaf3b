import { WebSocket, type RawData } from 'ws';
import { maxRequestBytes } from '../../shared/contract';
import type { ErrorCode, OperatorErrorShape } from '../../shared/errors';
import { clientAckSchema, clientRequestSchema, encodeBinaryEventParts, hasBinaryBytes, type ServerMessage } from '../../shared/wire';
import type { Core } from '../core';
import { describeError, type Logger } from '../platform/log';
import { createClientChannel } from '../events/client-channel';

/** A socket this far behind stops getting events; the renderer refetches when it catches up. */
const maxBufferedEventBytes = 16 * 1024 * 1024;

/**
 * One browser connection: requests in, responses and events out. Nothing a client sends may close
 * the socket or reach the ledger unchecked; every refusal is answered with a stable code.
 */
export class HostSocket {
  private alive = true;
  private droppingEvents = false;
  /**
   * This socket as a client of the core: streams it opens (live output) are pushed here only, and
   * always sent, since the output fanout already bounds what is in flight per viewer.
   */
  private readonly client = createClientChannel((event, payload) => {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    if (hasBinaryBytes(payload)) this.sendParts(encodeBinaryEventParts(event, payload));
    else this.ws.send(JSON.stringify({ type: 'event', event, payload } satisfies ServerMessage));
  });

  constructor(
    private readonly ws: WebSocket,
    private readonly core: Pick<Core, 'dispatch'>,
    private readonly log: Logger,
  ) {
    ws.on('close', () => this.client.close());
    ws.on('pong', () => {
      this.alive = true;
    });
    ws.on('message', (data, isBinary) => {
      this.handleMessage(data, isBinary).catch((error: unknown) => {
        this.log.error('websocket message failed unexpectedly', { error: describeError(error) });
      });
    });
    ws.on('error', (error) => this.log.debug('websocket error', { error: describeError(error) }));
  }

  private async handleMessage(data: RawData, isBinary: boolean): Promise<void> {
    const bytes = rawDataToBuffer(data);
    if (isBinary) {
      return this.refuse(undefined, 'malformed_message', 'The console accepts only JSON text messages from the page.');
    }
    const text = bytes.toString('utf8');
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      if (bytes.length > maxRequestBytes) return this.refuseTooLarge(undefined, bytes.length);
      return this.refuse(undefined, 'malformed_message', 'The message is not valid JSON.');
    }
    if (isAck(message)) return this.acknowledge(message, bytes.length);
    const id = requestIdOf(message);
    if (bytes.length > maxRequestBytes) return this.refuseTooLarge(id, bytes.length);
    const parsed = clientRequestSchema.safeParse(message);
    if (!parsed.success) {
      if (id !== undefined) return this.refuse(id, 'invalid_request', 'The message is not a request the console understands.');
      return this.refuse(undefined, 'malformed_message', 'The message is not a request the console understands.');
    }
    const request = parsed.data;
    // The dispatcher validates the channel and input, and logs its own refusals.
    const envelope = await this.core.dispatch(request.channel, request.input, {
      transport: 'browser',
      sizeBytes: bytes.length,
      client: this.client,
    });
    this.send(
      envelope.ok
        ? { type: 'response', id: request.id, ok: true, value: envelope.value }
        : { type: 'response', id: request.id, ok: false, error: envelope.error },
    );
  }

  /**
   * Parsed output, acknowledged many times a second during a flood: handed to the core as the
   * ackRunOutput channel's input, through the same checks as a request, but nothing is answered.
   */
  private async acknowledge(message: unknown, size: number): Promise<void> {
    const parsed = clientAckSchema.safeParse(message);
    if (!parsed.success) return this.refuse(undefined, 'malformed_message', 'The acknowledgement is not one the console understands.');
    const { subscriptionId, bytes } = parsed.data;
    const envelope = await this.core.dispatch('ackRunOutput', { subscriptionId, bytes }, { transport: 'browser', sizeBytes: size, client: this.client });
    if (!envelope.ok) this.send({ type: 'error', error: envelope.error });
  }

  private refuseTooLarge(id: number | undefined, size: number): void {
    this.refuse(id, 'payload_too_large', `The request is ${size} bytes; the limit is ${maxRequestBytes} bytes.`);
  }

  private refuse(id: number | undefined, code: ErrorCode, message: string): void {
    this.log.warn('websocket message refused', { transport: 'browser', code, ...(id !== undefined ? { id } : {}) });
    const error: OperatorErrorShape = { code, message };
    this.send(id !== undefined ? { type: 'response', id, ok: false, error } : { type: 'error', error });
  }

  /** Responses are always sent, however far behind the socket is: the page is waiting for them. */
  private send(message: ServerMessage): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      this.log.error('response could not be encoded', { error: describeError(error) });
      return;
    }
    this.ws.send(text);
  }

  /** One message in two fragments: the head, then the bytes as they are (never copied into a frame). */
  private sendParts([head, bytes]: readonly [Uint8Array, Uint8Array]): void {
    this.ws.send(head, { binary: true, fin: false });
    this.ws.send(bytes, { binary: true, fin: true });
  }

  /** A broadcast event, encoded once for every socket: JSON text, or a binary event's two parts. */
  sendEvent(event: string, data: string | readonly [Uint8Array, Uint8Array]): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    if (this.ws.bufferedAmount > maxBufferedEventBytes) {
      if (!this.droppingEvents) {
        this.droppingEvents = true;
        this.log.warn('websocket too far behind; dropping events until it catches up', {
          event,
          bufferedBytes: this.ws.bufferedAmount,
        });
      }
      return;
    }
    this.droppingEvents = false;
    if (typeof data === 'string') this.ws.send(data);
    else this.sendParts(data);
  }

  /** A socket that did not answer the last ping is gone (sleeping laptop, killed tab). */
  checkAlive(): void {
    if (!this.alive) {
      this.log.debug('websocket missed its heartbeat; terminating');
      this.ws.terminate();
      return;
    }
    this.alive = false;
    if (this.ws.readyState === WebSocket.OPEN) this.ws.ping();
  }

  closeGoingAway(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close(1001, 'Operator Console is shutting down');
    });
  }

  terminate(): void {
    if (this.ws.readyState !== WebSocket.CLOSED) this.ws.terminate();
  }
}

function isAck(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'ack';
}

/** The id of something shaped like a request, so a bad request can still be answered by id. */
function requestIdOf(message: unknown): number | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const id = (message as { id?: unknown }).id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : undefined;
}

function rawDataToBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
