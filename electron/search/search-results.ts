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
}

/**
 * How many of the newest matches that pass the filters are ranked: a bound on what a common word
 * costs. A rarer word has fewer matches than this, and all of them are ranked; for a word in more
 * rows, results are the best of its newest rows (README "Search"). 500 against 2,000: p95 28.8 ms
 * against 66.3 ms on 128 MiB (bench/search.bench.ts, with the 3-character prefix index).
 */
const rankedCandidates = 500;
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
  private timelineStatements: ReturnType<typeof prepareTimelineStatements> | undefined;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.output = new OutputRepository(db);
  }

  /** One page of ranked results. Throws SQLite's error when the index is damaged or missing (the caller has it rebuilt). */
  find(query: SearchQuery): SearchPage {
    const params: Record<string, string | number> = {
      match: query.match,
      limit: query.limit + 1,
      offset: query.offset,
      candidates: Math.max(rankedCandidates, query.offset + query.limit + 1),
    };
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
    if (runFilters.length > 0) {
      const window = this.rowWindow(runFilters, params);
      if (window === null) return { results: [], hasMore: false };
      params.lo = window.lo;
      params.hi = window.hi;
      filters.push(...runFilters, 'f.rowid BETWEEN @lo AND @hi');
    }
    const rows = this.db
      .prepare(
        // The newest `candidates` matches that pass the filters (rowids grow as rows are indexed:
        // FTS5 walks them newest first and stops there), ranked by relevance (bm25). A word in a
        // million rows thus costs a few thousand, not a million: ranking every match would take
        // seconds on a ledger of a GiB (bench/search.bench.ts). The filters are applied in the walk,
        // before the cap, so a filtered search finds an old match under many newer ones elsewhere.
        `WITH hits AS (
           SELECT f.rowid AS id, f.rank FROM search_text f
           ${filters.length > 0 ? `${rowJoins('f.rowid')} WHERE f.search_text MATCH @match AND ${filters.join(' AND ')}` : 'WHERE f.search_text MATCH @match'}
           ORDER BY f.rowid DESC LIMIT @candidates
         )
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
         ORDER BY hits.rank, s.created_at DESC
         LIMIT @limit OFFSET @offset`,
      )
      .all(params) as ResultRow[];
    return {
      results: rows.slice(0, query.limit).map((row) => this.result(row, query)),
      hasMore: rows.length > query.limit,
    };
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
    const statements = (this.timelineStatements ??= prepareTimelineStatements(this.db));
    const first = statements.firstOutputRowFrom.get(row.run_id, Math.max(0, row.byte_offset - timelineLineBefore)) as number | undefined;
    const last = statements.lastOutputRowUntil.get(row.run_id, row.byte_offset + timelineLineAfter) as number | undefined;
    if (first === undefined || last === undefined || last < first) return row.byte_offset;
    const found = statements.firstMatchingOutputRow.get({ match, first, last, runId: row.run_id }) as number | undefined;
    return found ?? row.byte_offset;
  }

  /**
   * The first and last index row that the run filters keep (null: none), read from the small side:
   * the runs, tasks and notices that pass them, and their rows through search_rows' indexes. The walk
   * then starts at the newest of them and ends at the oldest, so an old agent's runs under a GiB of
   * newer output cost what they hold, not a walk through all the newer matches of a common word.
   */
  private rowWindow(runFilters: string[], params: Record<string, string | number>): { lo: number; hi: number } | null {
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

/**
 * The output rows of a run near a timeline entry that a query matches. A run's output rows are
 * indexed in order, so their ids grow with their offsets: the rows between two offsets are the ids
 * between the first and the last of them (search_rows_by_run finds both), a range FTS5 walks in order.
 */
function prepareTimelineStatements(db: BetterSqlite3.Database) {
  return {
    firstOutputRowFrom: db.prepare("SELECT id FROM search_rows WHERE run_id = ? AND source = 'output' AND byte_offset >= ? ORDER BY byte_offset LIMIT 1").pluck(),
    lastOutputRowUntil: db.prepare("SELECT id FROM search_rows WHERE run_id = ? AND source = 'output' AND byte_offset <= ? ORDER BY byte_offset DESC LIMIT 1").pluck(),
    firstMatchingOutputRow: db
      .prepare(
        `SELECT s.byte_offset FROM search_text f JOIN search_rows s ON s.id = f.rowid
         WHERE f.search_text MATCH @match AND f.rowid BETWEEN @first AND @last AND s.run_id = @runId AND s.source = 'output'
         ORDER BY f.rowid LIMIT 1`,
      )
      .pluck(),
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
