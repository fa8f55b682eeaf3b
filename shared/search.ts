import { z } from 'zod';
import { runStatuses } from './entities';

/**
 * Full-text search over everything runs printed, their timelines, tasks and notices (issue 29). The
 * query is the words a person types: quotes make a phrase (an unbalanced quote runs to the end), a
 * trailing `*` a prefix, every other character that is not a letter or digit separates words, and
 * every word must match. It never reaches SQLite as syntax (electron/search/search-query.ts).
 */

export const searchSources = ['output', 'timeline', 'task', 'notice'] as const;
export type SearchSource = (typeof searchSources)[number];

/** The longest query accepted: longer is refused by the contract, not cut. */
export const maxSearchQueryLength = 500;

export const searchRequestSchema = z
  .strictObject({
    query: z.string().max(maxSearchQueryLength),
    agentId: z.string().min(1).max(200).optional(),
    status: z.enum(runStatuses).optional(),
    projectId: z.string().min(1).max(200).optional(),
    /** The first and last moment (ISO 8601, inclusive) of the range, in the operator's own days. */
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    offset: z.number().int().min(0).max(10_000).optional(),
    limit: z.number().int().min(1).max(100).optional(),
  })
  .refine((request) => !request.from || !request.to || Date.parse(request.from) <= Date.parse(request.to), {
    message: 'from must not be after to',
    path: ['from'],
  });
export type SearchRequest = z.input<typeof searchRequestSchema>;

/** A snippet as pieces: `match` pieces are the words found (the renderer marks them; never HTML). */
export const snippetPieceSchema = z.object({ text: z.string(), match: z.boolean() });
export type SnippetPiece = z.infer<typeof snippetPieceSchema>;

export const searchResultSchema = z.object({
  source: z.enum(searchSources),
  runId: z.string().nullable(),
  runStatus: z.enum(runStatuses).nullable(),
  taskId: z.string().nullable(),
  taskTitle: z.string().nullable(),
  projectId: z.string().nullable(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  noticeId: z.string().nullable(),
  at: z.string(),
  /**
   * Where in the run's output its terminal opens for this result: the line that holds the first word
   * found (output), the line its entry was parsed from when the output printed its words, else where
   * the output ended when it was stored (timeline); null for tasks, notices and entries from before the index.
   */
  byteOffset: z.number().int().min(0).nullable(),
  snippet: z.array(snippetPieceSchema),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

/** How far the index has got: `complete` false while stored output is still being indexed (or rebuilt). */
export const searchIndexStateSchema = z.object({
  complete: z.boolean(),
  rebuilding: z.boolean(),
  /** Output indexed since the background work began, and still to index. */
  indexedBytes: z.number().int().min(0),
  remainingBytes: z.number().int().min(0),
});
export type SearchIndexState = z.infer<typeof searchIndexStateSchema>;

export const searchResponseSchema = z.object({
  results: z.array(searchResultSchema),
  /** More results follow this page. */
  hasMore: z.boolean(),
  /**
   * How the results are ordered: by relevance when all of the query's matches were ranked, newest
   * first when it matches more rows than are ranked (README, Search).
   */
  order: z.enum(['relevance', 'newest']),
  /** The words searched for, as the query was read (the terminal highlights these). */
  terms: z.array(z.string()),
  index: searchIndexStateSchema,
});
export type SearchResponse = z.infer<typeof searchResponseSchema>;
