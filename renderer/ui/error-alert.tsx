import { operatorActionUrl, operatorMessage } from './error-message';

/**
 * A failed action, inline where it happened: the core's message (which names the fix) and, when the
 * error carries one, a link to the setting that fixes it.
 */
export function ErrorAlert({ error, prefix }: { error: unknown; prefix?: string | undefined }) {
  const actionUrl = operatorActionUrl(error);
  return (
    <div className="form-error" role="alert">
      <p>
        {prefix ? `${prefix} ` : ''}
        {operatorMessage(error)}
      </p>
      {actionUrl ? (
        <p className="form-error__action">
          <a href={actionUrl}>Open the setting that fixes this</a>
        </p>
      ) : null}
    </div>
  );
}
