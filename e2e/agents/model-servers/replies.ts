import type http from 'node:http';

/** How the protocol modules write their answers: JSON, SSE, a body cut off, and the ids, pieces and dates in them. */

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
