/**
 * A viewer in its own process, as a browser page is: it connects to a console WebSocket, opens runs'
 * output and reads it the way the renderer does (shared/wire.ts framing). "ack" viewers acknowledge
 * what arrives in batches every 16 ms (the renderer's AckBatcher); "stall" viewers never do (a hidden
 * tab). With latency on, lines carrying "T=<ms>;" (ticker-agent.mjs) are timed on arrival.
 *
 * Driven by its parent over IPC: {type:'open'|'close'|'stats', runId, ...}; answers {type, runId, ...}.
 */
import { WebSocket } from 'ws';

/**
 * @typedef {{ type: 'open'; runId: string; mode: 'ack' | 'stall'; latency: boolean }
 *   | { type: 'stats'; runId: string; untilBytes?: number }
 *   | { type: 'close'; runId: string }} Command
 * @typedef {{ type: 'response'; id: number; ok: boolean; value?: any; error?: { message: string } }
 *   | { type: 'event'; event: string; payload: { runId: string; skippedBytes?: number } }
 *   | { type: 'error' }} TextMessage
 * @typedef {{ event: string; payload: { runId: string } }} BinaryHeader
 * @typedef {{ mode: 'ack' | 'stall'; latency: boolean; bytes: number; skipped: number; latencies: number[];
 *   carry: string; pendingAck: number; subscriptionId: string | undefined; ackTimer: NodeJS.Timeout | undefined }} Viewer
 */

const url = process.argv[2];
if (!url || !process.send) throw new Error('usage: fork viewer-client.mjs <ws url> (with an IPC channel)');
const send = process.send.bind(process);
const ws = new WebSocket(url, { perMessageDeflate: false });
/** @type {Map<string, Viewer>} */
const viewers = new Map();
/** @type {Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>} */
const requests = new Map();
let nextId = 1;
const now = () => performance.timeOrigin + performance.now();
const decoder = new TextDecoder();
/** @param {string} text @returns {unknown} */
const parseJson = (text) => JSON.parse(text);

/** @param {string} channel @param {unknown} input @returns {Promise<any>} */
function request(channel, input) {
  const id = nextId++;
  ws.send(JSON.stringify({ type: 'request', id, channel, input }));
  return new Promise((resolve, reject) => requests.set(id, { resolve, reject }));
}

/** @param {Viewer} viewer */
function acknowledge(viewer) {
  viewer.ackTimer = undefined;
  if (viewer.pendingAck === 0 || !viewer.subscriptionId) return;
  const bytes = viewer.pendingAck;
  viewer.pendingAck = 0;
  // An ack message, as the page's client sends it (renderer/api/ws-client.ts): no id, no answer.
  ws.send(JSON.stringify({ type: 'ack', subscriptionId: viewer.subscriptionId, bytes }));
}

/** @param {Viewer} viewer @param {Uint8Array} bytes */
function received(viewer, bytes) {
  const at = now();
  viewer.bytes += bytes.byteLength;
  if (viewer.latency) {
    const text = viewer.carry + decoder.decode(bytes);
    const pattern = /T=(\d+\.\d+);/g;
    let end = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      viewer.latencies.push(at - Number(match[1]));
      end = pattern.lastIndex;
    }
    viewer.carry = text.slice(Math.max(end, text.length - 40));
  }
  if (viewer.mode === 'ack') {
    viewer.pendingAck += bytes.byteLength;
    viewer.ackTimer ??= setTimeout(() => acknowledge(viewer), 16);
  }
}

ws.on('message', (/** @type {Buffer} */ data, isBinary) => {
  if (isBinary) {
    const headerLength = data.readUInt32BE(0);
    const header = /** @type {BinaryHeader} */ (parseJson(data.subarray(4, 4 + headerLength).toString('utf8')));
    const viewer = viewers.get(header.payload.runId);
    if (viewer && header.event === 'runOutput') received(viewer, data.subarray(4 + headerLength));
    return;
  }
  const message = /** @type {TextMessage} */ (parseJson(data.toString('utf8')));
  if (message.type === 'response') {
    const pending = requests.get(message.id);
    requests.delete(message.id);
    if (message.ok) pending?.resolve(message.value);
    else pending?.reject(new Error(message.error?.message ?? 'refused'));
  } else if (message.type === 'event' && message.event === 'runOutputSkipped') {
    const viewer = viewers.get(message.payload.runId);
    if (viewer) viewer.skipped += message.payload.skippedBytes ?? 0;
  }
});

process.on('message', (/** @type {Command} */ command) => {
  if (command.type === 'open') {
    /** @type {Viewer} */
    const viewer = { mode: command.mode, latency: command.latency, bytes: 0, skipped: 0, latencies: [], carry: '', pendingAck: 0, subscriptionId: undefined, ackTimer: undefined };
    viewers.set(command.runId, viewer);
    request('openRunOutput', { runId: command.runId, from: 'start' }).then(
      (/** @type {{ subscriptionId: string }} */ opened) => {
        viewer.subscriptionId = opened.subscriptionId;
        send({ type: 'opened', runId: command.runId });
      },
      (error) => send({ type: 'opened', runId: command.runId, error: String(error) }),
    );
  } else if (command.type === 'stats') {
    const viewer = viewers.get(command.runId);
    const until = command.untilBytes ?? 0;
    const deadline = Date.now() + 5000;
    // What was still on its way at the run's end (in flight, or a skip and tail the host owed) arrives first.
    const answer = () => {
      if (viewer && viewer.bytes + viewer.skipped < until && Date.now() < deadline) {
        setTimeout(answer, 10);
        return;
      }
      send({ type: 'stats', runId: command.runId, bytes: viewer?.bytes ?? 0, skipped: viewer?.skipped ?? 0, latencies: viewer?.latencies ?? [] });
    };
    answer();
  } else {
    const viewer = viewers.get(command.runId);
    viewers.delete(command.runId);
    if (viewer?.subscriptionId) void request('closeRunOutput', { subscriptionId: viewer.subscriptionId }).catch(() => {});
    send({ type: 'closed', runId: command.runId });
  }
});

ws.on('open', () => send({ type: 'ready' }));
ws.on('error', (error) => {
  console.error(`viewer client: ${error.message}`);
  process.exit(1);
});
process.on('disconnect', () => process.exit(0));
