import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import type { Notice } from '../../../shared/entities';
import { useOperatorClient } from '../../app/operator-context';
import { queryKeys } from '../../app/query-keys';
import { useUiStore } from '../../state/ui-store';
import { EmptyState } from '../../ui/empty-state';
import { operatorMessage, safeActionHref } from '../../ui/error-message';
import { formatFullTimestamp, formatTimestamp } from '../../ui/format';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';

const severityLabels: Record<Notice['severity'], { label: string; tone: string }> = {
  error: { label: 'Error', tone: 'danger' },
  warning: { label: 'Warning', tone: 'warning' },
  info: { label: 'Info', tone: 'progress' },
};

const closedLabels: Record<Exclude<Notice['status'], 'open'>, string> = {
  resolved: 'Resolved',
  dismissed: 'Dismissed',
};

function NoticeItem({ notice }: { notice: Notice }) {
  const client = useOperatorClient();
  const queryClient = useQueryClient();
  const titleId = useId();
  const dismiss = useMutation({
    mutationFn: () => client.dismissNotice({ noticeId: notice.id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.noticesAll }),
  });
  const severity = severityLabels[notice.severity];
  const actionHref = safeActionHref(notice.actionUrl);
  const now = Date.now();

  return (
    <li className={`notice notice--${notice.severity}${notice.status === 'open' ? '' : ' notice--closed'}`}>
      <article aria-labelledby={titleId}>
        <header className="notice__header">
          <span className={`status-badge tone-${severity.tone}`}>
            <span className="status-badge__mark" aria-hidden="true" />
            {severity.label}
          </span>
          <h2 id={titleId} className="notice__title">
            {notice.title}
          </h2>
          <time className="notice__time muted" dateTime={notice.createdAt} title={formatFullTimestamp(notice.createdAt)}>
            {formatTimestamp(notice.createdAt, now)}
          </time>
        </header>
        <p className="notice__message">{notice.message}</p>
        <div className="notice__actions">
          {actionHref ? (
            <a className="button button--primary" href={actionHref}>
              {notice.actionLabel ?? 'Open the setting'}
            </a>
          ) : null}
          {notice.status === 'open' ? (
            <button
              type="button"
              className="button"
              aria-describedby={titleId}
              aria-disabled={dismiss.isPending || undefined}
              onClick={() => {
                if (!dismiss.isPending) dismiss.mutate();
              }}
            >
              Dismiss
            </button>
          ) : (
            <span className="notice__closed muted">
              {closedLabels[notice.status]}
              {notice.resolvedAt ? ` ${formatTimestamp(notice.resolvedAt, now)}` : ''}
            </span>
          )}
        </div>
        {dismiss.isError ? (
          <p className="form-error" role="alert">
            Could not dismiss this notice. {operatorMessage(dismiss.error)}
          </p>
        ) : null}
      </article>
    </li>
  );
}

export function NoticesPage() {
  const client = useOperatorClient();
  const showClosed = useUiStore((state) => state.showClosedNotices);
  const setShowClosed = useUiStore((state) => state.setShowClosedNotices);
  const status = showClosed ? 'all' : 'open';
  const notices = useQuery({ queryKey: queryKeys.notices(status), queryFn: () => client.listNotices({ status }) });
  const toggleId = useId();

  let body;
  if (notices.isPending) body = <Loading what="notices" />;
  else if (notices.isError) body = <QueryError what="notices" error={notices.error} onRetry={() => void notices.refetch()} />;
  else if (notices.data.length === 0) {
    body = (
      <EmptyState title="No notices — nothing needs your attention.">
        <p>When a run needs you (a missing AI connection, an expired login, a CLI that is not installed), a notice appears here with a link to the fix.</p>
      </EmptyState>
    );
  } else {
    body = (
      <ul className="notice-list" aria-label={showClosed ? 'All notices' : 'Open notices'}>
        {notices.data.map((notice) => (
          <NoticeItem key={notice.id} notice={notice} />
        ))}
      </ul>
    );
  }

  return (
    <Page
      title="Notices"
      className="notices-page"
      actions={
        <label className="toggle" htmlFor={toggleId}>
          <input id={toggleId} type="checkbox" checked={showClosed} onChange={(event) => setShowClosed(event.target.checked)} />
          Show resolved and dismissed
        </label>
      }
    >
      {body}
    </Page>
  );
}
