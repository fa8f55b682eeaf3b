import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { EventPayload } from '../../shared/contract';
import { decodeBinaryEvent, type ServerMessage } from '../../shared/wire';
import { createWebSocketClient, type SocketConstructor } from '../../renderer/api/ws-client';
import { openRunTestBed, type RunTestBed } from '../testing/run-test-kit';
import { makeTempDir } from '../testing/temp-dir';
import { startHostServer, type HostServer } from './host-server';
import { defaultWindowBytes } from '../pty/output-fanout';

/**
 * A run's live output over the browser host, as the page gets it: bytes in binary messages (sent by
 * the host in two fragments, never copied into a frame), acknowledged with small ack messages that
 * get no answer. Real core, real run, real ledger, the renderer's own WebSocket client.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const mib = 1024 * 1024;
const ended = (run: { status: string }) => ['succeeded', 'failed', 'cancelled', 'refused', 'stranded'].includes(run.status);

/** A finished run with `bytes` of output, served by a browser host. */
async function hostWithFinishedRun(bytes: number): Promise<{ bed: RunTestBed; server: HostServer; runId: string; totalBytes: number }> {
  const bed = await openRunTestBed();
  const statics = makeTempDir('oc-hos-static-');
  writeFileSync(path.join(statics.path, 'index.html'), '<!doctype html><title>test</title>');
  const server = await startHostServer({ core: bed.core, staticDir: statics.path, port: 0, log: bed.log });
  cleanups.push(() => bed.close(), statics.remove, () => server.close());
  const agent = await bed.createAgent(['--flood-bytes', String(bytes)]);
  const task = await bed.createTask();
  const started = await bed.call('startRun', { taskId: task.id, agentId: agent.id });
  const run = await bed.waitForRun(started.id, ended, 30_000);
  expect(run.status).toBe('succeeded');
  return { bed, server, runId: started.id, totalBytes: bed.core.ledger.output.totalBytes(started.id) };
}

function pageSocketClass(server: HostServer): SocketConstructor {
  class PageSocket extends WebSocket {
    constructor(url: string) {
      super(url, { origin: server.origin });
    }
  }
  return PageSocket as unknown as SocketConstructor;
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('live output over the browser host', () => {
  it('replays a whole run to the page client byte for byte as it acknowledges, and waits while it does not', async () => {
    const { bed, server, runId, totalBytes } = await hostWithFinishedRun(6 * mib);
    expect(totalBytes).toBeGreaterThan(6 * mib);
    const client = createWebSocketClient({ url: `ws://127.0.0.1:${server.port}/ws?token=${server.token}`, WebSocketImpl: pageSocketClass(server) });
    cleanups.push(() => client.close());
    const parts: Uint8Array[] = [];
    let received = 0;
    let acking = false;
    let next = 0;
    const offsetsInOrder: boolean[] = [];
    client.subscribe('runOutput', (payload: EventPayload<'runOutput'>) => {
      offsetsInOrder.push(payload.offset === next);
      next = payload.offset + payload.bytes.length;
      parts.push(payload.bytes);
      received += payload.bytes.length;
      if (acking) void client.ackRunOutput({ subscriptionId: payload.subscriptionId, bytes: payload.bytes.length });
    });
    const opened = await client.openRunOutput({ runId, from: 'start' });
    expect(opened.totalBytes).toBe(totalBytes);
    // Not acknowledging: the host sends one window's worth of the replay and then waits.
    await until(() => received >= defaultWindowBytes, 'the first window');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toBe(defaultWindowBytes);
    // Acknowledging what it has, and from then on everything as it comes: the rest arrives.
    acking = true;
    await client.ackRunOutput({ subscriptionId: opened.subscriptionId, bytes: received });
    await until(() => received >= totalBytes, 'the whole output');
    expect(offsetsInOrder.every(Boolean)).toBe(true);
    expect(Buffer.concat(parts).equals(Buffer.from(bed.core.ledger.output.read(runId, 0, totalBytes).bytes))).toBe(true);
  });

  it('answers no ack, refuses a malformed one with its code and keeps serving, and ignores an ack for another stream', async () => {
    const { bed, server, runId } = await hostWithFinishedRun(3 * mib);
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`, { origin: server.origin });
    cleanups.push(() => ws.terminate());
    const texts: ServerMessage[] = [];
    let outputBytes = 0;
    let binaryMessages = 0;
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) {
        const message = JSON.parse(data.toString()) as ServerMessage;
        // Broadcasts (the finished run's runsChanged may come late) are not answers to anything sent here.
        if (message.type !== 'event') texts.push(message);
        return;
      }
      // One whole message per batch, whatever fragments it travelled in.
      const { event, payload } = decodeBinaryEvent(new Uint8Array(data));
      expect(event).toBe('runOutput');
      binaryMessages += 1;
      outputBytes += (payload.bytes as Uint8Array).length;
    });
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'request', id: 1, channel: 'openRunOutput', input: { runId, from: 'start' } }));
    await until(() => texts.some((message) => message.type === 'response' && message.id === 1), 'the stream to open');
    const opened = texts.find((message) => message.type === 'response' && message.id === 1);
    const subscriptionId = (opened as { value: { subscriptionId: string } }).value.subscriptionId;
    await until(() => outputBytes === defaultWindowBytes, 'the first window');
    const textsBefore = texts.length;

    // Someone else's (or a made-up) subscription: nothing moves, nothing is said.
    ws.send(JSON.stringify({ type: 'ack', subscriptionId: 'not-a-stream', bytes: defaultWindowBytes }));
    // Malformed: refused with a stable code, not a crash and not a request error tied to an id.
    ws.send(JSON.stringify({ type: 'ack', subscriptionId, bytes: -5 }));
    ws.send(JSON.stringify({ type: 'ack', subscriptionId, bytes: 1, extra: true }));
    await until(() => texts.length >= textsBefore + 2, 'two refusals');
    expect(texts.slice(textsBefore)).toEqual([
      { type: 'error', error: expect.objectContaining({ code: 'malformed_message' }) },
      { type: 'error', error: expect.objectContaining({ code: 'malformed_message' }) },
    ]);
    expect(outputBytes).toBe(defaultWindowBytes);

    // Its own stream: the window frees and the rest comes, with no answer to any ack.
    const total = bed.core.ledger.output.totalBytes(runId);
    for (let acked = 0; acked < total; ) {
      const bytes = outputBytes - acked;
      if (bytes > 0) {
        ws.send(JSON.stringify({ type: 'ack', subscriptionId, bytes }));
        acked += bytes;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (outputBytes >= total && acked >= total) break;
    }
    await until(() => outputBytes === total, 'the rest of the output');
    expect(binaryMessages).toBeGreaterThan(3);
    expect(texts.slice(textsBefore + 2)).toEqual([]);
    expect(ws.readyState).toBe(WebSocket.OPEN);
  });
});
