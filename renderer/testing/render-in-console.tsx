import { QueryClientProvider } from '@tanstack/react-query';
import { render, type RenderResult } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { Router } from 'wouter';
import { hashHref, navigateHash, splitHashRoute, useHashRouteLocation, useHashRouteSearch } from '../app/hash-location';
import { OperatorClientProvider } from '../app/operator-context';
import { createQueryClient } from '../app/query-client';
import type { FakeOperatorClient } from './fake-operator-client';

/**
 * Renders a component as the app does (App.tsx): under the operator client, the app's own query
 * client and its hash router, at `route`. Returns Testing Library's queries and a user-event
 * session (which also gives the page a clipboard to read back).
 */
export function renderInConsole(
  ui: ReactElement,
  { client, route = '/' }: { client: FakeOperatorClient; route?: string },
): RenderResult & { user: UserEvent } {
  navigateHash(route, { replace: true });
  const user = userEvent.setup();
  const queries = createQueryClient();
  const result = render(
    <OperatorClientProvider client={client}>
      <QueryClientProvider client={queries}>
        <Router hook={useHashRouteLocation} searchHook={useHashRouteSearch} hrefs={hashHref}>
          {ui}
        </Router>
      </QueryClientProvider>
    </OperatorClientProvider>,
  );
  return { ...result, user };
}

/** The route the page shows now (`/runs/run_2`). */
export function currentRoute(): string {
  return splitHashRoute(window.location.hash).path;
}
