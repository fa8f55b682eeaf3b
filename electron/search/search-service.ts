import { isLedgerDamage } from '../ledger/ledger-damage';
import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../platform/log';
import { searchRequestSchema, type SearchRequest, type SearchResponse } from '../../shared/search';
import { searchTerms } from './search-query';
import { SearchReader } from './search-reader';
import type { SearchPage } from './search-results';
import type { SearchIndexUpkeep } from './search-index-upkeep';

const defaultPageSize = 20;

/**
 * Ranked full-text search over the index (ledger/search-index-schema.ts), with the operator's filters.
 * The request is checked and its words read here (a bad one is refused at once, by code); the query
 * and the snippets run on the search reader's thread (search-reader.ts), off the event loop.
 */
export class SearchService {
  private readonly reader: SearchReader;

  constructor(
    ledger: Ledger,
    private readonly upkeep: SearchIndexUpkeep,
    private readonly log: Logger,
    options: { nativeBinding?: string | undefined } = {},
  ) {
    this.reader = new SearchReader({ file: ledger.file, nativeBinding: options.nativeBinding });
  }

  async search(input: SearchRequest): Promise<SearchResponse> {
    const request = searchRequestSchema.parse(input);
    const terms = searchTerms(request.query);
    let page: SearchPage;
    try {
      page = await this.reader.find({
        match: terms.match,
        matchers: terms.matchers,
        agentId: request.agentId,
        status: request.status,
        projectId: request.projectId,
        from: request.from === undefined ? undefined : Date.parse(request.from),
        to: request.to === undefined ? undefined : Date.parse(request.to),
        offset: request.offset ?? 0,
        limit: request.limit ?? defaultPageSize,
      });
    } catch (error) {
      // The index is derived from the ledger: a damaged one is rebuilt, and search says so meanwhile.
      if (!isLedgerDamage(error) && !isSearchIndexMissing(error)) throw error;
      this.log.warn('The search index is damaged or missing; it is rebuilt in the background', { error });
      this.upkeep.rebuild();
      return { results: [], hasMore: false, order: 'relevance', terms: terms.words, index: this.upkeep.state() };
    }
    return { ...page, terms: terms.words, index: this.upkeep.state() };
  }

  /** Ends the reader's thread (the console is closing). */
  close(): Promise<void> {
    return this.reader.close();
  }
}

/** The FTS table is gone (dropped by hand, a ledger edited outside the console). */
function isSearchIndexMissing(error: unknown): boolean {
  return error instanceof Error && /no such table: (main\.)?search_/.test(error.message);
}
