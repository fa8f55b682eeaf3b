import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { attentionEvents, type NotificationSettings } from '../../../shared/attention';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { ErrorAlert } from '../../ui/error-alert';
import { Loading, QueryError } from '../../ui/query-error';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { attentionEventLabels, permissionText } from './notification-labels';
import { browserNotificationApi, notificationPermission, type NotificationPermissionState } from './show-notification';
import { useNotificationSettings, useSetNotificationSettings } from './use-notification-settings';

/** The browser's permission for this page, kept current when the operator changes it in the browser. */
function useNotificationPermission(): { state: NotificationPermissionState; request: () => Promise<void>; asked: boolean } {
  const [state, setState] = useState(() => notificationPermission(browserNotificationApi()));
  const [asked, setAsked] = useState(false);
  useEffect(() => {
    const read = () => setState(notificationPermission(browserNotificationApi()));
    let status: PermissionStatus | undefined;
    let cancelled = false;
    // The browser's prompt, or its site settings, can change it while the page is open.
    navigator.permissions?.query({ name: 'notifications' }).then(
      (answer) => {
        if (cancelled) return;
        status = answer;
        answer.addEventListener('change', read);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
      status?.removeEventListener('change', read);
    };
  }, []);
  const request = async () => {
    const api = browserNotificationApi();
    if (!api) return;
    await api.requestPermission();
    setAsked(true);
    setState(notificationPermission(api));
  };
  return { state, request, asked };
}

function BrowserPermission() {
  const { state, request, asked } = useNotificationPermission();
  const text = permissionText(state);
  return (
    <div className="notification-permission">
      <dl className="facts">
        <dt>This browser</dt>
        <dd>{text.status}</dd>
      </dl>
      {text.advice ? (
        <p className={state === 'denied' ? 'callout callout--warning' : 'field__hint'} role={asked ? 'status' : undefined}>
          {asked && state === 'denied' ? 'The browser answered that notifications stay blocked. ' : ''}
          {text.advice}
        </p>
      ) : null}
      {state === 'default' || state === 'denied' ? (
        <div>
          <button type="button" className="button" onClick={() => void request()}>
            Allow notifications
          </button>
        </div>
      ) : null}
    </div>
  );
}

function SettingsForm({ settings }: { settings: NotificationSettings }) {
  const save = useSetNotificationSettings();
  const submission = useSingleSubmit();
  const [draft, setDraft] = useState(settings);
  const legendId = useId();
  const update = (next: NotificationSettings) => {
    save.reset();
    setDraft(next);
  };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => save.mutateAsync(draft));
  };

  return (
    <form className="dialog-form notification-settings" onSubmit={submit} aria-label="Notification settings">
      <fieldset className="form-section" aria-labelledby={legendId}>
        <legend id={legendId} className="form-section__legend">
          Notify me when
        </legend>
        {attentionEvents.map((event) => (
          <label key={event} className="toggle">
            <input
              type="checkbox"
              checked={draft.events[event]}
              onChange={(input) => update({ ...draft, events: { ...draft.events, [event]: input.target.checked } })}
            />
            {attentionEventLabels[event]}
          </label>
        ))}
      </fieldset>
      <label className="toggle">
        <input type="checkbox" checked={draft.quietWhenFocused} onChange={(event) => update({ ...draft, quietWhenFocused: event.target.checked })} />
        Quiet while the console window has focus
      </label>
      <label className="toggle">
        <input type="checkbox" checked={draft.sound} onChange={(event) => update({ ...draft, sound: event.target.checked })} />
        Play a sound
      </label>
      <p className="field__hint">Each event notifies once; many at once (runs ending together) become one summary.</p>
      <div>
        <button type="submit" className="button button--primary" aria-disabled={submission.pending || undefined}>
          Save notification settings
        </button>{' '}
        <span className="form-success" aria-live="polite">
          {save.isSuccess ? 'Saved.' : ''}
        </span>
      </div>
      {save.isError ? <ErrorAlert error={save.error} prefix="Could not save the notification settings." /> : null}
    </form>
  );
}

/** Settings → Notifications: which events notify, quiet while focused, sound, and (browser) the permission. */
export function NotificationsSection() {
  const client = useOperatorClient();
  const settings = useNotificationSettings();
  const info = useQuery({ queryKey: queryKeys.systemInfo, queryFn: () => client.getSystemInfo(), staleTime: Infinity });

  return (
    <section className="settings-section" aria-labelledby="settings-notifications-heading">
      <h2 id="settings-notifications-heading" className="section-title">
        Notifications
      </h2>
      <p className="field__hint">
        Desktop notifications when a run ends, waits for a quota reset, or needs you; a click opens it. The window title counts the open notices.
      </p>
      {info.data?.transport === 'browser' ? <BrowserPermission /> : null}
      {info.data?.transport === 'electron' ? <p className="field__hint">The desktop app shows them in your system’s notification area.</p> : null}
      {settings.isPending ? (
        <Loading what="the notification settings" />
      ) : settings.isError ? (
        <QueryError what="the notification settings" error={settings.error} onRetry={() => void settings.refetch()} />
      ) : (
        <SettingsForm settings={settings.data} />
      )}
    </section>
  );
}
