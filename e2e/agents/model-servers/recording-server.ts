import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/**
 * The part every scripted model server shares: an HTTP server on 127.0.0.1 (port 0, so tests never
 * collide), a record of every request (method, path, query, headers, parsed JSON body), a failure
 * plan, and the scripted conversation's decisions. Each wire protocol (openai-responses.ts,
 * openai-chat.ts, anthropic-messages.ts, gemini.ts) supplies only its routes and its stream format.
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

export interface ScriptOptions {
  /** The file the model asks the CLI to create, relative to the CLI's working directory. */
  fileName: string;
  fileContent: string;
  /** Text the model says before its tool call. */
  leadText: string;
  /** The final answer after the tool result came back. */
  finalText: string;
  /** Answer to side requests (no tools offered: titles, summaries, checks). */
  sideText: string;
  /**
   * The model repeats the credential the request carried in its text before the tool call, as a
   * model that was shown the key (an `env` dump, a config file) might: the CLI then prints the key,
   * and whoever shows that output must cut it.
   */
  echoCredential: boolean;
}

export const defaultScript: ScriptOptions = {
  fileName: 'hello.txt',
  fileContent: 'hello from the scripted model\n',
  leadText: 'I will create the file now.',
  finalText: 'Done: the file is written.',
  sideText: 'ok',
  echoCredential: false,
};

/** The credential a request carried: a bearer token, `x-api-key`, `x-goog-api-key`, or Google's `?key=`. */
export function credentialOf(headers: http.IncomingHttpHeaders, query: Record<string, string>): string | null {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const bearer = header('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1];
  return bearer ?? header('x-api-key') ?? header('x-goog-api-key') ?? query.key ?? null;
}

/**
 * A prompt chooses the file with "create the file <name>" (the last such phrase in the latest user
 * message wins), so a resumed second turn can ask for a different file than the first.
 */
export function fileNameFromPrompt(text: string, fallback: string): string {
  const matches = [...text.matchAll(/\bcreate the file ([A-Za-z0-9_][A-Za-z0-9_.-]*[A-Za-z0-9_])/gi)];
  return matches.at(-1)?.[1] ?? fallback;
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
}

export type RequestOutcome =
  | { type: 'tool_call'; tool: string; fileName: string }
  | { type: 'final' }
  | { type: 'side' }
  | { type: 'failure'; mode: FailureMode; status: number | null }
  | { type: 'other'; status: number }
  | { type: 'pending' };

/** The script's verdict for one model request. */
export type TurnDecision =
  | { type: 'tool_call'; fileName: string }
  | { type: 'final' }
  | { type: 'side' };

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
  const sockets = new Set<import('node:net').Socket>();
  let seq = 0;
  const listeners = new Set<(request: RecordedRequest) => void>();

  const state = {
    script: { ...defaultScript, ...options.script } as ScriptOptions,
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

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text).toString(), ...headers });
  res.end(text);
}

/**
 * A dropped non-streaming answer: the status and headers promise the whole JSON body, half of it is
 * sent, then the socket is destroyed.
 */
export function sendTruncatedJson(res: http.ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text).toString(), ...headers });
  res.write(text.slice(0, Math.floor(text.length / 2)));
  setTimeout(() => res.socket?.destroy(), 50);
}

/** Starts an SSE response. `write` sends one event (named when `event` is given), `end` finishes it. */
export function sseStream(res: http.ServerResponse, headers: Record<string, string> = {}) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  res.flushHeaders();
  return {
    write(data: unknown, event?: string) {
      res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    },
    end() {
      res.end();
    },
    /** Cut the connection mid-stream, as a network drop or a crashed upstream would. */
    drop() {
      // Give the written events a moment to reach the client, then destroy the socket without a
      // terminating chunk: the client sees a truncated chunked body.
      setTimeout(() => res.socket?.destroy(), 50);
    },
  };
}

/** Seconds → the date a reset hint names. */
export function resetDate(seconds: number): Date {
  return new Date(Date.now() + seconds * 1000);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A short id in the provider's style (`prefix` + 24 hex characters). */
export function makeId(prefix: string): string {
  let hex = '';
  for (let index = 0; index < 24; index += 1) hex += Math.floor(Math.random() * 16).toString(16);
  return `${prefix}${hex}`;
}

/** Splits text into a few pieces so clients see real incremental deltas. */
export function pieces(text: string, count = 3): string[] {
  if (text.length <= count) return [text];
  const size = Math.ceil(text.length / count);
  const parts: string[] = [];
  for (let index = 0; index < text.length; index += size) parts.push(text.slice(index, index + size));
  return parts;
}

/** What the script needs to know about one conversation request, read by the protocol module. */
export interface ConversationView {
  /** Names of the tools the client offered. */
  toolNames: string[];
  /** The last item of the conversation: a user message, a tool result, or something else. */
  last: 'user' | 'tool_result' | 'other';
  /** The text of the latest user message (all its text parts). */
  latestUserText: string;
}

/**
 * The scripted conversation, the same for every protocol:
 *   no file-writing tool offered          → a side answer (titles, summaries, checks)
 *   the last item is a user message       → a short text and one tool call that creates the file
 *   otherwise (a tool result, ...)        → the final answer
 * So a run is: prompt → text + tool call → tool result → final answer. A resumed turn (a new user
 * message after the first turn's history) asks for a tool call again, for the file its prompt names.
 */
export function decideTurn(view: ConversationView, fileTool: string | null, script: ScriptOptions): TurnDecision {
  if (fileTool === null) return { type: 'side' };
  // Only a fresh user message gets a tool call, so no client can be led into a loop.
  if (view.last !== 'user') return { type: 'final' };
  return { type: 'tool_call', fileName: fileNameFromPrompt(view.latestUserText, script.fileName) };
}

/** The first of `preferred` that the client offered. */
export function pickTool(toolNames: readonly string[], preferred: readonly string[]): string | null {
  return preferred.find((name) => toolNames.includes(name)) ?? null;
}

/** The conversation a request carries, flattened (for asserting that a resumed turn sent its history). */
export interface ConversationHistory {
  userTexts: string[];
  assistantTexts: string[];
  /** Tool results the client sent back, as text. */
  toolResults: string[];
}

export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (isObject(value)) {
    if (typeof value.text === 'string') return value.text;
    if ('output' in value) return textOf(value.output);
    if ('content' in value) return textOf(value.content);
    return JSON.stringify(value);
  }
  return value === undefined || value === null ? '' : String(value);
}
