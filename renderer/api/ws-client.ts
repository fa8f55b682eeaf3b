import {
  channelNames,
  events,
  isEventName,
  maxRequestBytes,
  type ChannelName,
  type EventHandler,
  type EventName,
  type OperatorClient,
  type TransportState,
} from '../../shared/contract';
import { OperatorError } from '../../shared/errors';
import { decodeBinaryEvent, serverMessageSchema, type ClientAck, type ClientRequest } from '../../shared/wire';

/**
 * The OperatorClient of the browser host: the contract's channels over one WebSocket. It keeps the
 * socket up by itself (reconnecting with capped backoff), so the UI only watches transportState and
 * refetches when it returns to 'connected'.
 *
 * A browser never tells script why a WebSocket upgrade failed, so a console restarted with a new token
 * looks like one that is merely down. After each failed attempt the client therefore asks the host's
 * session address over plain HTTP, with the same credentials: a 401 there means the token is refused,
 * and the client stops, in state 'refused', rather than retry forever with a token that cannot work.
 *
 * This file names no DOM types, only the small WebSocket surface it uses, so the Node program can
 * test it against the real host with `ws`'s class in place of the browser's.
 */

/** The part of the WebSocket API this client uses; the browser's and `ws`'s both provide it. */
export interface SocketLike {
  readonly readyState: number;
  binaryType: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
}

export type SocketConstructor = new (url: string) => SocketLike;

/** The part of fetch the session check uses; the browser's (and Node's) fetch provides it. */
export type FetchLike = (url: string, init: { credentials: 'same-origin'; cache: 'no-store'; signal: AbortSignal }) => Promise<{ status: number }>;

export interface WebSocketClientOptions {
  /** ws://<host>/ws, with ?token= when the page has one (the cookie carries it otherwise). */
  url: string;
  /** The WebSocket class; the browser's by default. Tests in Node pass `ws`'s. */
  WebSocketImpl?: SocketConstructor;
  /** How long a request made while disconnected waits for the connection before failing. */
  connectWaitMs?: number;
  /** Reconnect backoff: first delay, doubling up to the cap. */
  reconnectDelayMs?: { initial: number; max: number };
  /**
   * http://<host>/session with the same token as `url` (or none, for the cookie): asked after a failed
   * attempt whether the host still accepts the token. Without it the client never gives up.
   */
  sessionUrl?: string;
  /** fetch; the global one by default. */
  fetchImpl?: FetchLike;
}

/** The client, plus close() for whoever owns its lifetime (tests; the app keeps one for the page). */
export type WebSocketClient = OperatorClient & { close(): void };

const socketOpen = 1;
/** A session check the host does not answer in this time says nothing; the client keeps trying. */
const sessionCheckTimeoutMs = 5_000;

interface PendingRequest {
  resolve(value: unknown): void;
  reject(error: OperatorError): void;
}

interface QueuedRequest extends PendingRequest {
  id: number;
  frame: string;
  timer: ReturnType<typeof setTimeout>;
}

function disconnectedError(message: string): OperatorError {
  return new OperatorError({ code: 'disconnected', message });
}

const refusedMessage =
  'The console was restarted and no longer accepts this page’s access token. Open the new address it printed when it started (the one ending in /?token=...).';

export function createWebSocketClient(options: WebSocketClientOptions): WebSocketClient {
  const SocketClass =
    options.WebSocketImpl ?? ((globalThis as { WebSocket?: unknown }).WebSocket as SocketConstructor | undefined);
  if (!SocketClass) throw new Error('This environment has no WebSocket.');
  const connectWaitMs = options.connectWaitMs ?? 30_000;
  const initialDelayMs = options.reconnectDelayMs?.initial ?? 250;
  const maxDelayMs = options.reconnectDelayMs?.max ?? 5_000;
  const fetchSession = options.fetchImpl ?? ((globalThis as { fetch?: unknown }).fetch as FetchLike | undefined);

  let state: TransportState = 'connecting';
  const stateListeners = new Set<(state: TransportState) => void>();
  const eventHandlers = new Map<EventName, Set<(payload: unknown) => void>>();
  /** Sent and waiting for an answer; they fail if the socket drops, since the answer is lost with it. */
  const pending = new Map<number, PendingRequest>();
  /** Made while disconnected; sent, in order, once the socket opens. */
  const queued: QueuedRequest[] = [];
  let socket: SocketLike | undefined;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  let failedAttempts = 0;
  let nextRequestId = 1;
  let closed = false;

  function setState(next: TransportState): void {
    if (next === state) return;
    state = next;
    for (const listener of [...stateListeners]) {
      try {
        listener(next);
      } catch (error) {
        console.error('transport state listener failed', error);
      }
    }
  }

  function connect(): void {
    reconnectTimer = undefined;
    if (closed) return;
    let current: SocketLike;
    try {
      current = new SocketClass!(options.url);
    } catch (error) {
      console.error('could not open the console WebSocket', error);
      scheduleReconnect();
      return;
    }
    socket = current;
    let opened = false;
    current.binaryType = 'arraybuffer';
    current.onopen = () => {
      if (socket !== current) return;
      opened = true;
      failedAttempts = 0;
      setState('connected');
      flushQueue();
    };
    current.onmessage = (event) => {
      if (socket === current) handleMessage(event.data);
    };
    // Every failure ends in close; that is where reconnecting starts.
    current.onerror = () => {};
    current.onclose = () => {
      if (socket !== current) return;
      socket = undefined;
      failPending('The connection to the console was lost before it answered. Try again.');
      if (closed) return;
      setState(state === 'connecting' ? 'connecting' : 'reconnecting');
      // A socket that was open and dropped is a drop; one that never opened may have been refused.
      if (opened || !options.sessionUrl) scheduleReconnect();
      else void reconnectUnlessRefused();
    };
  }

  async function reconnectUnlessRefused(): Promise<void> {
    const refused = await tokenRefused();
    if (closed) return;
    if (!refused) {
      scheduleReconnect();
      return;
    }
    // Final: nothing this page holds can get it in again, so nothing is retried or kept waiting.
    closed = true;
    setState('refused');
    for (const request of queued.splice(0)) {
      clearTimeout(request.timer);
      request.reject(new OperatorError({ code: 'unauthorized', message: refusedMessage }));
    }
  }

  /** Only a 401 from the host counts: no answer, or any other, leaves the client trying. */
  async function tokenRefused(): Promise<boolean> {
    if (!fetchSession) return false;
    try {
      const response = await fetchSession(options.sessionUrl!, {
        credentials: 'same-origin',
        cache: 'no-store',
        signal: AbortSignal.timeout(sessionCheckTimeoutMs),
      });
      return response.status === 401;
    } catch {
      return false;
    }
  }

  function scheduleReconnect(): void {
    if (closed || reconnectTimer !== undefined) return;
    const wait = Math.min(maxDelayMs, initialDelayMs * 2 ** failedAttempts);
    failedAttempts += 1;
    reconnectTimer = setTimeout(connect, wait);
  }

  function failPending(message: string): void {
    const requests = [...pending.values()];
    pending.clear();
    for (const request of requests) request.reject(disconnectedError(message));
  }

  function flushQueue(): void {
    while (queued.length > 0 && socket?.readyState === socketOpen) {
      const request = queued.shift()!;
      clearTimeout(request.timer);
      sendNow(request.id, request.frame, request);
    }
  }

  function sendNow(id: number, frame: string, request: PendingRequest): void {
    pending.set(id, request);
    try {
      socket!.send(frame);
    } catch {
      pending.delete(id);
      request.reject(disconnectedError('The connection to the console was lost. Try again.'));
    }
  }

  function request(channel: ChannelName, input: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (state === 'refused') {
        reject(new OperatorError({ code: 'unauthorized', message: refusedMessage }));
        return;
      }
      if (closed) {
        reject(disconnectedError('This connection to the console has been closed. Reload the page.'));
        return;
      }
      const id = nextRequestId++;
      const message: ClientRequest = { type: 'request', id, channel, ...(input !== undefined ? { input } : {}) };
      let frame: string;
      try {
        frame = JSON.stringify(message);
      } catch {
        reject(new OperatorError({ code: 'invalid_request', message: `The request to ${channel} could not be encoded.` }));
        return;
      }
      // Refused here rather than sent: the host would refuse it anyway, after reading it all.
      const size = utf8Length(frame);
      if (size > maxRequestBytes) {
        reject(
          new OperatorError({
            code: 'payload_too_large',
            message: `The request to ${channel} is ${size} bytes; the limit is ${maxRequestBytes} bytes.`,
          }),
        );
        return;
      }
      if (socket?.readyState === socketOpen) {
        sendNow(id, frame, { resolve, reject });
        return;
      }
      const queuedRequest: QueuedRequest = {
        id,
        frame,
        resolve,
        reject,
        timer: setTimeout(() => {
          const at = queued.indexOf(queuedRequest);
          if (at !== -1) queued.splice(at, 1);
          reject(disconnectedError('The console is not reachable. Check that it is still running, then try again.'));
        }, connectWaitMs),
      };
      queued.push(queuedRequest);
    });
  }

  /**
   * Acknowledging parsed output is an ack message, not a request: the terminal sends dozens a second
   * in a flood, and waiting for an answer to each would cost both sides for nothing. An ack is only
   * meaningful on the connection its subscription lives on, so one made while disconnected is dropped.
   */
  function acknowledge(input: unknown): Promise<{ ok: boolean }> {
    const { subscriptionId, bytes } = (input ?? {}) as Partial<ClientAck>;
    if (closed || socket?.readyState !== socketOpen || typeof subscriptionId !== 'string' || typeof bytes !== 'number') {
      return Promise.resolve({ ok: false });
    }
    try {
      socket.send(JSON.stringify({ type: 'ack', subscriptionId, bytes } satisfies ClientAck));
    } catch {
      return Promise.resolve({ ok: false });
    }
    return Promise.resolve({ ok: true });
  }

  function handleMessage(data: unknown): void {
    let message: unknown;
    try {
      if (typeof data === 'string') message = JSON.parse(data);
      else if (data instanceof ArrayBuffer) message = { type: 'event', ...decodeBinaryEvent(new Uint8Array(data)) };
      else if (ArrayBuffer.isView(data)) message = { type: 'event', ...decodeBinaryEvent(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) };
      else return;
    } catch (error) {
      console.error('the console sent an unreadable message', error);
      return;
    }
    const parsed = serverMessageSchema.safeParse(message);
    if (!parsed.success) {
      console.error('the console sent a message outside the protocol', parsed.error);
      return;
    }
    const server = parsed.data;
    switch (server.type) {
      case 'response': {
        const waiting = pending.get(server.id);
        if (!waiting) return;
        pending.delete(server.id);
        if (server.ok) waiting.resolve(server.value);
        else waiting.reject(new OperatorError(server.error));
        return;
      }
      case 'event':
        deliverEvent(server.event, server.payload);
        return;
      case 'error':
        // Not tied to a request: this client only sends well-formed requests, so it is a host bug.
        console.error('the console refused a message', server.error);
        return;
    }
  }

  function deliverEvent(event: string, rawPayload: unknown): void {
    if (!isEventName(event)) return;
    const handlers = eventHandlers.get(event);
    if (!handlers || handlers.size === 0) return;
    const payload = events[event].safeParse(rawPayload);
    if (!payload.success) {
      console.error(`the console sent a ${event} event outside the contract`, payload.error);
      return;
    }
    for (const handler of [...handlers]) {
      try {
        handler(payload.data);
      } catch (error) {
        console.error(`a ${event} handler failed`, error);
      }
    }
  }

  function subscribe<E extends EventName>(event: E, handler: EventHandler<E>): () => void {
    let handlers = eventHandlers.get(event);
    if (!handlers) {
      handlers = new Set();
      eventHandlers.set(event, handlers);
    }
    const stored = handler as (payload: unknown) => void;
    handlers.add(stored);
    return () => {
      handlers.delete(stored);
    };
  }

  function close(): void {
    if (closed) return;
    closed = true;
    if (reconnectTimer !== undefined) clearTimeout(reconnectTimer);
    reconnectTimer = undefined;
    const current = socket;
    socket = undefined;
    current?.close(1000, 'client closed');
    failPending('This connection to the console has been closed.');
    for (const request of queued.splice(0)) {
      clearTimeout(request.timer);
      request.reject(disconnectedError('This connection to the console has been closed.'));
    }
  }

  // One method per contract channel and nothing else: no generic invoke reaches the UI.
  const methods: Record<string, (input?: unknown) => Promise<unknown>> = {};
  for (const name of channelNames) methods[name] = (input?: unknown) => request(name, input);
  methods.ackRunOutput = acknowledge;

  connect();

  return Object.freeze({
    ...methods,
    subscribe,
    transportState: () => state,
    onTransportState(listener: (state: TransportState) => void) {
      stateListeners.add(listener);
      return () => {
        stateListeners.delete(listener);
      };
    },
    close,
  }) as unknown as WebSocketClient;
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}
