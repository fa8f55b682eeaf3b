import { useSyncExternalStore } from 'react';

/**
 * Hash routing for wouter that keeps a query inside the hash (`#/tasks?project=prj_1`, as built by
 * shared/routes.ts) out of the matched path, and never touches the page's real query string: the
 * browser host's per-launch token lives there (`/?token=...`), and wouter's stock hash hook would
 * overwrite it when navigating to a path with a query.
 */

const hashPrefix = /^#?\/?/;

/** Splits a location hash into the path the router matches and the query that follows it. */
export function splitHashRoute(hash: string): { path: string; search: string } {
  const raw = hash.replace(hashPrefix, '');
  const queryStart = raw.indexOf('?');
  if (queryStart === -1) return { path: `/${raw}`, search: '' };
  return { path: `/${raw.slice(0, queryStart)}`, search: raw.slice(queryStart + 1) };
}

function subscribeToHash(onChange: () => void): () => void {
  addEventListener('hashchange', onChange);
  return () => removeEventListener('hashchange', onChange);
}

const currentPath = () => splitHashRoute(location.hash).path;
const currentSearch = () => splitHashRoute(location.hash).search;

export function navigateHash(to: string, options: { replace?: boolean; state?: unknown } = {}): void {
  const oldURL = location.href;
  const url = new URL(oldURL);
  url.hash = `/${to.replace(hashPrefix, '')}`;
  const newURL = url.href;
  if (newURL === oldURL) return;
  history[options.replace ? 'replaceState' : 'pushState'](options.state ?? null, '', newURL);
  // pushState does not fire hashchange; the router listens for it.
  dispatchEvent(new HashChangeEvent('hashchange', { oldURL, newURL }));
}

export function useHashRouteLocation(): [string, typeof navigateHash] {
  return [useSyncExternalStore(subscribeToHash, currentPath, () => '/'), navigateHash];
}

export function useHashRouteSearch(): string {
  return useSyncExternalStore(subscribeToHash, currentSearch, () => '');
}

export const hashHref = (href: string) => `#${href}`;
