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

describe('where each attempt’s output begins', () => {
  /** `count` more attempts of the run, numbered from `first` (createRun made attempt 1). */
  function addAttempts(test: TestRunLedger, runId: string, count: number, first = 2): string[] {
    const ids = [];
    for (let number = first; number < first + count; number += 1) {
      const id = `${runId}_att_${number}`;
      test.ledger.db.prepare("INSERT INTO attempts (id, run_id, number, status, started_at) VALUES (?, ?, ?, 'failed', 0)").run(id, runId, number);
      ids.push(id);
    }
    return ids;
  }

  /** What grouping every chunk by attempt says: the answer firstOffsets must give without reading them all. */
  function grouped(test: TestRunLedger, runId: string, attemptIds: string[]): Array<number | null> {
    const rows = test.ledger.db
      .prepare('SELECT attempt_id, min(byte_offset) AS first FROM output_chunks WHERE run_id = ? GROUP BY attempt_id')
      .all(runId) as Array<{ attempt_id: string; first: number }>;
    const firsts = new Map(rows.map((row) => [row.attempt_id, row.first]));
    return attemptIds.map((id) => firsts.get(id) ?? null);
  }

  it('finds each attempt’s first byte, and null for an attempt that wrote nothing', () => {
    const { output, runId, attemptId, test } = setup();
    const [second, third, fourth] = addAttempts(test, runId, 3);
    output.appendChunks(chunksOf(runId, attemptId, [10, 1, 300]));
    // The second attempt wrote nothing; the third and fourth did.
    output.appendChunks(chunksOf(runId, third!, [5, 64], 311));
    output.appendChunks(chunksOf(runId, fourth!, [1], 380));
    const ids = [attemptId, second!, third!, fourth!];
    expect(output.firstOffsets(runId, ids)).toEqual([0, null, 311, 380]);
    // An attempt with nothing yet after all the others (the one running now) has no output either.
    const [fifth] = addAttempts(test, runId, 1, 5);
    expect(output.firstOffsets(runId, [...ids, fifth!])).toEqual([0, null, 311, 380, null]);
    expect(output.firstOffsets(runId, [])).toEqual([]);
    expect(output.firstOffsets('run_none', ['att_x'])).toEqual([null]);
  });

  it('agrees with grouping every chunk by attempt, for many layouts', () => {
    const { test } = setup();
    // A fixed pseudo-random sequence, so a failure is repeatable.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let layout = 0; layout < 60; layout += 1) {
      const { runId, attemptId } = test.createRun();
      const ids = [attemptId, ...addAttempts(test, runId, random(5))];
      let offset = 0;
      for (const id of ids) {
        // About one attempt in three writes nothing; the others write 1 to 20 chunks of 1 to 5000 bytes.
        const chunks = random(3) === 0 ? 0 : 1 + random(20);
        const sizes = Array.from({ length: chunks }, () => 1 + random(5000));
        output(test).appendChunks(chunksOf(runId, id, sizes, offset));
        offset += sizes.reduce((sum, size) => sum + size, 0);
      }
      expect(output(test).firstOffsets(runId, ids)).toEqual(grouped(test, runId, ids));
    }
  });

  const output = (test: TestRunLedger) => test.ledger.output;
});
