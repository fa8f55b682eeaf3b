import { z } from 'zod';
import { operatorErrorSchema } from './errors';

/**
 * The browser host's WebSocket framing. Text frames carry JSON messages; binary frames carry events
 * whose payload holds raw bytes (live terminal output), so bytes never travel as JSON strings:
 *
 *   [u32 big-endian header length][header: UTF-8 JSON][bytes]
 *
 * The header is an event message whose payload lacks its `bytes` field; the decoder puts it back. The
 * host sends the head (length and header) and the bytes as two fragments of one message, so a batch
 * of output is never copied into a frame; the page receives one message either way.
 *
 * The page acknowledges parsed output with an ack message: a text frame of its own, not a request,
 * so it has no id and gets no answer (the host refuses a bad one with an error message).
 */

export const clientRequestSchema = z.strictObject({
  type: z.literal('request'),
  id: z.number().int().nonnegative(),
  channel: z.string().max(200),
  input: z.unknown().optional(),
});
export type ClientRequest = z.infer<typeof clientRequestSchema>;

/** The page has parsed `bytes` more of a live output subscription (the ackRunOutput channel's input). */
export const clientAckSchema = z.strictObject({
  type: z.literal('ack'),
  subscriptionId: z.string().max(100),
  bytes: z.number().int().min(0),
});
export type ClientAck = z.infer<typeof clientAckSchema>;

// A plain union: zod 4's discriminatedUnion refuses two members with the same discriminator value,
// and a response is two members (ok: true / ok: false) that share type: 'response'.
export const serverMessageSchema = z.union([
  z.object({ type: z.literal('response'), id: z.number(), ok: z.literal(true), value: z.unknown() }),
  z.object({ type: z.literal('response'), id: z.number(), ok: z.literal(false), error: operatorErrorSchema }),
  z.object({ type: z.literal('event'), event: z.string(), payload: z.unknown() }),
  // A message the host could not tie to a request (bad JSON, no id): answered, never ignored.
  z.object({ type: z.literal('error'), error: operatorErrorSchema }),
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** A binary event as its two parts: the head (length and header) and the payload's bytes, uncopied. */
export function encodeBinaryEventParts(event: string, payload: Record<string, unknown> & { bytes: Uint8Array }): [head: Uint8Array, bytes: Uint8Array] {
  const { bytes, ...rest } = payload;
  const header = textEncoder.encode(JSON.stringify({ type: 'event', event, payload: rest }));
  const head = new Uint8Array(4 + header.byteLength);
  new DataView(head.buffer).setUint32(0, header.byteLength, false);
  head.set(header, 4);
  return [head, bytes];
}

/** A binary event as one frame, the parts joined: what the page receives (tests that play the host send it). */
export function encodeBinaryEvent(event: string, payload: Record<string, unknown> & { bytes: Uint8Array }): Uint8Array {
  const [head, bytes] = encodeBinaryEventParts(event, payload);
  const frame = new Uint8Array(head.byteLength + bytes.byteLength);
  frame.set(head, 0);
  frame.set(bytes, head.byteLength);
  return frame;
}

export function decodeBinaryEvent(frame: Uint8Array): { event: string; payload: Record<string, unknown> } {
  if (frame.byteLength < 4) throw new Error('binary frame shorter than its header length');
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const headerLength = view.getUint32(0, false);
  if (4 + headerLength > frame.byteLength) throw new Error('binary frame header overruns the frame');
  const header = JSON.parse(textDecoder.decode(frame.subarray(4, 4 + headerLength))) as {
    type?: unknown;
    event?: unknown;
    payload?: unknown;
  };
  if (header.type !== 'event' || typeof header.event !== 'string' || typeof header.payload !== 'object' || header.payload === null) {
    throw new Error('binary frame header is not an event');
  }
  // A view, not a copy: the frame is the bytes plus a small header, and nothing writes to either.
  const bytes = frame.subarray(4 + headerLength);
  return { event: header.event, payload: { ...(header.payload as Record<string, unknown>), bytes } };
}

/** True for payloads that go as binary frames: any event payload with a `bytes` Uint8Array. */
export function hasBinaryBytes(payload: unknown): payload is Record<string, unknown> & { bytes: Uint8Array } {
  return typeof payload === 'object' && payload !== null && (payload as { bytes?: unknown }).bytes instanceof Uint8Array;
}
