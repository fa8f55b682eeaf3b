import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../core';
import { createMemoryLogger } from '../platform/log';
import { OutputFanout } from '../pty/output-fanout';
import { OutputPipeline } from '../pty/output-pipeline';
import type { PtySession } from '../pty/pty-session';
import { callCore } from '../testing/core-call';
import { openTestRunLedger, startFixtureAgent, waitFor, type TestRunLedger } from '../testing/output-test-kit';
import { closeViewers, viewer } from '../testing/output-viewer-kit';
import { makeTempDir } from '../testing/temp-dir';
import { SearchIndexUpkeep } from './search-index-upkeep';
import { SearchService } from './search-service';

/** Search queries run on their own thread (search-reader.ts): what that changes for an operator. */

const cleanups: Array<() => Promise<void> | void> = [];
const sessions: PtySession[] = [];
afterEach(async () => {
  closeViewers();
  await Promise.all(sessions.splice(0).map((session) => session.stop({ graceMs: 200 })));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A ledger whose index holds 400,000 rows of three distinct ids each (commit hashes, request ids: what
 * agents print), so a one-letter prefix (`q*`, under the 3-character prefix index) merges over a
 * million terms: a query of a few hundred milliseconds, as on a large ledger.
 */
function ledgerWithSlowQuery(test: TestRunLedger, runId: string): void {
  test.ledger.db.exec(`
    INSERT INTO search_rows (id, source, run_id, byte_offset, byte_end, created_at)
      WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 400000)
      SELECT n + 1000000, 'output', '${runId}', 0, 0, 1 FROM k;
    INSERT INTO search_text (rowid, text)
      SELECT id, 'q' || hex(randomblob(6)) || ' q' || hex(randomblob(6)) || ' q' || hex(randomblob(6)) FROM search_rows WHERE id > 1000000;
  `);
}

/** A test ledger and the search service over it (its reader thread closed after the test). */
function searchedLedger() {
  const test = openTestRunLedger();
  cleanups.push(() => test.close());
  const log = createMemoryLogger();
  const service = new SearchService(test.ledger, new SearchIndexUpkeep(test.ledger, log), log);
  cleanups.push(() => service.close());
  return { test, service };
}

describe('search off the event loop', () => {
  it('keeps live output reaching a viewer while a slow query runs', async () => {
    const { test, service } = searchedLedger();
    const { runId, attemptId } = test.createRun();
    ledgerWithSlowQuery(test, runId);

    // A real run printing a line every 10 ms, its output fanned out live to a viewer, as a terminal is.
    const fanout = new OutputFanout({ output: test.ledger.output });
    const pty = startFixtureAgent(['--lines', '2000', '--delay-ms', '10']);
    sessions.push(pty);
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session: pty, output: test.ledger.output });
    fanout.attachLive(pipeline.feed);
    const arrivals: number[] = [];
    const watching = viewer(fanout, { runId, fromOffset: 0 }, 'inline');
    const sent = watching.sent;
    await waitFor(() => sent() > 0, 'the first live output');
    const poll = setInterval(() => arrivals.push(sent()), 1);
    cleanups.push(() => clearInterval(poll));

    const started = performance.now();
    const answer = await service.search({ query: 'q*', limit: 20 });
    const took = performance.now() - started;
    const during = arrivals.length;
    const bytesBefore = arrivals[0] ?? 0;
    const bytesAfter = arrivals.at(-1) ?? 0;

    expect(answer.results.length).toBe(20);
    expect(took).toBeGreaterThan(100);
    // The event loop went on: the viewer was sent output while the query ran, not only after it.
    expect(during).toBeGreaterThan(20);
    expect(bytesAfter).toBeGreaterThan(bytesBefore);
    expect(watching.errors).toEqual([]);
  });

  it('still refuses a query with no words by its stable code, and answers the next one (search-channel.test.ts: the rest of the contract)', async () => {
    const { test, service } = searchedLedger();
    test.ledger.db.prepare("UPDATE tasks SET title = 'Find the ocelot' WHERE id = ?").run(test.createRun().runId.replace('run_', 'tsk_'));
    await expect(service.search({ query: '" -- *' })).rejects.toMatchObject({ code: 'invalid_request', reason: 'no_search_words' });
    expect((await service.search({ query: 'ocelot' })).results).toMatchObject([{ source: 'task', taskTitle: 'Find the ocelot' }]);
  });

  it('closing the console closes the reader: the ledger is left whole, with no connection open on it', async () => {
    const dir = makeTempDir('oc-search-reader-');
    cleanups.push(() => dir.remove());
    const console = createCore({ dataDir: dir.path, transport: 'browser', appVersion: 'test', log: createMemoryLogger() });
    let closed = false;
    cleanups.push(() => (closed ? undefined : console.close()));
    const folder = makeTempDir('oc-search-reader-project-');
    cleanups.push(() => folder.remove());
    const project = await callCore(console, 'addProject', { path: folder.path });
    await callCore(console, 'createTask', { projectId: project.id, title: 'Rotate the keys', prompt: 'Rotate every key of the ocelot service' });
    expect((await callCore(console, 'searchOutput', { query: 'ocelot' })).results).toHaveLength(1);
    expect(existsSync(`${console.ledger.file}-wal`)).toBe(true);

    await console.close();
    closed = true;
    // SQLite removes the WAL when its last connection closes: none is left open, the reader's included.
    expect(existsSync(`${console.ledger.file}-wal`)).toBe(false);
    await expect(callCore(console, 'searchOutput', { query: 'ocelot' })).rejects.toThrow();
  });
});
