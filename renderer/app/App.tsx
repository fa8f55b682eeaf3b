import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { NotificationsHost } from '../features/notifications/notifications-host';
import { useState } from 'react';
import { Router } from 'wouter';
import type { OperatorClient } from '../../shared/contract';
import { AppLayout } from './app-layout';
import { AppRoutes } from './app-routes';
import { ConsoleRestartedGate } from './console-restarted';
import { hashHref, useHashRouteLocation, useHashRouteSearch } from './hash-location';
import { OperatorClientProvider } from './operator-context';
import { PageErrorBoundary } from './page-error-boundary';
import { createQueryClient } from './query-client';
import { useCoreSync } from './use-core-sync';
import './app.css';

function CoreSync() {
  useCoreSync();
  return null;
}

export function App({ client, queryClient }: { client: OperatorClient; queryClient?: QueryClient }) {
  const [queries] = useState(() => queryClient ?? createQueryClient());
  return (
    <OperatorClientProvider client={client}>
      <QueryClientProvider client={queries}>
        <CoreSync />
        <NotificationsHost />
        <ConsoleRestartedGate>
          <Router hook={useHashRouteLocation} searchHook={useHashRouteSearch} hrefs={hashHref}>
            <AppLayout>
              <PageErrorBoundary>
                <AppRoutes />
              </PageErrorBoundary>
            </AppLayout>
          </Router>
        </ConsoleRestartedGate>
      </QueryClientProvider>
    </OperatorClientProvider>
  );
}
