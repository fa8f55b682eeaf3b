import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import type { ReportedUsage } from './reported-usage';
import { sendJson } from './replies';
import { defaultScript, type ScriptOptions } from './scripted-conversation';

/**
 * The part every scripted model server shares: an HTTP server on 127.0.0.1 (port 0, so tests never
 * collide), a record of every request (method, path, query, headers, parsed JSON body), a failure
 * plan, and the script (scripted-conversation.ts) the protocol answers from. Each wire protocol
 * (openai-responses.ts, openai-chat.ts, anthropic-messages.ts, gemini.ts) supplies only its routes and
 * its stream format, written with replies.ts.
 */

export type WireProtocol = 'openai-responses' | 'openai-chat' | 'anthropic-messages' | 'gemini';

/**
 * `unauthorized`: HTTP 401 with the provider's error body. `invalid_api_key`: what the provider really
 * answers for a wrong key where that is not a 401 (Gemini: HTTP 400 API_KEY_INVALID; elsewhere the same
 * as `unauthorized`). `rate_limited`: HTTP 429 with the provider's body and reset hints (Retry-After and
 * the provider's own headers/fields). `drop_stream`: HTTP 200, a few SSE events, then the socket is
 * destroyed mid-stream.
 */
export type FailureMode = 'unauthorized' | 'invalid_api_key' | 'rate_limited' | 'drop_stream';

export interface FailurePlan {
  mode: FailureMode;
  /** How many model requests fail before the script answers normally again. Default: all of them. */
  count?: number;
  /** The reset the 429 announces, in seconds from now (Retry-After and the body's hint). Default 30. */
  retryAfterSeconds?: number;
}

/** The credential a request carried: a bearer token, `x-api-key`, `x-goog-api-key`, or Google's `?key=`. */
export function credentialOf(headers: http.IncomingHttpHeaders, query: Record<string, string>): string | null {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const bearer = header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
  return bearer ?? header('x-api-key') ?? header('x-goog-api-key') ?? query.key ?? null;
}

export interface RecordedRequest {
  seq: number;
  at: string;
  method: string;
  /** Path and query as sent. */
  url: string;
  /** Path without the query. */
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The parsed JSON body, or null when the body was empty or not JSON. */
  body: unknown;
  /** `model`: a conversation request the script answered (or failed); `other`: probes, lists, counts. */
  kind: 'model' | 'other';
  /** What the server did with it. */
  outcome: RequestOutcome;
  /**
   * The usage the answer reported, normalized (reported-usage.ts); null when no complete answer
   * carried one (a failure, a dropped stream, a request that is not a model call).
   */
  usage: ReportedUsage | null;
}

export type RequestOutcome =
  | { type: 'tool_call'; tool: string; fileName: string }
  | { type: 'final' }
  | { type: 'side' }
  | { type: 'failure'; mode: FailureMode; status: number | null }
  | { type: 'other'; status: number }
  | { type: 'pending' };

export interface ModelServer {
  readonly protocol: WireProtocol;
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** What an AI connection's base URL is for this protocol (OpenAI: origin + /v1; Anthropic, Gemini: origin). */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** The conversation requests only (what the script answered or failed). */
  modelRequests(): RecordedRequest[];
  script: ScriptOptions;
  setFailure(plan: FailurePlan | null): void;
  /** Answer 401 to every request that does not carry this key (null: any key, as by default). */
  requireKey(key: string | null): void;
  /** Forget recorded requests (the failure plan and script stay). */
  clearRequests(): void;
  /**
   * Calls `listener` as each request arrives, before it is answered (the CLI that sent it is still
   * running): tests look at the CLI's surroundings at that moment. Returns the unsubscribe function.
   */
  onRequest(listener: (request: RecordedRequest) => void): () => void;
  close(): Promise<void>;
}

export interface ProtocolContext {
  script: ScriptOptions;
  /** Consumes one failure from the plan, if the plan still has one for this model request. */
  takeFailure(): (FailurePlan & { retryAfterSeconds: number }) | null;
  record: RecordedRequest;
}

/** A protocol answers a request, or returns false to let the base answer 404. */
export type ProtocolHandler = (req: http.IncomingMessage, res: http.ServerResponse, ctx: ProtocolContext) => boolean | Promise<boolean>;

export interface StartOptions {
  protocol: WireProtocol;
  baseUrlPath: string;
  handler: ProtocolHandler;
  script?: Partial<ScriptOptions> | undefined;
  failure?: FailurePlan | null | undefined;
}

export async function startRecordingServer(options: StartOptions): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  let failure: FailurePlan | null = options.failure ?? null;
  let failuresUsed = 0;
  let requiredKey: string | null = null;
  const sockets = new Set<import('node:net').Socket>();
  let seq = 0;
  const listeners = new Set<(request: RecordedRequest) => void>();

  const state = {
    script: { ...defaultScript, ...options.script },
  };

  const takeFailure: ProtocolContext['takeFailure'] = () => {
    if (!failure) return null;
    if (failure.count !== undefined && failuresUsed >= failure.count) return null;
    failuresUsed += 1;
    return { ...failure, retryAfterSeconds: failure.retryAfterSeconds ?? 30 };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const rawBody = decodeBody(Buffer.concat(chunks), req.headers['content-encoding']);
        const record: RecordedRequest = {
          seq: seq++,
          at: new Date().toISOString(),
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          rawBody,
          body: parseJson(rawBody),
          kind: 'other',
          outcome: { type: 'pending' },
          usage: null,
        };
        requests.push(record);
        for (const listener of listeners) {
          try {
            listener(record);
          } catch {
            // An observer's failure is the test's business, not the server's.
          }
        }
        try {
          if (requiredKey !== null && credentialOf(req.headers, record.query) !== requiredKey) {
            record.outcome = { type: 'other', status: 401 };
            sendJson(res, 401, { error: { message: 'This scripted server answers only the key it was told to require.', type: 'invalid_request_error', code: 'invalid_api_key' } });
            return;
          }
          const credential = state.script.echoCredential ? credentialOf(req.headers, record.query) : null;
          const script = credential ? { ...state.script, leadText: `${state.script.leadText} (The key I was sent: ${credential})` } : state.script;
          const handled = await options.handler(req, res, { script, takeFailure, record });
          if (!handled) {
            record.outcome = { type: 'other', status: 404 };
            sendJson(res, 404, { error: { message: `No route for ${record.method} ${record.path} on this scripted ${options.protocol} server.` } });
          }
        } catch (error) {
          record.outcome = { type: 'other', status: 500 };
          if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted server error: ${(error as Error).message}` } });
          else res.destroy();
        }
      })();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Idle keep-alive sockets stay open well past any pause of the CLI's (a tool call on a loaded
  // machine can take seconds): a server that closes one just as the CLI reuses it fails the CLI's
  // next request ("fetch failed"), which is the server's fault, not the CLI's. close() destroys them.
  server.keepAliveTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    protocol: options.protocol,
    origin,
    baseUrl: `${origin}${options.baseUrlPath}`,
    requests,
    modelRequests: () => requests.filter((request) => request.kind === 'model'),
    get script() {
      return state.script;
    },
    set script(value: ScriptOptions) {
      state.script = value;
    },
    setFailure(plan) {
      failure = plan;
      failuresUsed = 0;
    },
    requireKey(key) {
      requiredKey = key;
    },
    clearRequests() {
      requests.length = 0;
    },
    onRequest(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function decodeBody(buffer: Buffer, encoding: string | string[] | undefined): string {
  const name = (Array.isArray(encoding) ? encoding[0] : encoding)?.trim().toLowerCase();
  try {
    if (name === 'gzip') return zlib.gunzipSync(buffer).toString('utf8');
    if (name === 'deflate') return zlib.inflateSync(buffer).toString('utf8');
    if (name === 'br') return zlib.brotliDecompressSync(buffer).toString('utf8');
    const zstd = (zlib as unknown as { zstdDecompressSync?: (input: Buffer) => Buffer }).zstdDecompressSync;
    if (name === 'zstd' && zstd) return zstd(buffer).toString('utf8');
  } catch {
    // Fall through: record the bytes as they came.
  }
  return buffer.toString('utf8');
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
