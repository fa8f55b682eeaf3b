import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from './ledger';
import { openTestRunLedger, type TestRunLedger } from '../testing/output-test-kit';
import { makeTempDir } from '../testing/temp-dir';
import type { OutputChunk } from './output-repository';
import { outputWriterWorkerEntry } from './output-writer';

const ledgers: TestRunLedger[] = [];
afterEach(() => ledgers.splice(0).forEach((ledger) => ledger.close()));

function setup() {
  const test = openTestRunLedger();
  ledgers.push(test);
  return { test, writer: test.ledger.outputWriter, ...test.createRun() };
}

function chunk(runId: string, attemptId: string | null, byteOffset: number, size: number): OutputChunk {
  return { runId, attemptId, byteOffset, bytes: Buffer.from(Array.from({ length: size }, (_, k) => ((byteOffset + k) * 7) % 256)), createdAt: 1000 + byteOffset };
}

describe("the ledger's output writer (a worker thread)", () => {
  it('commits appends on its own connection, visible to the main one, and leaves the chunks it was given intact', async () => {
    const { test, writer, runId, attemptId } = setup();
    const chunks = [chunk(runId, attemptId, 0, 5000), chunk(runId, attemptId, 5000, 300), chunk(runId, attemptId, 5300, 70_000)];
    const copies = chunks.map((each) => Buffer.from(each.bytes));

    await writer.appendChunks(chunks);

    // Viewers keep reading the queue's chunks until the commit is confirmed: none was detached.
    chunks.forEach((each, k) => expect(Buffer.from(each.bytes).equals(copies[k]!)).toBe(true));
    expect(test.ledger.output.totalBytes(runId)).toBe(75_300);
    expect(Buffer.from(test.ledger.output.read(runId, 0, 75_300).bytes).equals(Buffer.concat(copies))).toBe(true);
    const rows = test.ledger.db.prepare('SELECT byte_offset, attempt_id, created_at FROM output_chunks WHERE run_id = ? ORDER BY byte_offset').all(runId);
    expect(rows).toEqual([
      { byte_offset: 0, attempt_id: attemptId, created_at: 1000 },
      { byte_offset: 5000, attempt_id: attemptId, created_at: 6000 },
      { byte_offset: 5300, attempt_id: attemptId, created_at: 6300 },
    ]);
  });

  it.runIf(process.platform === 'linux')('runs a little below the thread that reads the PTYs, so a busy machine serves the agent first', async () => {
    // Every thread of this process by id, with its nice value (field 19 of /proc/<pid>/task/<tid>/stat).
    const niceness = () =>
      new Map(
        readdirSync('/proc/self/task').map((tid) => {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
          return [tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])] as const;
        }),
      );
    const before = niceness();
    const { writer, runId, attemptId } = setup();
    await writer.appendChunks([chunk(runId, attemptId, 0, 100)]);
    const own = Number(readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')[16]);
    // The thread the writer started (an earlier test's writer may still be exiting: ids tell them apart).
    const started = [...niceness()].filter(([tid]) => !before.has(tid));
    expect(started.filter(([, nice]) => nice === own + 5)).toHaveLength(1);
    expect(started.filter(([, nice]) => nice !== own)).toHaveLength(1);
  });

  it('fails an append the ledger refuses, and the next one goes through', async () => {
    const { test, writer, runId, attemptId } = setup();
    await writer.appendChunks([chunk(runId, attemptId, 0, 10)]);
    // The same offset again breaks the (run_id, byte_offset) key: the whole transaction is refused.
    await expect(writer.appendChunks([chunk(runId, attemptId, 10, 10), chunk(runId, attemptId, 0, 10)])).rejects.toThrow(/UNIQUE/);
    expect(test.ledger.output.totalBytes(runId)).toBe(10);
    await writer.appendChunks([chunk(runId, attemptId, 10, 10)]);
    expect(test.ledger.output.totalBytes(runId)).toBe(20);
  });

  it('drains on close: every append handed over is committed, later ones are refused with a stable code', async () => {
    const { test, writer, runId, attemptId } = setup();
    const appends = Array.from({ length: 40 }, (_, k) => writer.appendChunks([chunk(runId, attemptId, k * 10_000, 10_000)]));

    await writer.close();

    await Promise.all(appends);
    // Read through a fresh connection: the bytes are in the file, not only somewhere in a thread.
    const reopened = openLedger(test.dir);
    try {
      expect(reopened.output.totalBytes(runId)).toBe(400_000);
    } finally {
      reopened.close();
    }
    await expect(writer.appendChunks([chunk(runId, attemptId, 400_000, 1)])).rejects.toMatchObject({ code: 'LEDGER_WRITER_CLOSED' });
  });
});

describe("the ledger's WAL checkpoints", () => {
  it('happen on the writer’s thread: the main connection never checkpoints, and a flood’s WAL stays small', async () => {
    const { test, writer, runId, attemptId } = setup();
    expect(test.ledger.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const mib = 1024 * 1024;
    for (let offset = 0; offset < 48 * mib; offset += mib) await writer.appendChunks([chunk(runId, attemptId, offset, mib)]);
    // Without checkpoints the WAL would hold all 48 MiB; the writer's connection copies it into the
    // database every 1000 pages or so, so the WAL file is reused from its start again and again.
    expect(statSync(`${test.ledger.file}-wal`).size).toBeLessThan(12 * mib);
    expect(test.ledger.output.totalBytes(runId)).toBe(48 * mib);
  });

  it('of what the main connection wrote are made by the writer when asked, in full while nobody reads', async () => {
    const { test, writer, runId, attemptId } = setup();
    await writer.appendChunks([chunk(runId, attemptId, 0, 10)]);
    for (let k = 0; k < 50; k += 1) test.createRun();
    const result = await writer.checkpoint();
    expect(result.walFrames).toBeGreaterThan(0);
    expect(result.checkpointedFrames).toBe(result.walFrames);
  });
});

describe("finding the output writer's worker", () => {
  it('from the build: its own entry next to main.js, or one level up from a chunk', () => {
    const temp = makeTempDir('oc-worker-entry-');
    try {
      const dist = path.join(temp.path, 'dist', 'electron');
      mkdirSync(path.join(dist, 'chunks'), { recursive: true });
      const worker = path.join(dist, 'output-writer-worker.js');
      writeFileSync(worker, '');
      expect(outputWriterWorkerEntry(pathToFileURL(path.join(dist, 'chunks', 'client-channel-abc123.js')).href).href).toBe(pathToFileURL(worker).href);
      expect(outputWriterWorkerEntry(pathToFileURL(path.join(dist, 'main.js')).href).href).toBe(pathToFileURL(worker).href);
    } finally {
      temp.remove();
    }
  });

  it('from source: the .ts module with its types stripped', () => {
    const entry = outputWriterWorkerEntry();
    expect(entry.protocol).toBe('data:');
    const code = decodeURIComponent(entry.href.slice('data:text/javascript,'.length));
    expect(code).toContain('INSERT INTO output_chunks');
    expect(code).not.toMatch(/from ['"]\.\//);
  });
});
