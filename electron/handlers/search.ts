import type { searchChannels } from '../../shared/channels/search';
import type { ChannelHandlers } from '../transport/request-dispatcher';
import type { CoreServices } from './core-services';

export function searchHandlers({ search, searchIndex }: Pick<CoreServices, 'search' | 'searchIndex'>): ChannelHandlers<typeof searchChannels> {
  return {
    searchOutput: (input) => search.search(input),
    getSearchIndexState: () => searchIndex.state(),
  };
}
