import { searchIndexBackfill, searchIndexSchema } from '../search-index-schema';

/**
 * The full-text search index (issue 29; search-index-schema.ts says what it holds). The tasks, notices
 * and timelines a ledger already has are indexed here; its stored output is indexed after start, in
 * the background, by the output writer's thread (search says it is incomplete meanwhile).
 */
export const searchIndex = `${searchIndexSchema}\n${searchIndexBackfill}`;
