import type BetterSqlite3 from 'better-sqlite3';
import type { RunStatus } from '../../shared/entities';
import type { SearchResult, SearchSource } from '../../shared/search';
import { OutputRepository } from '../ledger/output-repository';
import { outputRowLines } from '../ledger/output-text';
import { timelineText } from '../ledger/search-index-schema';
import { searchSnippet, wordsFound } from './search-snippet';
import type { SearchWordMatcher } from './search-words';

/**
 * The search's reads of the ledger: the ranked rows of a query with the operator's filters, and each
 * result's snippet read again from where its text is (the index keeps none). Imports only siblings
 * that import nothing but types: the search reader's thread loads it from source (search-reader.ts).
 */

/** A query as the reader runs it: already validated and made into an FTS5 expression (search-query.ts). */
export interface SearchQuery {
  match: string;
  matchers: SearchWordMatcher[];
  agentId?: string | undefined;
  status?: RunStatus | undefined;
  projectId?: string | undefined;
  /** Milliseconds since the epoch, inclusive. */
  from?: number | undefined;
  to?: number | undefined;
  offset: number;
  limit: number;
}

export interface SearchPage {
  results: SearchResult[];
  hasMore: boolean;
  order: 'relevance' | 'newest';
}

/**
 * How many of the newest matches that pass the filters are ranked: a bound on what a common word
 * costs. A rarer word has fewer matches than this, and all of them are ranked; for a word in more
 * rows, results are the best of its newest rows (README "Search"). 500 against 2,000: p95 28.8 ms
 * against 66.3 ms on 128 MiB (bench/search.bench.ts, with the 3-character prefix index).
 */
const rankedCandidates = 500;
/** See SearchResultsReader's constructor. */
const defaultRankingBudgetMs = 25;
/** An output row's bytes read for its snippet: a row is a few KiB of text, more only with escape sequences. */
const maxRowBytesRead = 256 * 1024;
/**
 * Where a timeline entry's line can be, around where the stored output ended when the entry was
 * stored (its search row's offset): a line begins before that by at most its own length (a long JSON
 * event), and ends after it by at most what the write queue held back then (it pauses the run at
 * 8 MiB: pty/ledger-write-queue.ts).
 */
const timelineLineBefore = 1024 * 1024;
const timelineLineAfter = 16 * 1024 * 1024;

/** What a search row belongs to, for its filters and its result: its run (a notice's through the notice), its task. */
const rowJoins = (row: string) => `JOIN search_rows s ON s.id = ${row}
  LEFT JOIN notices n ON n.id = s.notice_id
  LEFT JOIN runs r ON r.id = coalesce(s.run_id, n.run_id)
  LEFT JOIN tasks t ON t.id = coalesce(s.task_id, r.task_id, n.task_id)`;

interface ResultRow {
  source: SearchSource;
  run_id: string | null;
  notice_id: string | null;
  byte_offset: number | null;
  byte_end: number | null;
  created_at: number;
  status: RunStatus | null;
  agent_id: string | null;
  agent_name: string | null;
  task_id: string | null;
  task_title: string | null;
  project_id: string | null;
  /** The text of a task, notice or timeline row (an output row's is read from the output). */
  text: string | null;
}

export class SearchResultsReader {
  private readonly output: OutputRepository;

  /** Prepared on first use: a reader made while the index is missing must still start (and say so). */
  private statements: ReturnType<typeof prepareStatements> | undefined;

  /**
   * @param rankingBudgetMs how long the walk for a query's matches may have taken for them to be ranked by
   *   relevance (the ranking costs about as long again): beyond it they come newest first.
   */
  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly rankingBudgetMs = defaultRankingBudgetMs,
  ) {
    this.output = new OutputRepository(db);
  }

  /** One page of ranked results. Throws SQLite's error when the index is damaged or missing (the caller has it rebuilt). */
  find(query: SearchQuery): SearchPage {
    const params: Record<string, string | number> = { match: query.match };
    const candidates = Math.max(rankedCandidates, query.offset + query.limit + 1);
    // The filters on what a row belongs to (its run and task), and on when it was printed.
    const runFilters: string[] = [];
    const filters: string[] = [];
    if (query.agentId !== undefined) runFilters.push('r.agent_id = @agentId');
    if (query.status !== undefined) runFilters.push('r.status = @status');
    if (query.projectId !== undefined) runFilters.push('t.project_id = @projectId');
    if (query.from !== undefined) filters.push('s.created_at >= @from');
    if (query.to !== undefined) filters.push('s.created_at <= @to');
    for (const key of ['agentId', 'status', 'projectId', 'from', 'to'] as const) {
      const value = query[key];
      if (value !== undefined) params[key] = value;
    }
    let window: RowWindow | null = null;
    if (runFilters.length > 0) {
      window = this.rowWindow(runFilters, params);
      if (window === null) return { results: [], hasMore: false, order: 'relevance' };
      filters.push(...runFilters);
    }
    const walkStarted = performance.now();
    const hits = this.newestMatches(filters, params, candidates, window);
    if (hits.length === 0) return { results: [], hasMore: false, order: 'relevance' };
    // All of the query's matches (that pass the filters) are in hand: rank them by relevance. bm25
    // weighs each phrase by how many rows of the whole index hold it, which costs FTS5 a pass over them
    // all, as long as a walk through the whole index: so where there are more matches than the cap
    // (160 ms for `"does not exist on type"` at 1 GiB, against 1 ms for its newest 500), or the walk
    // itself was long (a rare phrase of common words), the newest come first instead.
    const exhaustive = hits.length < candidates && performance.now() - walkStarted <= this.rankingBudgetMs;
    const ranked = exhaustive ? this.rank(hits, query.match) : null;
    const rows = this.db
      .prepare(
        `WITH hits AS (SELECT value ->> 0 AS id, value ->> 1 AS rank FROM json_each(@hits))
         SELECT s.source, coalesce(s.run_id, n.run_id) AS run_id, s.notice_id, s.byte_offset, s.byte_end, s.created_at,
           r.status, r.agent_id, a.name AS agent_name, t.id AS task_id, t.title AS task_title, t.project_id,
           CASE s.source
             WHEN 'task' THEN t.title || char(10) || t.prompt
             WHEN 'notice' THEN n.title || char(10) || n.message
             WHEN 'timeline' THEN ${timelineText('e')}
           END AS text
         FROM hits
         ${rowJoins('hits.id')}
         LEFT JOIN run_events e ON e.id = s.event_id
         LEFT JOIN agents a ON a.id = r.agent_id
         ORDER BY ${ranked ? 'hits.rank, s.created_at DESC' : 'hits.id DESC'}
         LIMIT @limit OFFSET @offset`,
      )
      .all({ hits: JSON.stringify(ranked ?? hits.map((id) => [id, null])), limit: query.limit + 1, offset: query.offset }) as ResultRow[];
    return {
      results: rows.slice(0, query.limit).map((row) => this.result(row, query)),
      hasMore: rows.length > query.limit,
      order: ranked ? 'relevance' : 'newest',
    };
  }

  /**
   * The ids of the newest `candidates` rows that match and pass the filters, newest first. A window of
   * rows nearer the oldest end of the index is walked up from its first row, whole, and its newest
   * kept; any other walk goes down from the newest row (of the window, if any) and stops at the cap.
   */
  private newestMatches(filters: string[], params: Record<string, string | number>, candidates: number, window: RowWindow | null): number[] {
    const kept = filters.length > 0 ? `(${filters.join(' AND ')})` : '1';
    const up = window !== null && window.hi < this.newestRow() - window.hi;
    const ids: number[] = [];
    this.walk(
      `SELECT f.rowid AS id, ${kept} AS kept FROM search_text f ${filters.length > 0 ? rowJoins('f.rowid') : ''}
       WHERE f.search_text MATCH @match`,
      params,
      up ? { order: 'ASC', from: window.lo, to: window.hi } : { order: 'DESC', from: window?.hi ?? null, to: window?.lo ?? null },
      (row: { id: number; kept: number | null }) => {
        if (row.kept) ids.push(row.id);
        return up || ids.length < candidates;
      },
    );
    return up ? ids.slice(-candidates).reverse() : ids;
  }

  /**
   * bm25 for each of the hits (all of the query's matches), lowest (best) first, as [id, rank] pairs,
   * read between the first and last hit only, walking from the nearer end of the index.
   */
  private rank(hits: number[], match: string): Array<[number, number]> {
    const first = hits.at(-1)!;
    const last = hits[0]!;
    const wanted = new Set(hits);
    const ranks: Array<[number, number]> = [];
    const up = first < this.newestRow() - last;
    this.walk(
      'SELECT rowid AS id, rank FROM search_text f WHERE search_text MATCH @match',
      { match },
      up ? { order: 'ASC', from: first, to: last } : { order: 'DESC', from: last, to: first },
      (row: { id: number; rank: number }) => {
        if (wanted.has(row.id)) ranks.push([row.id, row.rank]);
        return true;
      },
    );
    return ranks;
  }

  /**
   * Walks the rows of `select` (a MATCH on `search_text f`) in rowid order from `from` to `to`, each
   * given to `visit` until it returns false. FTS5 reaches a bound on the rowid where its walk starts by
   * stepping through the doclists, not by a seek, and one where it should end does not end it: at 1 GiB,
   * `"does not exist on type"` between the first two hundred rows cost 220 ms walking up with both
   * bounds in the query, as much as the whole index, against 0.5 ms stopped here. So the walk starts
   * at the bound nearer its end of the index and is stopped past the other one in this loop.
   */
  private walk<Row extends { id: number }>(
    select: string,
    params: Record<string, string | number>,
    range: { order: 'ASC' | 'DESC'; from: number | null; to: number | null },
    visit: (row: Row) => boolean,
  ): void {
    const start = range.from === null ? '' : range.order === 'ASC' ? 'AND f.rowid >= @walkFrom' : 'AND f.rowid <= @walkFrom';
    const statement = this.db.prepare(`${select} ${start} ORDER BY f.rowid ${range.order}`);
    const past = (id: number) => range.to !== null && (range.order === 'ASC' ? id > range.to : id < range.to);
    for (const row of statement.iterate(range.from === null ? params : { ...params, walkFrom: range.from }) as IterableIterator<Row>) {
      if (past(row.id) || !visit(row)) break;
    }
  }

  /** The newest index row's id: how far the top end of the index is from a window of rows. */
  private newestRow(): number {
    return ((this.statements ??= prepareStatements(this.db)).newestRow.get() as number | null) ?? 0;
  }

  /** A row as a result: its snippet, and where it opens the run's terminal. */
  private result(row: ResultRow, query: SearchQuery): SearchResult {
    if (row.source !== 'output') return searchResult({ ...row, byte_offset: this.timelineOffset(row, query.match) }, searchSnippet(row.text ?? '', query.matchers));
    const { text, lineOffsets } = this.outputRow(row);
    // The line that holds the first word found: the row's first line is up to a KiB of lines earlier.
    const first = wordsFound(text, query.matchers)[0];
    const line = first === undefined ? 0 : text.slice(0, first.start).split('\n').length - 1;
    return searchResult({ ...row, byte_offset: lineOffsets[line] ?? row.byte_offset }, searchSnippet(text, query.matchers));
  }

  /**
   * Where a timeline result opens the run's terminal: its entry's offset is not
   * recorded (the timeline keeps no offsets: its row has where the stored output ended when the entry
   * was stored, and during a flood its line is megabytes further on), so it is the first output row
   * of the run near there that the query matches too (the line the entry was parsed from, for a CLI
   * that prints JSON events), else that offset.
   */
  private timelineOffset(row: ResultRow, match: string): number | null {
    if (row.source !== 'timeline' || row.run_id === null || row.byte_offset === null) return row.byte_offset;
    const statements = (this.statements ??= prepareStatements(this.db));
    const first = statements.firstOutputRowFrom.get(row.run_id, Math.max(0, row.byte_offset - timelineLineBefore)) as number | undefined;
    const last = statements.lastOutputRowUntil.get(row.run_id, row.byte_offset + timelineLineAfter) as number | undefined;
    if (first === undefined || last === undefined || last < first) return row.byte_offset;
    // Walked from the nearer end of the index (walk() says why): walking down, the first is the last one met.
    let found: number | undefined;
    const up = first < this.newestRow() - last;
    this.walk(
      `SELECT f.rowid AS id, s.byte_offset, s.run_id = @runId AND s.source = 'output' AS kept
       FROM search_text f JOIN search_rows s ON s.id = f.rowid WHERE f.search_text MATCH @match`,
      { match, runId: row.run_id },
      up ? { order: 'ASC', from: first, to: last } : { order: 'DESC', from: last, to: first },
      (output: { id: number; byte_offset: number; kept: number }) => {
        if (output.kept) found = output.byte_offset;
        return !(up && output.kept);
      },
    );
    return found ?? row.byte_offset;
  }

  /**
   * The first and last index row that the run filters keep (null: none), read from the small side:
   * the runs, tasks and notices that pass them, and their rows through search_rows' indexes. The walk
   * then starts at whichever of them is nearer its end of the index and stops past the other
   * (newestMatches), so the oldest or newest agent's runs under a GiB of other output cost what they
   * hold, not a walk through all the other matches of a common word.
   */
  private rowWindow(runFilters: string[], params: Record<string, string | number>): RowWindow | null {
    const kept = runFilters.join(' AND ');
    const window = this.db
      .prepare(
        `SELECT min(lo) AS lo, max(hi) AS hi FROM (
           SELECT min(s.id) AS lo, max(s.id) AS hi FROM search_rows s
             WHERE s.run_id IN (SELECT r.id FROM runs r LEFT JOIN tasks t ON t.id = r.task_id WHERE ${kept})
           UNION ALL
           SELECT min(s.id), max(s.id) FROM notices n JOIN search_rows s ON s.notice_id = n.id
             LEFT JOIN runs r ON r.id = n.run_id LEFT JOIN tasks t ON t.id = coalesce(r.task_id, n.task_id) WHERE ${kept}
           UNION ALL
           -- A task's own row belongs to no run (r is all nulls: ON 0), so only a project filter keeps it.
           SELECT min(s.id), max(s.id) FROM tasks t JOIN search_rows s ON s.task_id = t.id LEFT JOIN runs r ON 0 WHERE ${kept}
         )`,
      )
      .get(params) as { lo: number | null; hi: number | null };
    return window.lo === null || window.hi === null ? null : { lo: window.lo, hi: window.hi };
  }

  /** An output row's text, read again from the output it came from, with where its lines begin. */
  private outputRow(row: ResultRow): { text: string; lineOffsets: readonly number[] } {
    if (row.run_id === null || row.byte_offset === null || row.byte_end === null) return { text: '', lineOffsets: [] };
    const slice = this.output.read(row.run_id, row.byte_offset, Math.min(row.byte_end - row.byte_offset, maxRowBytesRead));
    return outputRowLines(slice.bytes, row.byte_offset);
  }
}

/** The first and last index row a filter keeps. */
interface RowWindow {
  lo: number;
  hi: number;
}

/**
 * The statements the reader keeps, prepared on first use. The output rows of a run near a timeline entry:
 * a run's output rows are indexed in order, so their ids grow with their offsets, and the rows between
 * two offsets are the ids between the first and the last of them (search_rows_by_run finds both).
 */
function prepareStatements(db: BetterSqlite3.Database) {
  return {
    newestRow: db.prepare('SELECT max(id) FROM search_rows').pluck(),
    firstOutputRowFrom: db.prepare("SELECT id FROM search_rows WHERE run_id = ? AND source = 'output' AND byte_offset >= ? ORDER BY byte_offset LIMIT 1").pluck(),
    lastOutputRowUntil: db.prepare("SELECT id FROM search_rows WHERE run_id = ? AND source = 'output' AND byte_offset <= ? ORDER BY byte_offset DESC LIMIT 1").pluck(),
  };
}

function searchResult(row: ResultRow, snippet: SearchResult['snippet']): SearchResult {
  return {
    source: row.source,
    runId: row.run_id,
    runStatus: row.status,
    taskId: row.task_id,
    taskTitle: row.task_title,
    projectId: row.project_id,
    agentId: row.agent_id,
    agentName: row.agent_name,
    noticeId: row.notice_id,
    at: new Date(row.created_at).toISOString(),
    byteOffset: row.byte_offset,
    snippet,
  };
}
