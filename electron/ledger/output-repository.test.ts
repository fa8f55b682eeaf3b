import { afterEach, describe, expect, it } from 'vitest';
import { openTestRunLedger, type TestRunLedger } from '../testing/output-test-kit';
import type { OutputChunk } from './output-repository';

const ledgers: TestRunLedger[] = [];
afterEach(() => ledgers.splice(0).forEach((ledger) => ledger.close()));

function setup() {
  const test = openTestRunLedger();
  ledgers.push(test);
  return { output: test.ledger.output, ...test.createRun(), test };
}

/** The run's bytes 0..n-1 are the byte values (i * 7) % 256, so any slice is checkable. */
function expected(from: number, to: number): Buffer {
  return Buffer.from(Array.from({ length: to - from }, (_, k) => ((from + k) * 7) % 256));
}

function chunksOf(runId: string, attemptId: string | null, sizes: number[], start = 0): OutputChunk[] {
  let offset = start;
  return sizes.map((size) => {
    const chunk = { runId, attemptId, byteOffset: offset, bytes: new Uint8Array(expected(offset, offset + size)), createdAt: 1000 + offset };
    offset += size;
    return chunk;
  });
}

describe('run output in the ledger', () => {
  it('reads back exactly the bytes from any offset, slicing the chunk it starts in', () => {
    const { output, runId, attemptId } = setup();
    output.appendChunks(chunksOf(runId, attemptId, [10, 1, 300, 64, 5]));
    expect(output.totalBytes(runId)).toBe(380);
    for (const [from, max] of [
      [0, 380],
      [0, 1000],
      [3, 4],
      [10, 1],
      [9, 3],
      [11, 300],
      [200, 150],
      [379, 10],
      [0, 0],
    ] as const) {
      const slice = output.read(runId, from, max);
      const to = Math.min(380, from + max);
      expect(slice.fromOffset).toBe(from);
      expect(slice.nextOffset).toBe(to);
      expect(Buffer.from(slice.bytes).equals(expected(from, to))).toBe(true);
    }
    expect(output.read(runId, 380, 10)).toMatchObject({ fromOffset: 380, nextOffset: 380 });
    expect(output.read(runId, 5000, 10).bytes.length).toBe(0);
  });

  it('returns the tail of the output', () => {
    const { output, runId, attemptId } = setup();
    output.appendChunks(chunksOf(runId, attemptId, [100, 100, 100]));
    const tail = output.tail(runId, 150);
    expect(tail).toMatchObject({ fromOffset: 150, nextOffset: 300 });
    expect(Buffer.from(tail.bytes).equals(expected(150, 300))).toBe(true);
    expect(output.tail(runId, 1000).fromOffset).toBe(0);
  });

  it('keeps runs apart and knows an empty run has no output', () => {
    const { output, runId, attemptId, test } = setup();
    const other = test.createRun();
    output.appendChunks(chunksOf(runId, attemptId, [50]));
    output.appendChunks(chunksOf(other.runId, null, [20]));
    expect(output.totalBytes(runId)).toBe(50);
    expect(output.totalBytes(other.runId)).toBe(20);
    expect(output.totalBytes('run_none')).toBe(0);
    expect(output.read('run_none', 0, 10)).toMatchObject({ fromOffset: 0, nextOffset: 0 });
  });

  it('appends a batch in one transaction: all of it or none', () => {
    const { output, runId, attemptId } = setup();
    output.appendChunks(chunksOf(runId, attemptId, [10]));
    // The second chunk repeats offset 10, which the primary key refuses: the first must not stay either.
    const batch = [...chunksOf(runId, attemptId, [10], 10), ...chunksOf(runId, attemptId, [10], 10)];
    expect(() => output.appendChunks(batch)).toThrow();
    expect(output.totalBytes(runId)).toBe(10);
  });

  it('stores the attempt and time of each chunk', () => {
    const { output, runId, attemptId, test } = setup();
    output.appendChunks(chunksOf(runId, attemptId, [4, 4]));
    const rows = test.ledger.db.prepare('SELECT byte_offset, attempt_id, created_at FROM output_chunks WHERE run_id = ? ORDER BY byte_offset').all(runId);
    expect(rows).toEqual([
      { byte_offset: 0, attempt_id: attemptId, created_at: 1000 },
      { byte_offset: 4, attempt_id: attemptId, created_at: 1004 },
    ]);
  });
});
