import net from 'node:net';
import WebSocket, { type RawData } from 'ws';
import { isEventName, type ChannelInput, type ChannelName, type ChannelOutput, type EventName, type ResponseEnvelope } from '../../shared/contract';
import { OperatorError } from '../../shared/errors';
import {
  contractVersion,
  serviceControlResultSchema,
  serviceHandingOverSchema,
  serviceOfAnotherVersionSchema,
  serviceSecretsResealedSchema,
  serviceSecretsUnlockedSchema,
  serviceWelcomeSchema,
  type ClientHello,
  type ServiceClientKind,
  type ServiceControl,
  type ServiceControlResult,
  type ServiceHandingOver,
  type ServiceOfAnotherVersion,
  type ServiceSecrets,
  type ServiceWelcome,
} from '../../shared/service-hello';
import { decodeBinaryEvent, serverMessageSchema, type ClientAck, type ClientRequest } from '../../shared/wire';

/**
 * A client of the console service over its local socket, in Node: the desktop app's shell binds its IPC
 * to one of these per window (shell/ipc-binding.ts), `npm run serve` holds one while it is attached, and
 * tests drive the service with it. It says hello, then speaks the browser's messages (shared/wire.ts):
 * every answer and event it passes on has been checked against the same schemas the page uses.
 */

export interface ServiceConnection {
  /** What the service said of itself when it accepted this client. */
  readonly welcome: ServiceWelcome;
  /** One request as the transports answer it: the channel's value, or the error shape. */
  request(channel: string, input?: unknown): Promise<ResponseEnvelope>;
  /** A typed request: the value, or an OperatorError thrown with the service's code. */
  call<K extends ChannelName>(channel: K, ...input: undefined extends ChannelInput<K> ? [input?: ChannelInput<K>] : [input: ChannelInput<K>]): Promise<ChannelOutput<K>>;
  /** Acknowledges parsed live output (the ackRunOutput channel's input, as the page sends it). */
  ack(subscriptionId: string, bytes: number): void;
  control(action: ServiceControl['action']): Promise<ServiceControlResult>;
  /**
   * The desktop app hands the service its secrets key (shell/secrets-key.ts); the answer lists the secrets
   * the app sealed before the service existed, still sealed, for resealLegacySecrets.
   */
  unlockSecrets(key: Buffer, options?: { noKeyring?: boolean }): Promise<{ legacy: Array<{ ref: string; ciphertext: string }> }>;
  resealLegacySecrets(secrets: Array<{ ref: string; plain: string }>): Promise<{ resealed: number }>;
  /**
   * Every event the service pushes to this client: broadcasts and this client's own streams. The first
   * listener also gets what came before it listened (the notifications held for the next app, say).
   */
  onEvent(listener: (event: EventName, payload: unknown) => void): () => void;
  /** Called once when the connection is gone, whichever side ended it. */
  onClose(listener: () => void): void;
  readonly isOpen: boolean;
  close(): Promise<void>;
}

/** No service answers on the socket: none runs (no file, or a dead one's file), or it is not ready yet. */
export class ServiceUnreachableError extends Error {
  constructor(
    readonly socketPath: string,
    why: unknown,
  ) {
    super(`No console service answers on ${socketPath}: ${why instanceof Error ? why.message : String(why)}`, { cause: why });
    this.name = 'ServiceUnreachableError';
  }
}

/**
 * The service runs another version (service_version_mismatch): its message names the version and the
 * two ways on; `service` is what it said of itself (absent from a service older than that message).
 */
export class ServiceVersionMismatchError extends OperatorError {
  constructor(
    shape: ConstructorParameters<typeof OperatorError>[0],
    readonly service: ServiceOfAnotherVersion | undefined,
  ) {
    super(shape);
    this.name = 'ServiceVersionMismatchError';
  }
}

export interface ConnectOptions {
  client: ServiceClientKind;
  /** The versions this client says it speaks; its own by default (tests say others). */
  consoleVersion?: string;
  contractVersion?: string;
  /** How long the connection and the hello may take. */
  timeoutMs?: number;
}

const socketOpen = WebSocket.OPEN;
const maxEarlyEvents = 1_000;

export async function connectToService(socketPath: string, options: ConnectOptions): Promise<ServiceConnection> {
  const opened = await openServiceSocket(socketPath, options, undefined);
  if ('handingOver' in opened) throw new Error('the service answered a hello that asked for no handover with a handover');
  return opened;
}

/**
 * "Let those runs finish and switch afterwards": asks the service, when it runs another version, to
 * take no new run and stop by itself once its last run ends. Its answer says which version runs them,
 * and how many. A service of this very version needs no handover: it welcomes the client as usual.
 */
export async function askServiceToHandOver(socketPath: string, options: ConnectOptions): Promise<{ handingOver: ServiceHandingOver } | ServiceConnection> {
  return openServiceSocket(socketPath, options, 'after-runs');
}

async function openServiceSocket(socketPath: string, options: ConnectOptions, handover: 'after-runs' | undefined): Promise<{ handingOver: ServiceHandingOver } | ServiceConnection> {
  const ws = new WebSocket('ws://localhost/ws', {
    createConnection: () => net.connect(socketPath),
    perMessageDeflate: false,
    maxPayload: 64 * 1024 * 1024,
  });
  const timeoutMs = options.timeoutMs ?? 5_000;
  const hello: ClientHello = {
    type: 'hello',
    consoleVersion: options.consoleVersion ?? __APP_VERSION__,
    contractVersion: options.contractVersion ?? contractVersion,
    client: options.client,
    ...(handover ? { handover } : {}),
  };

  let nextId = 1;
  const pending = new Map<number, (envelope: ResponseEnvelope) => void>();
  const eventListeners = new Set<(event: EventName, payload: unknown) => void>();
  /**
   * Events that came before anyone listened (right after the welcome the service may hand over the
   * notifications it held): kept for the first listener, a bounded number. Null once one has listened.
   */
  let early: Array<[EventName, unknown]> | null = [];
  const deliver = (event: EventName, payload: unknown) => {
    if (early) {
      early.push([event, payload]);
      if (early.length > maxEarlyEvents) early.shift();
      return;
    }
    for (const listener of eventListeners) listener(event, payload);
  };
  const closeListeners: Array<() => void> = [];
  let closed = false;
  /** Settles the hello: the welcome, or why there is none. Until then messages are the hello's answer. */
  let greet: { resolve(answer: ServiceWelcome | ServiceHandingOver): void; reject(error: Error): void } | undefined;
  /** What a service of another version said of itself, before its refusal. */
  let otherVersion: ServiceOfAnotherVersion | undefined;

  const gone = (): ResponseEnvelope => ({
    ok: false,
    error: { code: 'disconnected', message: 'The console service went away before it answered. Start the console again; runs it had are stranded and can be resumed.' },
  });

  // One handler from the first message on, so nothing the service sends right after its welcome is missed.
  ws.on('message', (data: RawData, isBinary) => {
    if (greet) {
      const message = parseText(data, isBinary);
      const told = serviceOfAnotherVersionSchema.safeParse(message);
      // Not the answer yet: the refusal follows.
      if (told.success) return void (otherVersion = told.data);
      const answer = greet;
      greet = undefined;
      const accepted = serviceWelcomeSchema.safeParse(message);
      if (accepted.success) return answer.resolve(accepted.data);
      const handingOver = handover ? serviceHandingOverSchema.safeParse(message) : undefined;
      if (handingOver?.success) return answer.resolve(handingOver.data);
      const refused = serverMessageSchema.safeParse(message);
      ws.terminate();
      if (refused.success && refused.data.type === 'error') {
        const error = refused.data.error;
        return answer.reject(error.code === 'service_version_mismatch' ? new ServiceVersionMismatchError(error, otherVersion) : new OperatorError(error));
      }
      return answer.reject(new OperatorError({ code: 'malformed_message', message: 'The console service answered the hello with something this client does not understand.' }));
    }
    if (isBinary) {
      const frame = toBuffer(data);
      let decoded: ReturnType<typeof decodeBinaryEvent>;
      try {
        decoded = decodeBinaryEvent(new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength));
      } catch {
        return;
      }
      if (isEventName(decoded.event)) deliver(decoded.event, decoded.payload);
      return;
    }
    const parsed = serverMessageSchema.safeParse(parseText(data, false));
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.type === 'response') {
      const settle = pending.get(message.id);
      pending.delete(message.id);
      settle?.(message.ok ? { ok: true, value: message.value } : { ok: false, error: message.error });
    } else if (message.type === 'event' && isEventName(message.event)) {
      deliver(message.event, message.payload);
    }
  });
  let opened = false;
  ws.on('open', () => {
    opened = true;
    ws.send(JSON.stringify(hello));
  });
  ws.on('error', (error) => greet?.reject(opened ? error : new ServiceUnreachableError(socketPath, error)));
  ws.on('close', () => {
    closed = true;
    greet?.reject(new ServiceUnreachableError(socketPath, new Error('the socket closed before the hello was answered')));
    for (const settle of pending.values()) settle(gone());
    pending.clear();
    for (const listener of closeListeners.splice(0)) listener();
  });

  const answer = await new Promise<ServiceWelcome | ServiceHandingOver>((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new ServiceUnreachableError(socketPath, new Error(`no answer to hello in ${timeoutMs} ms`)));
    }, timeoutMs);
    greet = {
      resolve: (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      reject: (error) => {
        clearTimeout(timer);
        greet = undefined;
        reject(error);
      },
    };
  });

  if (answer.type === 'handing-over') {
    ws.close(1000, 'client done');
    return { handingOver: answer };
  }
  const welcome = answer;

  const send = (message: ClientRequest | ServiceControl | ServiceSecrets): Promise<ResponseEnvelope> => {
    if (closed || ws.readyState !== socketOpen) return Promise.resolve(gone());
    return new Promise((resolve) => {
      pending.set(message.id, resolve);
      ws.send(JSON.stringify(message));
    });
  };

  const request = (channel: string, input?: unknown) => send({ type: 'request', id: nextId++, channel, ...(input !== undefined ? { input } : {}) });

  return {
    welcome,
    request,
    call: async (channel, ...input) => {
      const envelope = await request(channel, input[0]);
      if (!envelope.ok) throw new OperatorError(envelope.error);
      return envelope.value as never;
    },
    ack: (subscriptionId, bytes) => {
      if (!closed && ws.readyState === socketOpen) ws.send(JSON.stringify({ type: 'ack', subscriptionId, bytes } satisfies ClientAck));
    },
    control: async (action) => {
      const envelope = await send({ type: 'control', id: nextId++, action });
      if (!envelope.ok) throw new OperatorError(envelope.error);
      return serviceControlResultSchema.parse(envelope.value);
    },
    unlockSecrets: async (key, options) => {
      const envelope = await send({ type: 'secrets', id: nextId++, action: 'unlock', key: key.toString('base64'), ...(options?.noKeyring ? { noKeyring: true as const } : {}) });
      if (!envelope.ok) throw new OperatorError(envelope.error);
      return serviceSecretsUnlockedSchema.parse(envelope.value);
    },
    resealLegacySecrets: async (secrets) => {
      const envelope = await send({ type: 'secrets', id: nextId++, action: 'reseal', secrets });
      if (!envelope.ok) throw new OperatorError(envelope.error);
      return serviceSecretsResealedSchema.parse(envelope.value);
    },
    onEvent: (listener) => {
      eventListeners.add(listener);
      if (early) {
        const kept = early;
        early = null;
        for (const [event, payload] of kept) listener(event, payload);
      }
      return () => void eventListeners.delete(listener);
    },
    onClose: (listener) => {
      if (closed) listener();
      else closeListeners.push(listener);
    },
    get isOpen() {
      return !closed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closeListeners.push(resolve);
        ws.close(1000, 'client done');
        setTimeout(() => ws.terminate(), 1_000).unref();
      }),
  };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function parseText(data: RawData, isBinary: boolean): unknown {
  if (isBinary) return undefined;
  try {
    return JSON.parse(toBuffer(data).toString('utf8'));
  } catch {
    return undefined;
  }
}
