import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import type { SearchIndexState } from '../../../shared/search';
import { useOperatorClient } from '../../app/operator-context';
import { formatBytes } from '../../ui/format';

export const searchIndexStateKey = ['searchIndexState'] as const;
/** How often an incomplete index is asked about again. */
const pollMs = 1000;

/**
 * How far the search index has got, while it is catching up with stored output (after a flood, an
 * upgrade) or being rebuilt (it was damaged or missing): a bar and the bytes indexed and to go, asked
 * again every second until the index is complete, and then gone. Results meanwhile may miss output,
 * and the page says so. `seen`: the index state a search answered with, so a flood that starts
 * while the page is open brings the bar back.
 */
export function SearchIndexProgress({ seen }: { seen: SearchIndexState | undefined }) {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  const labelId = useId();
  const state = useQuery({
    queryKey: searchIndexStateKey,
    queryFn: () => client.getSearchIndexState(),
    refetchInterval: (query) => (query.state.data && !query.state.data.complete ? pollMs : false),
  });
  const known = state.data;
  useEffect(() => {
    if (seen && !seen.complete && known?.complete) void queryClient.invalidateQueries({ queryKey: searchIndexStateKey });
  }, [seen, known, queryClient]);

  if (!known || known.complete) return null;
  const total = known.indexedBytes + known.remainingBytes;
  return (
    <div className="search-index-progress callout" role="status">
      <p id={labelId} className="search-index-progress__line">
        <strong>{known.rebuilding ? 'Rebuilding the search index' : 'Indexing stored output'}</strong>
        {total > 0 ? `: ${formatBytes(known.indexedBytes)} indexed, ${formatBytes(known.remainingBytes)} to go.` : ': starting.'} Results may miss some
        output until it is done; they fill in by themselves.
      </p>
      {/* No value while the amount is not known yet: the bar then shows work under way, not 0 %. */}
      <progress className="search-index-progress__bar" aria-labelledby={labelId} max={total > 0 ? total : undefined} value={total > 0 ? known.indexedBytes : undefined} />
    </div>
  );
}
