import { QueryClient } from '@tanstack/react-query';
import { isOperatorError } from '../../shared/errors';

/**
 * Server data lives here. Pushed events and reconnects invalidate it, so there is no polling and no
 * refetch on focus. An OperatorError is an answer, not a glitch: retrying it would only repeat it.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (failureCount, error) => !isOperatorError(error) && failureCount < 1,
      },
      mutations: { retry: false },
    },
  });
}
