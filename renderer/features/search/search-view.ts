import { runStatuses, type RunStatus } from '../../../shared/entities';
import { actionPath } from '../../../shared/routes';
import type { SearchRequest, SearchResult } from '../../../shared/search';

/**
 * What the Search page shows, kept in its address (`#/search?q=…&agent=…`), so a reload, Back or a
 * link from the command palette keeps it.
 */
export interface SearchView {
  query: string;
  agentId: string;
  status: RunStatus | '';
  projectId: string;
  /** Days as YYYY-MM-DD (the date inputs' values), in the operator's own time zone. */
  from: string;
  to: string;
}

const day = /^\d{4}-\d{2}-\d{2}$/;

export function searchViewFromSearch(search: string): SearchView {
  const params = new URLSearchParams(search);
  const status = params.get('status') ?? '';
  return {
    query: params.get('q') ?? '',
    agentId: params.get('agent') ?? '',
    status: (runStatuses as readonly string[]).includes(status) ? (status as RunStatus) : '',
    projectId: params.get('project') ?? '',
    from: day.test(params.get('from') ?? '') ? params.get('from')! : '',
    to: day.test(params.get('to') ?? '') ? params.get('to')! : '',
  };
}

export function searchViewPath(view: SearchView): string {
  const params = new URLSearchParams();
  if (view.query) params.set('q', view.query);
  if (view.agentId) params.set('agent', view.agentId);
  if (view.status) params.set('status', view.status);
  if (view.projectId) params.set('project', view.projectId);
  if (view.from) params.set('from', view.from);
  if (view.to) params.set('to', view.to);
  const query = params.toString();
  return `${actionPath({ kind: 'search' })}${query ? `?${query}` : ''}`;
}

/** The request for a view, or null when nothing is typed yet. */
export function searchRequest(view: SearchView, limit: number): SearchRequest | null {
  if (!view.query.trim()) return null;
  return {
    query: view.query,
    limit,
    ...(view.agentId ? { agentId: view.agentId } : {}),
    ...(view.status ? { status: view.status } : {}),
    ...(view.projectId ? { projectId: view.projectId } : {}),
    // The whole of each day, in the operator's own time zone.
    ...(view.from ? { from: new Date(`${view.from}T00:00:00`).toISOString() } : {}),
    ...(view.to ? { to: new Date(`${view.to}T23:59:59.999`).toISOString() } : {}),
  };
}

/** Where a result opens: its run's terminal at the byte it was printed (the match highlighted), or its task or notice. */
export function searchResultPath(result: SearchResult): string {
  const match = result.snippet.find((piece) => piece.match)?.text;
  if (result.runId) {
    return actionPath({
      kind: 'run',
      runId: result.runId,
      // A timeline entry's offset is the output line it was parsed from, when the output printed its words
      // (electron/search/search-results.ts), else where the output stood when it was stored.
      ...(result.byteOffset !== null && (result.source === 'output' || result.source === 'timeline') ? { at: result.byteOffset, ...(match ? { find: match } : {}) } : {}),
    });
  }
  if (result.source === 'notice') return actionPath({ kind: 'notices' });
  return actionPath({ kind: 'tasks', ...(result.projectId ? { projectId: result.projectId } : {}) });
}

export const searchSourceLabels: Record<SearchResult['source'], string> = {
  output: 'Output',
  timeline: 'Timeline',
  task: 'Task',
  notice: 'Notice',
};
