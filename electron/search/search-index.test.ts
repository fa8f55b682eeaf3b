import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger } from '../ledger/ledger';
import { openLedgerDb } from '../ledger/ledger-db';
import { migrations } from '../ledger/migrations';
import { maxRowBytes, outputRowText } from '../ledger/output-text';
import type { OutputChunk } from '../ledger/output-repository';
import { createMemoryLogger } from '../platform/log';
import { openTestRunLedger, recordTestRun, startFixtureAgent, type TestRunLedger } from '../testing/output-test-kit';
import { OutputPipeline } from '../pty/output-pipeline';
import { SecretRedactor } from '../platform/secret-redaction';
import { makeTempDir } from '../testing/temp-dir';
import { SearchIndexUpkeep } from './search-index-upkeep';
import { searchTerms } from './search-query';
import { SearchResultsReader } from './search-results';
import { SearchService } from './search-service';
import type { Ledger } from '../ledger/ledger';

const ledgers: TestRunLedger[] = [];
const services: SearchService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
  ledgers.splice(0).forEach((ledger) => ledger.close());
});

function searchOver(ledger: Ledger) {
  const log = createMemoryLogger();
  const upkeep = new SearchIndexUpkeep(ledger, log);
  const service = new SearchService(ledger, upkeep, log);
  services.push(service);
  return { upkeep, service, find: async (query: string) => (await service.search({ query })).results };
}

function setup() {
  const test = openTestRunLedger();
  ledgers.push(test);
  return { test, ...test.createRun(), ...searchOver(test.ledger) };
}

/** Appends the pieces as successive chunks (each its own write, as a PTY's reads cut them), one batch each. */
async function print(ledger: Ledger, runId: string, pieces: Array<string | Uint8Array>, at = 0): Promise<number> {
  let offset = at;
  for (const piece of pieces) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece);
    const chunk: OutputChunk = { runId, attemptId: null, byteOffset: offset, bytes, createdAt: Date.now() };
    await ledger.outputWriter.appendChunks([chunk]);
    offset += bytes.length;
  }
  return offset;
}

const texts = (results: Awaited<ReturnType<ReturnType<typeof searchOver>['find']>>) => results.map((result) => result.snippet.map((piece) => piece.text).join(''));

describe('the search index over what runs printed', () => {
  it('finds a word as the screen shows it, also when an escape sequence split it across two writes', async () => {
    const { test, runId, find } = setup();
    await print(test.ledger, runId, ['build step: pass', '\x1b[1;3', '1mword\x1b[0m accepted\r\n', '\x1b]0;window title with hiddenword\x07done\n']);

    const found = await find('password');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ source: 'output', runId, byteOffset: 0 });
    expect(found[0]!.snippet).toContainEqual({ text: 'password', match: true });
    // What an OSC carries (a window title) is not on screen: not indexed.
    expect(await find('hiddenword')).toEqual([]);
    // Nothing of the escape sequences reached the text.
    expect(texts(await find('accepted'))[0]).not.toContain('\x1b');
    expect(texts(await find('accepted'))[0]).not.toMatch(/\[0m|31m/);
  });

  it('drops NUL bytes and hidden characters inside a word, keeps invalid UTF-8 readable, and finds right-to-left text', async () => {
    const { test, runId, find } = setup();
    await print(test.ledger, runId, [
      Buffer.concat([Buffer.from('token: dead'), Buffer.from([0]), Buffer.from('beef\n')]),
      'spoofed: admin\u200Buser and \u202Eevil\u202C name\n',
      Buffer.concat([Buffer.from('broken '), Buffer.from([0xff, 0xfe]), Buffer.from('bytes then café '), Buffer.from([0xd7]), Buffer.from('\n')]),
      'שלום עולם from the agent\n',
    ]);

    expect(await find('deadbeef')).toHaveLength(1);
    expect(await find('adminuser')).toHaveLength(1);
    expect(await find('evil')).toHaveLength(1);
    // Invalid bytes read as U+FFFD (a separator), never a lost row: the words beside them are found.
    expect(await find('broken bytes')).toHaveLength(1);
    expect(await find('cafe')).toHaveLength(1);
    expect(await find('עולם')).toHaveLength(1);
  });

  it('opens a result at the line that holds the match, not at the first of the lines its row holds', async () => {
    const { test, runId, find } = setup();
    const lines = Array.from({ length: 40 }, (_, k) => (k === 25 ? 'error: the \x1b[1mnarwhal\x1b[0m migration failed\r\n' : `step ${k} of the migration passed\r\n`));
    await print(test.ledger, runId, [lines.join('')]);
    const found = await find('narwhal');
    expect(found).toHaveLength(1);
    // The row starts at the first line; the result opens at the 26th, where the word is.
    expect(test.ledger.db.prepare("SELECT min(byte_offset) FROM search_rows WHERE run_id = ? AND source = 'output'").pluck().get(runId)).toBe(0);
    expect(found[0]!.byteOffset).toBe(Buffer.byteLength(lines.slice(0, 25).join('')));
  });

  it('indexes what a progress bar or spinner ends with on screen, not every frame it drew', async () => {
    const { test, runId, find } = setup();
    await print(test.ledger, runId, [
      // A progress bar rewritten in place, each frame in its own write (as a PTY reads them).
      'downloading kestrel.tar 10%',
      '\rdownloading kestrel.tar 55%',
      '\rdownloading kestrel.tar 100%\r\n',
      // A spinner drawn with backspaces, then its result.
      'resolving |\b/\b-\b\\\bdone\r\n',
      // A status line erased (CSI K) and written again shorter: what it said before is gone.
      'status: compilingwidget',
      '\r\x1b[Kstatus: ok\r\n',
      // Written over only in part: the screen keeps the end of the longer text.
      'abcdefghij\rXYZ\n',
      // A carriage return that only ends a line (CR LF) erases nothing, in any write.
      'first half of a line\r',
      '\nsecond line here\r\n',
    ]);

    // The row reads as the screen ends (its lines, spaces folded in the snippet): no frame before the last.
    expect(texts(await find('kestrel'))).toEqual(['downloading kestrel.tar 100% resolving done status: ok XYZdefghij first half of a line second line here ']);
    expect(await find('55')).toEqual([]);
    expect(await find('10')).toEqual([]);
    expect(await find('compilingwidget')).toEqual([]);
    expect(await find('status ok')).toHaveLength(1);
    expect(await find('XYZdefghij')).toHaveLength(1);
    expect(await find('abcdefghij')).toEqual([]);
    expect(await find('"first half of a line"')).toHaveLength(1);
    expect(await find('"second line here"')).toHaveLength(1);
  });

  it('drops characters that draw nothing but are not format characters, so a word they split is found whole', async () => {
    const { test, runId, find } = setup();
    // Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), variation selectors (U+FE0F, U+E0100), the
    // combining grapheme joiner (U+034F) and a tag character (U+E0041): each draws nothing on screen.
    const hidden = ['\u115F', '\u1160', '\u3164', '\uFFA0', '\uFE0F', '\u{E0100}', '\u034F', '\u{E0041}'];
    await print(
      test.ledger,
      runId,
      hidden.map((character, k) => `token ${k}: pass${character}phrase${k}\n`),
    );
    for (let k = 0; k < hidden.length; k++) expect(await find(`passphrase${k}`)).toHaveLength(1);
    // A word copied with one of them in it is found too: the query drops them as the index does.
    expect(await find('pass\u3164phrase2')).toHaveLength(1);
    expect(await find('pass\u200Bphrase5')).toHaveLength(1);
    // And the snippet reads as the screen does: none of them is in it.
    expect(texts(await find('passphrase3'))[0]).toContain('passphrase3');
  });

  it('finds right-to-left text as typed, also inside bidirectional marks and isolates', async () => {
    const { test, runId, find } = setup();
    await print(test.ledger, runId, [
      'deploy: \u2067مرحبا بالعالم\u2069 and \u200Fשלום\u200F done\n',
      'mixed: \u202Bخطأ في الاتصال\u202C (ECONNRESET)\n',
    ]);
    expect(await find('بالعالم')).toHaveLength(1);
    expect(await find('"مرحبا بالعالم"')).toHaveLength(1);
    expect(await find('שלום')).toHaveLength(1);
    expect(await find('"خطأ في الاتصال" ECONNRESET')).toHaveLength(1);
    expect(texts(await find('بالعالم'))[0]).toContain('مرحبا بالعالم');
  });

  it('cuts a 10 MB line into rows at spaces, finds its words, and jumps to near where each was printed', async () => {
    const { test, runId, find } = setup();
    const words = Array.from({ length: 1_100_000 }, (_, k) => `item${k.toString(36)}`);
    words[1_000_000] = 'needleinthehaystack';
    const line = `${words.join(' ')}\n`;
    expect(line.length).toBeGreaterThan(8_000_000);
    // Written as a PTY delivers it: 64 KiB reads.
    const bytes = Buffer.from(line);
    const reads: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 65_536) reads.push(bytes.subarray(at, at + 65_536));
    await print(test.ledger, runId, reads);

    const found = await find('needleinthehaystack');
    expect(found).toHaveLength(1);
    const at = line.indexOf('needleinthehaystack');
    expect(found[0]!.byteOffset).toBeLessThanOrEqual(at);
    expect(at - found[0]!.byteOffset!).toBeLessThan(maxRowBytes);
    // The words next to a cut are whole: every word of the line is found as itself.
    const rows = test.ledger.db.prepare("SELECT count(*) FROM search_rows WHERE run_id = ? AND source = 'output'").pluck().get(runId) as number;
    expect(rows).toBeGreaterThan(bytes.length / maxRowBytes);
    for (const k of [0, 1, 4095, 500_000, 1_099_999]) expect(await find(words[k]!)).toHaveLength(1);
  });

  it('cuts a 10 MB line with no space at a character boundary, never inside a multi-byte character', async () => {
    const { test, runId, find } = setup();
    const line = Buffer.from(`${'é'.repeat(5_000_000)}\n`);
    // 64 KiB reads, as a PTY delivers them: an odd size, so reads end inside characters too.
    const reads: Buffer[] = [];
    for (let at = 0; at < line.length; at += 65_535) reads.push(line.subarray(at, at + 65_535));
    await print(test.ledger, runId, reads);
    // Each row, read again from the output as a result's snippet is, holds only whole characters.
    const rows = test.ledger.db.prepare("SELECT byte_offset, byte_end FROM search_rows WHERE run_id = ? AND source = 'output'").all(runId) as Array<{ byte_offset: number; byte_end: number }>;
    expect(rows.length).toBeGreaterThan(10_000_000 / maxRowBytes);
    for (const row of rows.filter((_, k) => k % 7 === 0 || k === rows.length - 1)) {
      const text = outputRowText(test.ledger.output.read(runId, row.byte_offset, row.byte_end - row.byte_offset).bytes, row.byte_offset);
      expect(text).toMatch(/^é+\n?$/);
    }
    expect(await find('ping')).toEqual([]);
  });

  it('finds the line a run is still printing, and the whole line once it ends', async () => {
    const { test, runId, find } = setup();
    const end = await print(test.ledger, runId, ['compiling modu']);
    expect(await find('modu')).toHaveLength(1);
    await print(test.ledger, runId, ['les ok\n'], end);
    expect(await find('modules')).toHaveLength(1);
    expect(await find('modu')).toEqual([]);
  });

  it('opens a timeline entry at the line it was parsed from, also when the stored output was megabytes behind it', async () => {
    const { test, runId, find } = setup();
    let end = await print(test.ledger, runId, ['starting the agent\n'.repeat(1000)]);
    // In a flood the entry is parsed, and stored, while its line still waits in the write queue: the
    // ledger's output then ends 2 MB before the line.
    const text = 'closing the zebra crossing now';
    test.ledger.runs.appendEvents(runId, null, [{ kind: 'message', data: { role: 'assistant', text } }], Date.now());
    end = await print(test.ledger, runId, ['flood filler line of build output\n'.repeat(64_000)], end);
    const lineAt = end;
    await print(test.ledger, runId, [`${JSON.stringify({ type: 'item.completed', item: { type: 'agent_message', text } })}\n`, 'after\n'.repeat(100)], end);

    const timeline = (await find('zebra crossing')).filter((result) => result.source === 'timeline');
    expect(timeline).toHaveLength(1);
    expect(timeline[0]!.byteOffset).toBeLessThanOrEqual(lineAt);
    expect(lineAt - timeline[0]!.byteOffset!).toBeLessThan(maxRowBytes);
    // A word the output never printed (only the timeline holds it): where the output stood, as before.
    test.ledger.runs.appendEvents(runId, null, [{ kind: 'error', data: { message: 'okapi quota reached' } }], Date.now());
    const quiet = (await find('okapi')).filter((result) => result.source === 'timeline');
    expect(quiet).toMatchObject([{ byteOffset: test.ledger.output.totalBytes(runId) }]);
  });

  it('never indexes a secret the console redacted: a run that prints its key is not found by it', async () => {
    const { test, runId, attemptId, find } = setup();
    const secret = 'sk-live-abcdef0123456789zyxwvu';
    // A real PTY and the real pipeline, which redacts before the ledger (pty/output-pipeline.ts).
    const pty = startFixtureAgent(['--print-env', 'OPENAI_API_KEY'], { env: { OPENAI_API_KEY: secret } });
    const pipeline = new OutputPipeline({ writer: test.ledger.outputWriter, runId, attemptId, session: pty, output: test.ledger.output, redactor: new SecretRedactor([secret]) });
    await pipeline.whenFinished();

    expect(await find('OPENAI_API_KEY')).toHaveLength(1);
    expect(texts(await find('OPENAI_API_KEY'))[0]).toContain('redacted');
    expect(await find(secret)).toEqual([]);
    expect(await find('abcdef0123456789zyxwvu')).toEqual([]);
    expect(await find('sk-live*')).toEqual([]);
  });

  it('deleting a run removes every row of its output and timeline from the index', async () => {
    const { test, runId, find } = setup();
    await print(test.ledger, runId, ['the unique phrase zanzibar\n'.repeat(50_000)]);
    test.ledger.runs.appendEvents(runId, null, [{ kind: 'message', data: { role: 'assistant', text: 'zanzibar from the timeline' } }], Date.now());
    expect((await find('zanzibar')).length).toBeGreaterThan(1);
    await test.ledger.space.deleteOutput([runId], createMemoryLogger());
    test.ledger.runs.delete(runId);
    expect(await find('zanzibar')).toEqual([]);
    expect(test.ledger.db.prepare('SELECT count(*) FROM search_rows WHERE run_id = ?').pluck().get(runId)).toBe(0);
    expect(test.ledger.db.prepare("SELECT count(*) FROM search_text WHERE search_text MATCH 'zanzibar'").pluck().get()).toBe(0);
  });

  it('indexes timeline entries, tasks and notices, and filters by agent, status, project and date', async () => {
    const { test, runId, find, service } = setup();
    const other = test.createRun();
    test.ledger.runs.appendEvents(runId, null, [{ kind: 'tool_call', data: { callId: null, name: 'shell', input: 'rm -rf build/quokka' } }], Date.now());
    test.ledger.runs.appendEvents(other.runId, null, [{ kind: 'file_change', data: { path: 'src/quokka.ts', change: 'add' } }], Date.now());
    test.ledger.db.prepare("UPDATE tasks SET title = 'Teach the quokka to land' WHERE id = 'tsk_2'").run();
    test.ledger.db.prepare("UPDATE runs SET status = 'failed' WHERE id = ?").run(other.runId);
    test.ledger.db
      .prepare("INSERT INTO notices (id, kind, severity, title, message, run_id, status, created_at) VALUES ('ntc_1', 'run_stranded', 'warning', 'Quokka run stranded', 'Resume it.', ?, 'open', ?)")
      .run(runId, Date.now());

    expect((await find('quokka')).map((result) => result.source).sort()).toEqual(['notice', 'task', 'timeline', 'timeline']);
    expect((await service.search({ query: 'quokka', agentId: 'agt_1' })).results.map((result) => result.runId)).toEqual([runId, runId]);
    expect((await service.search({ query: 'quokka', status: 'failed' })).results.map((result) => result.runId)).toEqual([other.runId]);
    expect((await service.search({ query: 'quokka', projectId: 'prj_2' })).results.map((result) => result.source).sort()).toEqual(['task', 'timeline']);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    expect((await service.search({ query: 'quokka', from: tomorrow })).results).toEqual([]);
  });

  it('applies the filters to every match, not only the newest: an older match in another agent is found among many newer ones', async () => {
    const { test, runId: olderRunId, service } = setup();
    const newer = test.createRun();
    // One match in the first agent's run, then many more (well past any cap on what is ranked) in another's.
    await print(test.ledger, olderRunId, ['the deploy failed with checksum mismatch\n']);
    await print(test.ledger, newer.runId, ['retrying: checksum mismatch again\n'.repeat(25_000)]);
    expect(test.ledger.db.prepare("SELECT count(*) FROM search_rows WHERE run_id = ? AND source = 'output'").pluck().get(newer.runId)).toBeGreaterThan(600);

    const inOlder = (await service.search({ query: 'checksum', agentId: 'agt_1' }));
    expect(inOlder.results).toHaveLength(1);
    expect(inOlder.results[0]).toMatchObject({ runId: olderRunId, agentId: 'agt_1' });
    expect(inOlder.results[0]!.snippet.map((piece) => piece.text).join('')).toContain('deploy failed');
    // The same by project, and by a range of days that holds only the older row.
    expect((await service.search({ query: 'checksum', projectId: 'prj_1' })).results.map((result) => result.runId)).toEqual([olderRunId]);
    const olderAt = test.ledger.db.prepare("SELECT max(created_at) FROM search_rows WHERE run_id = ? AND source = 'output'").pluck().get(olderRunId) as number;
    test.ledger.db.prepare("UPDATE search_rows SET created_at = ? WHERE run_id = ? AND source = 'output'").run(olderAt - 86_400_000, olderRunId);
    const yesterday = new Date(olderAt - 86_400_000);
    const dayRange = { from: new Date(yesterday.getTime() - 1000).toISOString(), to: new Date(yesterday.getTime() + 1000).toISOString() };
    expect((await service.search({ query: 'checksum', ...dayRange })).results.map((result) => result.runId)).toEqual([olderRunId]);
    // And a page past the first still counts only what the filters keep.
    expect((await service.search({ query: 'checksum', agentId: 'agt_2', limit: 100 })).hasMore).toBe(true);
  });

  it('ranks all of a rarer word\'s matches by relevance, and shows a common word\'s newest first', async () => {
    const { test, runId, service } = setup();
    const line = (text: string, n: number) => `${text} ${'filler '.repeat(150)}${n}\n`;
    // A rarer word: the row that says it most leads, although it is the oldest.
    const zebras = await print(test.ledger, runId, [line('zebra zebra zebra zebra zebra', 0), line('a zebra', 1), line('one more zebra', 2)]);
    const rarer = (await service.search({ query: 'zebra' })).results;
    expect(rarer).toHaveLength(3);
    expect((await service.search({ query: 'zebra' })).order).toBe('relevance');
    expect(rarer[0]!.snippet.filter((piece) => piece.match)).toHaveLength(5);
    // Unless the walk for them took longer than ranking may (a rare phrase of common words at a GiB): newest first.
    const { match, matchers } = searchTerms('zebra');
    const unranked = new SearchResultsReader(test.ledger.db, -1).find({ match, matchers, offset: 0, limit: 3 }).results;
    expect(unranked.map((result) => result.byteOffset)).toEqual([...rarer.map((result) => result.byteOffset)].sort((a, b) => b! - a!));

    // A word in more rows than are ranked: the newest row first, not the row among them that says it most.
    const flood = (from: number) => Array.from({ length: 350 }, (_, n) => line('gnu', from + n)).join('');
    const end = await print(test.ledger, runId, [flood(0), line('gnu gnu gnu gnu gnu gnu', 350), flood(351)], zebras);
    expect(test.ledger.db.prepare("SELECT count(*) FROM search_rows WHERE run_id = ? AND source = 'output'").pluck().get(runId)).toBeGreaterThan(600);
    const common = await service.search({ query: 'gnu', limit: 2 });
    expect(common.results[0]!.byteOffset).toBeGreaterThan(end - 2 * 1200);
    expect(common.results[1]!.byteOffset).toBeLessThan(common.results[0]!.byteOffset!);
    expect(common.hasMore).toBe(true);
    expect(common.order).toBe('newest');
  });

  it('finds the newest matches of an agent whose runs are the oldest rows of the index, also past the cap', async () => {
    const { test, runId: olderRunId, service } = setup();
    const newer = test.createRun();
    const line = (n: number) => `gnu ${'filler '.repeat(150)}${n}\n`;
    const end = await print(test.ledger, olderRunId, [Array.from({ length: 700 }, (_, n) => line(n)).join('')]);
    await print(test.ledger, newer.runId, [Array.from({ length: 1500 }, (_, n) => line(n)).join('')]);
    expect(test.ledger.db.prepare("SELECT count(*) FROM search_rows WHERE run_id = ? AND source = 'output'").pluck().get(olderRunId)).toBeGreaterThan(600);

    const found = await service.search({ query: 'gnu', agentId: 'agt_1', limit: 2 });
    expect(found.results.map((result) => result.runId)).toEqual([olderRunId, olderRunId]);
    // The newest of that agent's rows, where the walk up through its rows ends.
    expect(found.results[0]!.byteOffset).toBeGreaterThan(end - 2 * 1200);
    expect(found.hasMore).toBe(true);
  });

  it('reads any query a person types without an FTS5 syntax error, and refuses one with no words by a stable code', async () => {
    const { test, runId, service } = setup();
    await print(test.ledger, runId, ['error: ECONNRESET at socket-client.ts:42 "quoted" NEAR(x) AND OR\n']);
    for (const query of ['"unbalanced', 'socket-client', 'ECONN*', '"quoted" AND', 'NEAR(x', 'x)', 'x*', '-error', 'a"b"c', 'OR AND NOT', "it's", '^error']) {
      await expect(service.search({ query })).resolves.toMatchObject({ results: expect.any(Array) });
    }
    expect((await service.search({ query: 'socket-client' })).results).toHaveLength(1);
    expect((await service.search({ query: 'ECONN*' })).results).toHaveLength(1);
    expect((await service.search({ query: '"unbalanced' })).results).toHaveLength(0);
    for (const query of ['', '   ', '"""', '*', '-- !!']) {
      await expect(service.search({ query })).rejects.toMatchObject({ code: 'invalid_request', reason: 'no_search_words' });
    }
  });
});

describe('indexing beside a flood', () => {
  it('stores a flood first and indexes it in the gaps: search says incomplete, then finds it', async () => {
    const { test, runId, upkeep, service } = setup();
    const first = await print(test.ledger, runId, ['a trickle line\n']);
    // The write queue marks a transaction that more output waits behind (pty/ledger-write-queue.ts).
    const flood = Buffer.from('flood line with pelican inside\n'.repeat(20_000));
    await test.ledger.outputWriter.appendChunks([{ runId, attemptId: null, byteOffset: first, bytes: flood, createdAt: Date.now() }], { behind: true });
    expect(test.ledger.output.totalBytes(runId)).toBe(first + flood.length);
    expect((await service.search({ query: 'pelican' })).index.complete).toBe(false);
    await upkeep.caughtUp();
    const after = (await service.search({ query: 'pelican', limit: 100 }));
    expect(after.index.complete).toBe(true);
    expect(after.results.length).toBeGreaterThan(10);
    // Then a trickle is indexed as it is stored again.
    await print(test.ledger, runId, ['the heron line\n'], first + flood.length);
    expect((await service.search({ query: 'heron' })).results).toHaveLength(1);
  });
});

describe('an index that is missing or damaged', () => {
  it('indexes output a ledger stored before migration 13 in the background, saying it is incomplete meanwhile', async () => {
    const temp = makeTempDir('oc-search-');
    try {
      const file = path.join(temp.path, 'ledger.sqlite');
      const old = openLedgerDb(file, { migrations: migrations.filter((migration) => migration.version < 13) });
      const { runId } = recordTestRun(old, '1', path.join(temp.path, 'project'));
      const insert = old.prepare('INSERT INTO output_chunks (run_id, byte_offset, attempt_id, bytes, created_at) VALUES (?, ?, NULL, ?, 1)');
      const line = Buffer.from('an old line of output with marmalade in it\n');
      let offset = 0;
      for (let k = 0; k < 40_000; k++, offset += line.length) insert.run(runId, offset, line);
      old.prepare("INSERT INTO run_events (run_id, kind, payload_json, created_at) VALUES (?, 'message', ?, 1)").run(runId, JSON.stringify({ role: 'assistant', text: 'old timeline marmalade' }));
      old.close();

      const ledger = openLedger(temp.path);
      try {
        const { upkeep, service } = searchOver(ledger);
        // The timeline and tasks are indexed by the migration; the output is not, yet.
        expect((await service.search({ query: 'marmalade' })).results.map((result) => result.source)).toEqual(['timeline']);
        upkeep.start();
        expect((await service.search({ query: 'marmalade' })).index).toMatchObject({ complete: false });
        await upkeep.caughtUp();
        const after = (await service.search({ query: 'marmalade', limit: 100 }));
        expect(after.index).toMatchObject({ complete: true, indexedBytes: offset });
        expect(after.results.filter((result) => result.source === 'output').length).toBeGreaterThan(10);
        // Appends continue where the catch-up ended.
        await print(ledger, runId, ['and a new line with kumquat\n'], offset);
        expect((await service.search({ query: 'kumquat' })).results).toHaveLength(1);
      } finally {
        await ledger.outputWriter.close();
        ledger.close();
      }
    } finally {
      temp.remove();
    }
  });

  it('rebuilds a damaged index from the ledger in the background', async () => {
    const { test, runId, upkeep, service } = setup();
    await print(test.ledger, runId, ['the platypus line\n'.repeat(1000)]);
    // Damage: the FTS table's own data is gone (as a corrupt page of it would read).
    test.ledger.db.unsafeMode(true);
    test.ledger.db.prepare('DELETE FROM search_text_data WHERE id > 1').run();
    test.ledger.db.unsafeMode(false);
    const during = (await service.search({ query: 'platypus' }));
    expect(during.index.complete).toBe(false);
    await upkeep.caughtUp();
    const after = (await service.search({ query: 'platypus', limit: 100 }));
    expect(after.index.complete).toBe(true);
    expect(after.results.length).toBeGreaterThan(5);
    expect(after.results.every((result) => result.runId === runId)).toBe(true);
  });

  it('makes a missing index again (its FTS table dropped), from tasks, timelines and output', async () => {
    const { test, runId, upkeep, service } = setup();
    await print(test.ledger, runId, ['the wombat line\n']);
    test.ledger.runs.appendEvents(runId, null, [{ kind: 'message', data: { role: 'assistant', text: 'a wombat said' } }], Date.now());
    test.ledger.db.exec('DROP TABLE search_text');
    expect((await service.search({ query: 'wombat' })).index.complete).toBe(false);
    await upkeep.caughtUp();
    expect((await service.search({ query: 'wombat' })).results.map((result) => result.source).sort()).toEqual(['output', 'timeline']);
  });
});
