import type { LedgerDb } from '../database-handle';
import { searchTextMerging } from '../search-index-schema';

/**
 * Issue 29: the search index merges its segments less often (search-index-schema.ts
 * `searchTextMerging`), for a ledger whose index migration 13 made before that. A ledger whose index
 * is missing gets it when the index is rebuilt (search-index-writer.ts), with the setting.
 */
export function searchIndexMerging(db: LedgerDb): void {
  const indexed = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'search_text'").get() !== undefined;
  if (indexed) db.exec(searchTextMerging);
}
