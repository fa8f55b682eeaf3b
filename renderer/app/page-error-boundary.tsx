import { useQueryClient } from '@tanstack/react-query';
import type { ErrorInfo, ReactNode } from 'react';
import { ErrorBoundary, type FallbackProps } from 'react-error-boundary';
import { useLocation } from 'wouter';
import { useLogInfo } from '../features/settings/log-folder';
import { Page } from '../ui/page';
import { useOperatorClient } from './operator-context';

/**
 * A page that throws while rendering shows what happened, Reload and where the log is, instead of
 * taking the whole window down: the navigation and the status bar stay. Moving to another page
 * starts afresh (the boundary resets on every route). The error goes to the console's log.
 */
export function PageErrorBoundary({ children }: { children: ReactNode }) {
  const [path] = useLocation();
  const client = useOperatorClient();
  const report = (error: unknown, info: ErrorInfo) => {
    const thrown = error instanceof Error ? error : new Error(String(error));
    void client
      .reportRendererError({
        message: thrown.message.slice(0, 2000),
        ...(thrown.stack ? { stack: thrown.stack.slice(0, 20_000) } : {}),
        ...(info.componentStack ? { componentStack: info.componentStack.slice(0, 20_000) } : {}),
        route: path.slice(0, 1000),
      })
      .catch(() => undefined);
  };
  return (
    <ErrorBoundary FallbackComponent={PageCrash} resetKeys={[path]} onError={report}>
      {children}
    </ErrorBoundary>
  );
}

function PageCrash({ error, resetErrorBoundary }: FallbackProps) {
  const queryClient = useQueryClient();
  const logInfo = useLogInfo();
  const message = error instanceof Error ? error.message : String(error);
  const logFile = logInfo.data?.logFile;
  return (
    <Page title="This page stopped working">
      <div className="query-error" role="alert">
        <p className="query-error__title">Something on this page failed while it was being shown.</p>
        <p className="query-error__message">
          What happened: <code>{message || 'an error without a message'}</code>
        </p>
        <p className="query-error__message">
          {logFile ? (
            <>
              The details are in the console’s log, <code>{logFile}</code> (Settings → About opens its folder).
            </>
          ) : (
            'The details are in the console’s log.'
          )}{' '}
          Reload shows the page again with fresh data; the other pages work as before.
        </p>
        <div className="query-error__actions">
          <button
            type="button"
            className="button button--primary"
            onClick={() => {
              // Without the answers held in the cache: a bad one would only throw again. The page's own
              // queries are inactive while this shows, so resetting drops them and the page fetches anew.
              void queryClient.resetQueries();
              resetErrorBoundary();
            }}
          >
            Reload
          </button>
        </div>
      </div>
    </Page>
  );
}
