import { describe, expect, it } from 'vitest';
import { decodeBinaryEvent, encodeBinaryEvent, hasBinaryBytes } from './wire';

describe('binary event frames', () => {
  it('carry raw bytes exactly, including multi-byte UTF-8 split at any point', () => {
    const bytes = new TextEncoder().encode('é漢🙂\r\n\x1b[31mred\x1b[0m');
    const frame = encodeBinaryEvent('runOutput', { runId: 'run_1', offset: 42, bytes: bytes.subarray(0, 5) });
    const decoded = decodeBinaryEvent(frame);
    expect(decoded.event).toBe('runOutput');
    expect(decoded.payload).toMatchObject({ runId: 'run_1', offset: 42 });
    expect(Array.from(decoded.payload.bytes as Uint8Array)).toEqual(Array.from(bytes.subarray(0, 5)));
  });

  it('reject frames whose header is cut or is not an event', () => {
    expect(() => decodeBinaryEvent(new Uint8Array([0, 0]))).toThrow();
    const lying = new Uint8Array([0, 0, 1, 0, 1, 2]);
    expect(() => decodeBinaryEvent(lying)).toThrow(/overruns/);
    const header = new TextEncoder().encode(JSON.stringify({ type: 'response' }));
    const frame = new Uint8Array(4 + header.length);
    new DataView(frame.buffer).setUint32(0, header.length);
    frame.set(header, 4);
    expect(() => decodeBinaryEvent(frame)).toThrow(/not an event/);
  });

  it('are used only for payloads that hold bytes', () => {
    expect(hasBinaryBytes({ bytes: new Uint8Array(1) })).toBe(true);
    expect(hasBinaryBytes({ bytes: 'text' })).toBe(false);
    expect(hasBinaryBytes(null)).toBe(false);
  });
});
