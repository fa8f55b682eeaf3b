import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { openLedger } from './ledger';
import { openLedgerDb } from './ledger-db';
import { migrations } from './migrations';
import { makeTempDir } from '../testing/temp-dir';
import { createMemoryLogger } from '../platform/log';
import { SearchIndexUpkeep } from '../search/search-index-upkeep';
import { SearchService } from '../search/search-service';
import { openTestRunLedger, recordTestRun, type TestRunLedger } from '../testing/output-test-kit';

const ledgers: TestRunLedger[] = [];
afterEach(() => ledgers.splice(0).forEach((ledger) => ledger.close()));

/**
 * A catch-up step runs on the output writer's thread; a run's append that arrives meanwhile must not
 * wait for it (issue 29: indexing never slows a run). The real writer thread and ledger file.
 */
describe('a search index catch-up step beside a run printing', () => {
  it('gives way at once to an append that arrives while it runs, and indexes everything once later, each row once', async () => {
    const test = openTestRunLedger();
    ledgers.push(test);
    const backlogRun = test.createRun();
    const liveRun = test.createRun();
    const writer = test.ledger.outputWriter;
    // 4 MiB a flood left behind its index (the write queue marks such a transaction `behind`).
    const backlog = Buffer.from(Array.from({ length: 40_000 }, (_, line) => `line ${line} of the flood with osprey${line} inside\n`).join(''));
    await writer.appendChunks([{ runId: backlogRun.runId, attemptId: null, byteOffset: 0, bytes: backlog, createdAt: Date.now() }], { behind: true });

    // A step asked for all of it (seconds of indexing), and then a run's append right behind it.
    const step = writer.catchUpSearchIndex(backlog.length);
    const appendedAt = performance.now();
    const live = Buffer.from('the live run printed kingfisher\n');
    await writer.appendChunks([{ runId: liveRun.runId, attemptId: null, byteOffset: 0, bytes: live, createdAt: Date.now() }]);
    const appendWaitedMs = performance.now() - appendedAt;
    const progress = await step;

    expect(progress).toMatchObject({ yielded: true, indexedBytes: 0, remainingBytes: null });
    // The same step with no append behind it: the append waited for a small part of that, if any.
    const stepStarted = performance.now();
    const fullStep = await writer.catchUpSearchIndex(backlog.length);
    const fullStepMs = performance.now() - stepStarted;
    expect(fullStep).toMatchObject({ yielded: false, indexedBytes: backlog.length, remainingBytes: 0 });
    expect(appendWaitedMs).toBeLessThan(fullStepMs / 2);

    const log = createMemoryLogger();
    const upkeep = new SearchIndexUpkeep(test.ledger, log);
    const service = new SearchService(test.ledger, upkeep, log);
    onTestFinished(() => service.close());
    upkeep.start();
    await upkeep.caughtUp();
    expect(upkeep.state()).toMatchObject({ complete: true, remainingBytes: 0 });
    // Every line of the backlog is found, in exactly one row: nothing skipped, and nothing indexed
    // twice because of the step that was rolled back.
    for (const line of [0, 1, 20_000, 39_999]) {
      const found = (await service.search({ query: `osprey${line}` })).results;
      expect(found, `osprey${line}`).toHaveLength(1);
      expect(found[0]).toMatchObject({ runId: backlogRun.runId });
    }
    expect((await service.search({ query: 'kingfisher' })).results).toHaveLength(1);
  });
});

describe('how the search index merges its segments', () => {
  const automerge = (ledger: { db: { prepare(sql: string): { pluck(): { get(): unknown } } } }) =>
    ledger.db.prepare("SELECT v FROM search_text_config WHERE k = 'automerge'").pluck().get();

  it('at 8 segments per level: in an index made before (migration 15), and in one rebuilt', async () => {
    const dir = makeTempDir('oc-search-merge-');
    try {
      const file = path.join(dir.path, 'ledger.sqlite');
      const old = openLedgerDb(file, { migrations: migrations.filter((migration) => migration.version < 15) });
      // As migration 13 made the index before it said how to merge: at FTS5's default, 4.
      old.exec("INSERT INTO search_text (search_text, rank) VALUES ('automerge', 4)");
      old.close();

      const ledger = openLedger(dir.path);
      try {
        expect(automerge(ledger)).toBe(8);
        const upkeep = new SearchIndexUpkeep(ledger, createMemoryLogger());
        upkeep.rebuild();
        await upkeep.caughtUp();
        expect(automerge(ledger)).toBe(8);
      } finally {
        ledger.close();
      }
    } finally {
      dir.remove();
    }
  });
});

describe('a ledger whose search index is missing', () => {
  it('still stores every run\'s output, and the index is made again in the background and finds it', async () => {
    const dir = makeTempDir('oc-search-missing-');
    try {
      const first = openLedger(dir.path);
      const { runId } = recordTestRun(first.db, '1', path.join(dir.path, 'project'));
      first.db.exec('DROP TABLE search_text');
      first.close();

      const ledger = openLedger(dir.path);
      const log = createMemoryLogger();
      const upkeep = new SearchIndexUpkeep(ledger, log);
      const service = new SearchService(ledger, upkeep, log);
      try {
        // As the core starts: the upkeep first (it sees the index missing and starts a rebuild).
        upkeep.start();
        // Before the rebuild has run: a new task (a row the index's triggers write for) is taken,
        const second = recordTestRun(ledger.db, '2', path.join(dir.path, 'project-2'));
        // and the writer's thread starts on a ledger with no index and stores the output whole.
        const bytes = Buffer.from('output stored while the index was missing: cormorant\n');
        const appended = ledger.outputWriter.appendChunks([{ runId, attemptId: null, byteOffset: 0, bytes, createdAt: Date.now() }]);
        expect(upkeep.state()).toMatchObject({ complete: false, rebuilding: true });
        await appended;
        expect(ledger.output.totalBytes(runId)).toBe(bytes.length);
        await upkeep.caughtUp();
        expect(upkeep.state()).toMatchObject({ complete: true });
        expect((await service.search({ query: 'cormorant' })).results).toEqual([expect.objectContaining({ source: 'output', runId })]);
        // The task made meanwhile is found too (the rebuild indexes what the ledger holds).
        const task = ledger.db.prepare<[string], { title: string }>('SELECT t.title FROM tasks t JOIN runs r ON r.task_id = t.id WHERE r.id = ?').get(second.runId)!;
        expect((await service.search({ query: `"${task.title}"` })).results.map((result) => result.source)).toContain('task');
      } finally {
        await service.close();
        ledger.close();
      }
    } finally {
      dir.remove();
    }
  });
});
