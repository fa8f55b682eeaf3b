import { searchIndexStateSchema, searchRequestSchema, searchResponseSchema } from '../search';
import { channel, noInput } from './channel';

/** Full-text search over runs' output, timelines, tasks and notices (issue 29). */

export const searchChannels = {
  /** Ranked results of one page, with how complete the index is. */
  searchOutput: channel(searchRequestSchema, searchResponseSchema),
  getSearchIndexState: channel(noInput, searchIndexStateSchema),
} as const;
