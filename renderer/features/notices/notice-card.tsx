import { useId, useRef } from 'react';
import { Link, useLocation } from 'wouter';
import type { Notice, RunSummary } from '../../../shared/entities';
import { ErrorAlert } from '../../ui/error-alert';
import { safeActionHref } from '../../ui/error-message';
import { formatFullTimestamp, formatTimestamp } from '../../ui/format';
import { useNow } from '../../ui/use-now';
import { DataFolderAction, isAboutDataFolder } from './data-folder-action';
import { FetchWorkAgainAction, isAboutWorkLeftOnHost } from './fetch-work-again-action';
import { noticeState, noticeWording, rerunLinks, severityInfo } from './notice-state';
import { useDismissNotice, useRunAgain } from './use-notices';

/**
 * One notice: what happened, what to do, and the link to where to do it. When its cause is gone it
 * says Resolved and, for a refusal, offers Run again, then links to the run(s) that started; Dismiss
 * puts it away, open or (declining Run again) resolved. The Notices page lists these; a refused run's
 * detail shows its own inline.
 */
export function NoticeCard({
  notice,
  onRanAgain,
  className,
}: {
  notice: Notice;
  /** Told after Run again started something, so a list can keep the notice in view with its links. */
  onRanAgain?: (noticeId: string) => void;
  className?: string;
}) {
  const titleId = useId();
  const dismiss = useDismissNotice();
  const runAgain = useRunAgain();
  // A double-click lands both clicks before React re-renders with isPending: the ref holds the second back,
  // so it neither sends a second request nor replaces the first answer with "already ran".
  const runAgainSent = useRef(false);
  const severity = severityInfo(notice.severity);
  const state = noticeState(notice);
  const [path] = useLocation();
  // A resolved notice's fix is made; a link to the page already shown (a run's own) leads nowhere.
  const linked = safeActionHref(notice.actionUrl);
  const actionHref = notice.status === 'resolved' || linked === `#${path}` ? undefined : linked;
  const actionLabel = notice.actionLabel ?? 'Open the setting that fixes this';
  const started: RunSummary[] | undefined = runAgain.data?.runs;
  const links = rerunLinks(notice.rerunRunIds, started);
  // For saying whether a time was today: the time this was shown, not a ticking clock.
  const now = useNow(false);
  const wording = noticeWording(notice);

  return (
    <article
      className={`notice notice--${notice.severity}${notice.status === 'open' ? '' : ' notice--closed'}${state === 'can-run-again' ? ' notice--ready' : ''}${className ? ` ${className}` : ''}`}
      aria-labelledby={titleId}
      data-notice-status={notice.status}
    >
      <header className="notice__header">
        {notice.status === 'resolved' ? (
          <span className="status-badge tone-success">
            <span className="status-badge__mark" aria-hidden="true" />
            Resolved
          </span>
        ) : notice.status === 'dismissed' ? (
          <span className="status-badge tone-muted">
            <span className="status-badge__mark" aria-hidden="true" />
            Dismissed
          </span>
        ) : (
          <span className={`status-badge tone-${severity.tone}`}>
            <span className="status-badge__mark" aria-hidden="true" />
            {severity.label}
          </span>
        )}
        <h2 id={titleId} className="notice__title">
          {notice.title}
        </h2>
        <time className="notice__time muted" dateTime={notice.createdAt} title={formatFullTimestamp(notice.createdAt)}>
          {formatTimestamp(notice.createdAt, now)}
        </time>
      </header>
      <p className="notice__message">{wording.message}</p>
      {notice.status !== 'open' && notice.resolvedAt ? (
        <p className="notice__closed muted">
          {notice.status === 'resolved' ? 'Resolved' : 'Dismissed'}{' '}
          <time dateTime={notice.resolvedAt} title={formatFullTimestamp(notice.resolvedAt)}>
            {formatTimestamp(notice.resolvedAt, now)}
          </time>
          {notice.status === 'resolved' && state === 'can-run-again'
            ? standsForStartedRuns(notice.kind)
              ? '. Run again starts its task once more.'
              : '. Run again starts the refused task once more.'
            : '.'}
        </p>
      ) : null}
      {wording.earlier ? <p className="notice__earlier muted">It had said: {wording.earlier}</p> : null}

      <div className="notice__actions">
        {state === 'can-run-again' ? (
          <button
            type="button"
            className="button button--primary"
            aria-describedby={titleId}
            aria-disabled={runAgain.isPending || undefined}
            onClick={() => {
              if (runAgain.isPending || runAgainSent.current) return;
              runAgainSent.current = true;
              runAgain.mutate(notice.id, {
                onSuccess: () => onRanAgain?.(notice.id),
                onError: () => {
                  runAgainSent.current = false;
                },
              });
            }}
          >
            Run again
          </button>
        ) : null}
        {actionHref ? (
          <a className={`button${notice.status === 'open' ? ' button--primary' : ''}`} href={actionHref}>
            {actionLabel}
          </a>
        ) : null}
        {state === 'open' || state === 'can-run-again' ? (
          <button
            type="button"
            className="button"
            aria-describedby={titleId}
            aria-disabled={dismiss.isPending || undefined}
            onClick={() => {
              if (!dismiss.isPending) dismiss.mutate(notice.id);
            }}
          >
            Dismiss
          </button>
        ) : null}
      </div>
      {notice.status === 'open' && isAboutDataFolder(notice.kind) ? <DataFolderAction labelledBy={titleId} /> : null}
      {notice.status === 'open' && notice.runId && isAboutWorkLeftOnHost(notice.kind) ? <FetchWorkAgainAction runId={notice.runId} labelledBy={titleId} /> : null}

      <div className="notice__outcome" aria-live="polite">
        {runAgain.isPending ? <p className="muted">Starting the task again…</p> : null}
        {runAgain.data?.alreadyRan ? <p>This notice had already run its task again; nothing new was started.</p> : null}
        {runAgain.data && !runAgain.data.alreadyRan && runAgain.data.runs.length === 0 ? (
          <p>Nothing was started: the refused task or its agent is no longer in the console.</p>
        ) : null}
        {links.length > 0 ? (
          <p className="notice__reruns">
            <span>Started again:</span>
            {links.map((link, index) => (
              <Link
                key={link.runId}
                href={`/runs/${encodeURIComponent(link.runId)}`}
                className={`button button--small${index === 0 ? ' button--primary' : ''}`}
              >
                {link.label}
              </Link>
            ))}
          </p>
        ) : null}
      </div>
      {runAgain.isError ? <ErrorAlert error={runAgain.error} prefix="Could not run the task again." /> : null}
      {dismiss.isError ? <ErrorAlert error={dismiss.error} prefix="Could not dismiss this notice." /> : null}
    </article>
  );
}

/** Notices that stand for runs that started too (a blocked request, a run that crossed its budget or that it could not count), not only refused ones. */
function standsForStartedRuns(kind: string): boolean {
  return kind === 'network_blocked' || kind === 'budget_exhausted' || kind === 'budget_unpriced';
}
