import { operatorActionUrl, operatorMessage } from './error-message';

/** A failed load: what went wrong, in words, and a way to try again. */
export function QueryError({ what, error, onRetry }: { what: string; error: unknown; onRetry: () => void }) {
  const actionUrl = operatorActionUrl(error);
  return (
    <div className="query-error" role="alert">
      <p className="query-error__title">Could not load {what}.</p>
      <p className="query-error__message">{operatorMessage(error)}</p>
      <div className="query-error__actions">
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
        {actionUrl ? (
          <a className="button button--link" href={actionUrl}>
            Open the setting that fixes this
          </a>
        ) : null}
      </div>
    </div>
  );
}

/** A quiet placeholder while data loads; not a live region, so it never competes with the status bar. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" aria-busy="true">
      Loading {what}…
    </p>
  );
}
