import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { runStatuses } from '../../../shared/entities';
import type { SearchResult } from '../../../shared/search';
import { useOperatorClient } from '../../app/operator-context';
import { EmptyState } from '../../ui/empty-state';
import { FilterSelect } from '../../ui/filter-select';
import { ErrorAlert } from '../../ui/error-alert';
import { formatTimestamp } from '../../ui/format';
import { Page } from '../../ui/page';
import { useNow } from '../../ui/use-now';
import { runStatusLabel } from '../../ui/run-status';
import { StatusBadge } from '../../ui/status-badge';
import { useAgents } from '../agents/use-agents';
import { useProjects } from '../projects/use-projects';
import { searchRequest, searchResultPath, searchSourceLabels, searchViewFromSearch, searchViewPath, type SearchView } from './search-view';
import { SearchIndexProgress } from './search-index-progress';
import './search.css';

/** Results per page, and how many more "Show more results" adds (the contract takes up to 100). */
const pageSize = 20;
const maxResults = 100;
/** Typing settles this long before the search runs (and the address changes). */
const typingSettleMs = 200;

/**
 * Search: everything runs printed, their timelines, tasks and notices, ranked. Keyboard first: the
 * field has focus when the page opens, ↓ goes to the results, ↑/↓ move through them, Enter opens
 * one (a result of output opens its run's terminal at that moment, the match highlighted), Esc goes
 * back to the field.
 */
export function SearchPage() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const view = searchViewFromSearch(search);
  const [typed, setTyped] = useState(view.query);
  const [limit, setLimit] = useState(pageSize);
  const fieldRef = useRef<HTMLInputElement>(null);
  const resultsRef = useRef<HTMLOListElement>(null);
  const ids = { field: useId(), from: useId(), to: useId() };
  const client = useOperatorClient();
  const agents = useAgents();
  const projects = useProjects();

  const change = (next: Partial<SearchView>) => {
    setLimit(pageSize);
    navigate(searchViewPath({ ...view, ...next }), { replace: true });
  };

  // The field is the page's first stop: focused when the page opens (and the palette sends a query here).
  useEffect(() => {
    fieldRef.current?.focus();
  }, []);

  // What is typed reaches the address (and the search) once typing settles.
  useEffect(() => {
    if (typed === view.query) return;
    const timer = setTimeout(() => change({ query: typed }), typingSettleMs);
    return () => clearTimeout(timer);
  });

  const request = searchRequest(view, limit);
  const results = useQuery({
    queryKey: ['search', request],
    queryFn: () => client.searchOutput(request!),
    enabled: request !== null,
    placeholderData: keepPreviousData,
    // While the index is still being built, ask again: results grow as it catches up.
    refetchInterval: (query) => (query.state.data && !query.state.data.index.complete ? 1000 : false),
  });

  const moveFocus = (event: KeyboardEvent<HTMLElement>, from: 'field' | number) => {
    const links = [...(resultsRef.current?.querySelectorAll<HTMLAnchorElement>('a.search-result__link') ?? [])];
    const at = from === 'field' ? -1 : from;
    let next: number | null = null;
    if (event.key === 'ArrowDown') next = Math.min(links.length - 1, at + 1);
    else if (event.key === 'ArrowUp' && from !== 'field') next = at - 1;
    else if (event.key === 'Home' && from !== 'field') next = 0;
    else if (event.key === 'End' && from !== 'field') next = links.length - 1;
    else if (event.key === 'Escape' && from !== 'field') next = -1;
    if (next === null || links.length === 0) return;
    event.preventDefault();
    if (next < 0) fieldRef.current?.focus();
    else links[next]?.focus();
  };

  const agentList = agents.data ?? [];
  const projectList = projects.data ?? [];
  const data = results.data;
  // Times read "5 min ago": kept fresh while the page is open.
  const now = useNow(true, 60_000);

  return (
    <Page title="Search" subtitle="Everything your runs printed, their timelines, tasks and notices." className="search-page">
      <form className="search-form" role="search" aria-label="Search runs" onSubmit={(event) => event.preventDefault()}>
        <div className="search-form__query">
          <label htmlFor={ids.field}>Search output</label>
          <input
            ref={fieldRef}
            id={ids.field}
            type="search"
            className="input search-form__input"
            value={typed}
            placeholder='Words, "a phrase", or a prefix*'
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => setTyped(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                if (typed !== view.query) change({ query: typed });
              } else moveFocus(event, 'field');
            }}
          />
        </div>
        <div className="filter-bar search-form__filters" role="group" aria-label="Filters">
          <FilterSelect
            label="Agent"
            anyLabel="Any agent"
            value={view.agentId}
            options={agentList.map((agent) => ({ value: agent.id, label: agent.name }))}
            onChange={(agentId) => change({ agentId })}
          />
          <FilterSelect
            label="Status"
            anyLabel="Any status"
            value={view.status}
            options={runStatuses.map((status) => ({ value: status, label: runStatusLabel(status) }))}
            onChange={(status) => change({ status: status as SearchView['status'] })}
          />
          <FilterSelect
            label="Project"
            anyLabel="Any project"
            value={view.projectId}
            options={projectList.map((project) => ({ value: project.id, label: project.name }))}
            onChange={(projectId) => change({ projectId })}
          />
          <div className="filter-bar__field">
            <label htmlFor={ids.from}>From</label>
            <input id={ids.from} type="date" className="input" value={view.from} max={view.to || undefined} onChange={(event) => change({ from: event.target.value })} />
          </div>
          <div className="filter-bar__field">
            <label htmlFor={ids.to}>To</label>
            <input id={ids.to} type="date" className="input" value={view.to} min={view.from || undefined} onChange={(event) => change({ to: event.target.value })} />
          </div>
        </div>
      </form>
      <SearchIndexProgress seen={data?.index} />
      {request === null ? (
        <EmptyState title="Type what you are looking for.">
          A word an agent printed, an error message, a file it changed. Quotes find a phrase, a trailing * a prefix.
        </EmptyState>
      ) : results.isError && !data ? (
        <ErrorAlert error={results.error} prefix="Could not search." />
      ) : !data ? (
        <p className="muted" aria-busy="true">
          Searching…
        </p>
      ) : (
        <>
          <p className="search-page__count muted" role="status">
            {data.results.length === 0 ? `Nothing found for “${view.query}”.` : `${data.results.length}${data.hasMore ? '+' : ''} results, ${data.order === 'relevance' ? 'best first' : 'newest first (more matches than are ranked by relevance)'}.`}
          </p>
          <ol ref={resultsRef} className="search-results" aria-label="Search results" aria-busy={results.isPlaceholderData || undefined}>
            {data.results.map((result, index) => (
              <SearchResultItem key={`${result.source}:${result.runId ?? ''}:${result.byteOffset ?? ''}:${result.taskId ?? ''}:${result.noticeId ?? ''}:${index}`} result={result} now={now} onKeyDown={(event) => moveFocus(event, index)} />
            ))}
          </ol>
          {data.hasMore && limit < maxResults ? (
            <button type="button" className="button button--small" onClick={() => setLimit((current) => Math.min(maxResults, current + pageSize))}>
              Show more results
            </button>
          ) : null}
        </>
      )}
    </Page>
  );
}

function SearchResultItem({ result, now, onKeyDown }: { result: SearchResult; now: number; onKeyDown: (event: KeyboardEvent<HTMLAnchorElement>) => void }) {
  return (
    <li className="search-result">
      <Link href={searchResultPath(result)} className="search-result__link" onKeyDown={onKeyDown}>
        <span className="search-result__title">
          {result.taskTitle ?? 'A notice'}
          {result.agentName ? <span className="muted"> — {result.agentName}</span> : null}
        </span>
        <span className="search-result__snippet">
          {result.snippet.map((piece, k) => (piece.match ? <mark key={k}>{piece.text}</mark> : <span key={k}>{piece.text}</span>))}
        </span>
      </Link>
      <span className="search-result__facts muted">
        <span>{searchSourceLabels[result.source]}</span>
        {result.runStatus ? <StatusBadge status={result.runStatus} /> : null}
        <time dateTime={result.at}>{formatTimestamp(result.at, now)}</time>
      </span>
    </li>
  );
}
