import { isLedgerDamage } from '../ledger/ledger-damage';
import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../platform/log';
import type { RunStatus } from '../../shared/entities';
import { searchRequestSchema, type SearchRequest, type SearchResponse, type SearchResult, type SearchSource, type SnippetPiece } from '../../shared/search';
import { outputRowText } from '../ledger/output-text';
import { timelineText } from '../ledger/search-index-schema';
import { searchTerms } from './search-query';
import { searchSnippet } from './search-snippet';
import type { SearchIndexUpkeep } from './search-index-upkeep';

const defaultPageSize = 20;
/**
 * How many of the newest matches are ranked (and filtered): a bound on what a common word costs. A
 * rarer word has fewer matches than this, and all of them are ranked; for a word in more rows, results
 * are the best of its newest rows (README "Search"). 500 against 2,000: p95 28.8 ms against 66.3 ms on
 * 128 MiB (bench/search.bench.ts, with the 3-character prefix index).
 */
const rankedCandidates = 500;
/** An output row's bytes read for its snippet: a row is a few KiB of text, more only with escape sequences. */
const maxRowBytesRead = 256 * 1024;

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

/** Ranked full-text search over the index (ledger/search-index-schema.ts), with the operator's filters. */
export class SearchService {
  constructor(
    private readonly ledger: Ledger,
    private readonly upkeep: SearchIndexUpkeep,
    private readonly log: Logger,
  ) {}

  search(input: SearchRequest): SearchResponse {
    const request = searchRequestSchema.parse(input);
    const terms = searchTerms(request.query);
    const limit = request.limit ?? defaultPageSize;
    const filters: string[] = [];
    const offset = request.offset ?? 0;
    const params: Record<string, string | number> = { match: terms.match, limit: limit + 1, offset, candidates: Math.max(rankedCandidates, offset + limit + 1) };
    if (request.agentId !== undefined) {
      filters.push('r.agent_id = @agentId');
      params.agentId = request.agentId;
    }
    if (request.status !== undefined) {
      filters.push('r.status = @status');
      params.status = request.status;
    }
    if (request.projectId !== undefined) {
      filters.push('t.project_id = @projectId');
      params.projectId = request.projectId;
    }
    if (request.from !== undefined) {
      filters.push('s.created_at >= @from');
      params.from = Date.parse(request.from);
    }
    if (request.to !== undefined) {
      filters.push('s.created_at <= @to');
      params.to = Date.parse(request.to);
    }
    let rows: ResultRow[];
    try {
      rows = this.ledger.db
        .prepare(
          // The newest `candidates` matches (rowids grow as rows are indexed: FTS5 walks them newest
          // first and stops there), ranked by relevance (bm25), and only then joined to their runs and
          // tasks and filtered. A word in a million rows thus costs a few thousand, not a million:
          // ranking every match would take seconds on a ledger of a GiB (bench/search.bench.ts).
          `WITH hits AS (
             SELECT rowid AS id, rank FROM search_text WHERE search_text MATCH @match ORDER BY rowid DESC LIMIT @candidates
           )
           SELECT s.source, coalesce(s.run_id, n.run_id) AS run_id, s.notice_id, s.byte_offset, s.byte_end, s.created_at,
             r.status, r.agent_id, a.name AS agent_name, t.id AS task_id, t.title AS task_title, t.project_id,
             CASE s.source
               WHEN 'task' THEN t.title || char(10) || t.prompt
               WHEN 'notice' THEN n.title || char(10) || n.message
               WHEN 'timeline' THEN ${timelineText('e')}
             END AS text
           FROM hits
           JOIN search_rows s ON s.id = hits.id
           LEFT JOIN run_events e ON e.id = s.event_id
           LEFT JOIN notices n ON n.id = s.notice_id
           LEFT JOIN runs r ON r.id = coalesce(s.run_id, n.run_id)
           LEFT JOIN tasks t ON t.id = coalesce(s.task_id, r.task_id, n.task_id)
           LEFT JOIN agents a ON a.id = r.agent_id
           ${filters.length > 0 ? `WHERE ${filters.join(' AND ')}` : ''}
           ORDER BY hits.rank, s.created_at DESC
           LIMIT @limit OFFSET @offset`,
        )
        .all(params) as ResultRow[];
    } catch (error) {
      // The index is derived from the ledger: a damaged one is rebuilt, and search says so meanwhile.
      if (!isLedgerDamage(error) && !isSearchIndexMissing(error)) throw error;
      this.log.warn('The search index is damaged or missing; it is rebuilt in the background', { error });
      this.upkeep.rebuild();
      return { results: [], hasMore: false, terms: terms.words, index: this.upkeep.state() };
    }
    return {
      results: rows.slice(0, limit).map((row) => searchResult(row, searchSnippet(this.rowText(row), terms))),
      hasMore: rows.length > limit,
      terms: terms.words,
      index: this.upkeep.state(),
    };
  }

  private rowText(row: ResultRow): string {
    if (row.source !== 'output') return row.text ?? '';
    if (row.run_id === null || row.byte_offset === null || row.byte_end === null) return '';
    const slice = this.ledger.output.read(row.run_id, row.byte_offset, Math.min(row.byte_end - row.byte_offset, maxRowBytesRead));
    return outputRowText(slice.bytes, row.byte_offset);
  }
}

/** The FTS table is gone (dropped by hand, a ledger edited outside the console). */
function isSearchIndexMissing(error: unknown): boolean {
  return error instanceof Error && /no such table: (main\.)?search_/.test(error.message);
}

function searchResult(row: ResultRow, snippet: SnippetPiece[]): SearchResult {
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
