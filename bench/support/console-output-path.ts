import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { spawn as spawnPty } from 'node-pty';
import { WebSocketServer } from 'ws';
import { HostSocket } from '../../electron/host/host-socket';
import { createLogger } from '../../electron/platform/log';
import { OutputFanout } from '../../electron/pty/output-fanout';
import { OutputPipeline, type OutputPipelineResult } from '../../electron/pty/output-pipeline';
import { SearchIndexUpkeep } from '../../electron/search/search-index-upkeep';
import { startPtySession } from '../../electron/pty/pty-session';
import { OutputStreams } from '../../electron/runs/output-streams';
import { fixtureEnv, openTestRunLedger } from '../../electron/testing/output-test-kit';
import { makeTempDir } from '../../electron/testing/temp-dir';
import { createRequestDispatcher, type CoreHandlers } from '../../electron/transport/request-dispatcher';

/**
 * The console's live-output path for benchmarks, with real parts end to end: a PTY, the output
 * pipeline, the ledger's writer thread and a real ledger file, the fanout, the browser host's socket
 * code over a loopback WebSocket, and viewers in another process (viewer-client.mjs) that read the
 * frames as the renderer does. Only the page and the auth checks of host-server.ts are left out.
 */

export type ViewerMode = 'none' | 'stall' | 'ack';

export interface CommandLine {
  executable: string;
  args: string[];
}

export interface ViewerStats {
  bytes: number;
  skipped: number;
  latencies: number[];
}

export const agentScript = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

/** The machine a figure was measured on, printed with it. */
export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
}

export interface FloodFile {
  /** `cat` of the file: the flood a run prints. */
  cat: CommandLine;
  /** What the PTY gives for the file: each "\n" becomes "\r\n". */
  expectedBytes: number;
  remove(): void;
}

/** A file of about `mib` MiB of text lines in a folder of its own, for `cat` to flood a PTY with. */
export function writeFloodFile(mib: number): FloodFile {
  const dir = makeTempDir('oc-bench-');
  const file = path.join(dir.path, 'flood.txt');
  const line = 'flood 0123456789 the quick brown fox jumps over the lazy dog abcdefghijabcdefghijabcdefghij\n';
  const lines = Math.ceil((mib * 1024 * 1024) / line.length);
  writeFileSync(file, line.repeat(lines));
  return { cat: { executable: '/bin/cat', args: [file] }, expectedBytes: lines * (line.length + 1), remove: () => dir.remove() };
}

/** Raw node-pty reading the same command, with nothing but a byte counter: the baseline. */
export async function rawPty(command: CommandLine): Promise<{ bytes: number; seconds: number }> {
  const started = performance.now();
  const pty = spawnPty(command.executable, command.args, { name: 'xterm-256color', cols: 120, rows: 40, cwd: process.cwd(), env: fixtureEnv(), encoding: null });
  let bytes = 0;
  pty.onData((chunk) => (bytes += (chunk as unknown as Buffer).length));
  await new Promise<void>((resolve) => pty.onExit(() => resolve()));
  return { bytes, seconds: (performance.now() - started) / 1000 };
}

export interface ConsoleOutputPath {
  /** Starts `command` as a run; with a viewer, the viewer process has it open before the first byte. */
  run(command: CommandLine, viewer: ViewerMode, options?: { latency?: boolean }): Promise<StartedRun>;
  /** The search index's catch-up (electron/search/search-index-upkeep.ts); null when opened without it. */
  searchIndex: SearchIndexUpkeep | null;
  /** Stores `bytes` as a new run's output the way a flood is stored: ahead of the search index. */
  leaveIndexBehind(bytes: Buffer): Promise<void>;
  /** Counts a run as going (as the core counts one it drives) until the returned function is called. */
  holdRunGoing(): () => void;
  close(): Promise<void>;
}

export interface ConsoleOutputPathOptions {
  /**
   * Whether output a flood stored ahead of the search index is indexed in the gaps between writes, as
   * in the core (default). Without it the index is never caught up: a flood meets no indexing at all.
   */
  searchCatchUp?: boolean;
}

export interface StartedRun {
  runId: string;
  started: number;
  /** Every byte is in the ledger (the run is done as the console counts it). */
  finished: Promise<OutputPipelineResult & { seconds: number; pauses: number }>;
  /**
   * What the viewer received; closes the viewer. With `untilBytes`, first waits (up to 5 s) until the
   * viewer has received or been told it skipped that many: at the run's end some may still be on the way.
   */
  viewerStats(untilBytes?: number): Promise<ViewerStats>;
}

export async function openConsoleOutputPath(options: ConsoleOutputPathOptions = {}): Promise<ConsoleOutputPath> {
  const test = openTestRunLedger();
  const log = createLogger({ level: 'error' });
  const fanout = new OutputFanout({ output: test.ledger.output, log });
  // As in the core: output a flood stored ahead of the search index is indexed in the gaps between
  // writes (electron/search/search-index-upkeep.ts), so its cost is in these figures too.
  // Runs going, as the core's run service counts them: the catch-up rests between its steps while any is.
  let runsGoing = 0;
  const searchIndex = options.searchCatchUp === false ? null : new SearchIndexUpkeep(test.ledger, log, () => runsGoing > 0);
  searchIndex?.start();
  const streams = new OutputStreams(fanout, () => true);
  const handlers = {
    openRunOutput: (input, context) => streams.open(input.runId, input.from, context.client),
    ackRunOutput: (input, context) => streams.ack(input.subscriptionId, input.bytes, context.client),
    closeRunOutput: (input, context) => streams.closeFor(input.subscriptionId, context.client),
  } satisfies Partial<CoreHandlers>;
  const dispatch = createRequestDispatcher(handlers as CoreHandlers, log);
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (ws) => new HostSocket(ws, { dispatch }, log));
  const address = wss.address();
  if (address === null || typeof address === 'string') throw new Error('The benchmark’s WebSocket server has no TCP port.');
  const client = await startViewerProcess(`ws://127.0.0.1:${address.port}/`);

  return {
    searchIndex,
    async leaveIndexBehind(bytes) {
      const { runId, attemptId } = test.createRun();
      const slice = 1024 * 1024;
      for (let at = 0; at < bytes.length; at += slice) {
        const chunk = { runId, attemptId, byteOffset: at, bytes: bytes.subarray(at, at + slice), createdAt: Date.now() };
        await test.ledger.outputWriter.appendChunks([chunk], { behind: true });
      }
    },
    holdRunGoing() {
      runsGoing += 1;
      let held = true;
      return () => {
        if (held) runsGoing -= 1;
        held = false;
      };
    },
    async run(command, viewer, options = {}) {
      const { runId, attemptId } = test.createRun();
      runsGoing += 1;
      if (viewer !== 'none') await client.open(runId, viewer, options.latency ?? false);
      const started = performance.now();
      const session = startPtySession({ executable: command.executable, args: command.args, cwd: process.cwd(), env: fixtureEnv(), cols: 120, rows: 40 });
      const pipeline = new OutputPipeline({ runId, attemptId, session, output: test.ledger.output, writer: test.ledger.outputWriter, log });
      fanout.attachLive(pipeline.feed);
      return {
        runId,
        started,
        finished: pipeline.whenFinished().then((result) => {
          runsGoing -= 1;
          return { ...result, seconds: (performance.now() - started) / 1000, pauses: pipeline.stats().pauses };
        }),
        viewerStats: (untilBytes) => (viewer === 'none' ? Promise.resolve({ bytes: 0, skipped: 0, latencies: [] }) : client.statsAndClose(runId, untilBytes ?? 0)),
      };
    },
    async close() {
      client.stop();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await test.ledger.outputWriter.close();
      test.close();
    },
  };
}

interface ViewerProcess {
  open(runId: string, mode: 'stall' | 'ack', latency: boolean): Promise<void>;
  statsAndClose(runId: string, untilBytes: number): Promise<ViewerStats>;
  stop(): void;
}

async function startViewerProcess(url: string): Promise<ViewerProcess> {
  const child: ChildProcess = fork(agentScript('viewer-client.mjs'), [url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiters = new Map<string, (message: { type: string; runId?: string; error?: string }) => void>();
  child.on('message', (message: { type: string; runId?: string }) => {
    const key = `${message.type}:${message.runId ?? ''}`;
    waiters.get(key)?.(message);
    waiters.delete(key);
  });
  const reply = (type: string, runId = '') =>
    new Promise<{ type: string; runId?: string; error?: string }>((resolve) => waiters.set(`${type}:${runId}`, resolve));
  await reply('ready');
  return {
    async open(runId, mode, latency) {
      const opened = reply('opened', runId);
      child.send({ type: 'open', runId, mode, latency });
      const answer = await opened;
      if (answer.error) throw new Error(answer.error);
    },
    async statsAndClose(runId, untilBytes) {
      const stats = reply('stats', runId);
      child.send({ type: 'stats', runId, untilBytes });
      const answer = (await stats) as unknown as ViewerStats;
      const closed = reply('closed', runId);
      child.send({ type: 'close', runId });
      await closed;
      return answer;
    },
    stop: () => child.kill(),
  };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);
