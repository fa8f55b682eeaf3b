import { useSyncExternalStore } from 'react';
import { darkSchemeQuery } from './terminal-theme';

function subscribe(onChange: () => void): () => void {
  const query = matchMedia(darkSchemeQuery);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** Whether the system asks for dark colours, following changes while the console is open. */
export function useDarkScheme(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => matchMedia(darkSchemeQuery).matches,
    () => false,
  );
}
