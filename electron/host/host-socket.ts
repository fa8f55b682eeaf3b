import { WebSocket, type RawData } from 'ws';
import { maxRequestBytes } from '../../shared/contract';
import { OperatorError, type ErrorCode, type OperatorErrorShape } from '../../shared/errors';
import { clientAckSchema, clientRequestSchema, encodeBinaryEventParts, hasBinaryBytes, type ServerMessage } from '../../shared/wire';
import type { Core } from '../core';
import type { EventHub } from '../events/event-hub';
import { describeError, type Logger } from '../platform/log';
import { createClientChannel } from '../events/client-channel';
import {
  clientHelloSchema,
  serviceControlSchema,
  serviceSecretsSchema,
  type ClientHello,
  type ServiceControl,
  type ServiceControlResult,
  type ServiceHandingOver,
  type ServiceSecrets,
  type ServiceOfAnotherVersion,
  type ServiceWelcome,
} from '../../shared/service-hello';

/** A socket this far behind stops getting events; the renderer refetches when it catches up. */
const maxBufferedEventBytes = 16 * 1024 * 1024;

/**
 * What the console service's local socket adds to a connection (electron/service/): the client says
 * hello first, in the service's versions, and may ask the service itself to quit or stop. The browser's
 * WebSocket has neither: its token and Origin are its checks, and its page is the service's own build.
 */
export interface HostSocketGreeting {
  /**
   * Accepts a hello with the service's welcome, or refuses it (the socket is then closed): after what
   * the service is (a client of another version is told so first, to offer the two ways on), or after
   * the service's agreement to hand over to that version once its runs end.
   */
  hello(hello: ClientHello, socket: HostSocket): HelloAnswer;
  control(control: ServiceControl, socket: HostSocket): Promise<ServiceControlResult>;
  /** The desktop app's secrets key, or its secrets from before the service (shared/service-hello.ts). */
  secrets(secrets: ServiceSecrets, socket: HostSocket): unknown;
}

export type HelloAnswer =
  | { ok: true; welcome: ServiceWelcome }
  | { ok: false; error: OperatorErrorShape; otherVersion?: ServiceOfAnotherVersion }
  | { ok: false; handingOver: ServiceHandingOver };

/**
 * One client connection (a browser page, or an app on the service's local socket): requests in,
 * responses and events out. Nothing a client sends may close the socket or reach the ledger unchecked;
 * every refusal is answered with a stable code.
 */
export class HostSocket {
  private alive = true;
  private droppingEvents = false;
  /** Who said hello on the local socket; undefined until then (and always on the browser's WebSocket). */
  private greeted: ClientHello | undefined;
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
    private readonly greeting?: HostSocketGreeting,
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
    if (this.greeting) {
      // The local socket: nothing but a hello until one is accepted.
      if (typeOf(message) === 'hello') return this.sayHello(message, this.greeting);
      if (!this.greeted) return this.refuseUngreeted();
      if (typeOf(message) === 'control') return this.control(message, bytes.length, this.greeting);
      if (typeOf(message) === 'secrets') return this.secrets(message, this.greeting);
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
      transport: this.transport,
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
   * Where a request came from, for the log and for what the core answers per app (system info): the
   * browser's WebSocket, the desktop app on the service's local socket, or another client there.
   */
  private get transport(): 'browser' | 'electron' | 'service-socket' {
    if (!this.greeting) return 'browser';
    return this.greeted?.client === 'desktop-app' ? 'electron' : 'service-socket';
  }

  /** Who this client said it is in its hello (the local socket), if it did. */
  get hello(): ClientHello | undefined {
    return this.greeted;
  }

  private sayHello(message: unknown, greeting: HostSocketGreeting): void {
    const parsed = clientHelloSchema.safeParse(message);
    if (!parsed.success) return this.refuseAndClose('malformed_message', 'The hello is not one the console service understands.');
    if (this.greeted) return this.refuse(undefined, 'malformed_message', 'This connection has already said hello.');
    const answer = greeting.hello(parsed.data, this);
    if (!answer.ok && 'handingOver' in answer) {
      this.send(answer.handingOver);
      if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000, 'handing over');
      return;
    }
    if (!answer.ok) {
      if (answer.otherVersion) this.send(answer.otherVersion);
      return this.refuseAndClose(answer.error.code, answer.error.message);
    }
    this.greeted = parsed.data;
    this.send(answer.welcome);
  }

  private refuseUngreeted(): void {
    this.refuseAndClose('hello_required', 'Say hello first: the console service answers a client only once it knows its versions.');
  }

  /** A refusal after which the connection has nothing more to say: answered, then closed. */
  private refuseAndClose(code: ErrorCode, message: string): void {
    this.refuse(undefined, code, message);
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1008, code);
  }

  private async control(message: unknown, size: number, greeting: HostSocketGreeting): Promise<void> {
    const parsed = serviceControlSchema.safeParse(message);
    if (!parsed.success) return this.refuse(requestIdOf(message), 'invalid_request', 'The control message is not one the console service understands.');
    this.log.info('service control asked', { action: parsed.data.action, client: this.greeted?.client, size });
    const value = await greeting.control(parsed.data, this);
    this.send({ type: 'response', id: parsed.data.id, ok: true, value });
  }

  /** Never logged, whatever it holds: a key, or secrets in the clear. */
  private secrets(message: unknown, greeting: HostSocketGreeting): void {
    const id = requestIdOf(message);
    const parsed = serviceSecretsSchema.safeParse(message);
    if (!parsed.success) return this.refuse(id, 'invalid_request', 'The secrets message is not one the console service understands.');
    if (this.greeted?.client !== 'desktop-app') return this.refuse(id, 'forbidden_sender', 'Only the desktop app hands the console service its secrets.');
    try {
      this.send({ type: 'response', id: parsed.data.id, ok: true, value: greeting.secrets(parsed.data, this) });
    } catch (error) {
      const shape = error instanceof OperatorError ? error.toShape() : { code: 'internal' as const, message: 'The console service could not take the secrets; see its log.' };
      if (!(error instanceof OperatorError)) this.log.error('service secrets failed', { action: parsed.data.action, error: describeError(error) });
      this.send({ type: 'response', id: parsed.data.id, ok: false, error: shape });
    }
  }

  /**
   * Parsed output, acknowledged many times a second during a flood: handed to the core as the
   * ackRunOutput channel's input, through the same checks as a request, but nothing is answered.
   */
  private async acknowledge(message: unknown, size: number): Promise<void> {
    const parsed = clientAckSchema.safeParse(message);
    if (!parsed.success) return this.refuse(undefined, 'malformed_message', 'The acknowledgement is not one the console understands.');
    const { subscriptionId, bytes } = parsed.data;
    const envelope = await this.core.dispatch('ackRunOutput', { subscriptionId, bytes }, { transport: this.transport, sizeBytes: size, client: this.client });
    if (!envelope.ok) this.send({ type: 'error', error: envelope.error });
  }

  private refuseTooLarge(id: number | undefined, size: number): void {
    this.refuse(id, 'payload_too_large', `The request is ${size} bytes; the limit is ${maxRequestBytes} bytes.`);
  }

  private refuse(id: number | undefined, code: ErrorCode, message: string): void {
    this.log.warn('websocket message refused', { transport: this.transport, code, ...(id !== undefined ? { id } : {}) });
    const error: OperatorErrorShape = { code, message };
    this.send(id !== undefined ? { type: 'response', id, ok: false, error } : { type: 'error', error });
  }

  /** Responses are always sent, however far behind the socket is: the page is waiting for them. */
  private send(message: ServerMessage | ServiceWelcome | ServiceOfAnotherVersion | ServiceHandingOver): void {
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
    // On the local socket the first thing a client hears is the answer to its hello: no broadcast before it.
    if (this.greeting && !this.greeted) return;
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

/** Every event the core pushes, encoded once and sent to each of these sockets. Returns the unsubscribe. */
export function broadcastEvents(events: Pick<EventHub, 'listen'>, sockets: ReadonlySet<HostSocket>): () => void {
  return events.listen((event, payload) => {
    if (sockets.size === 0) return;
    const data = hasBinaryBytes(payload)
      ? encodeBinaryEventParts(event, payload)
      : JSON.stringify({ type: 'event', event, payload } satisfies ServerMessage);
    for (const socket of sockets) socket.sendEvent(event, data);
  });
}

function typeOf(message: unknown): unknown {
  return typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined;
}

function isAck(message: unknown): boolean {
  return typeOf(message) === 'ack';
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
