import { useId, useState, type ReactNode } from 'react';
import type { Notice } from '../../../shared/entities';
import { useUiStore } from '../../state/ui-store';
import { EmptyState } from '../../ui/empty-state';
import { Page } from '../../ui/page';
import { Loading, QueryError } from '../../ui/query-error';
import { NoticeCard } from './notice-card';
import { groupNotices } from './notice-state';
import { useNotices } from './use-notices';

function NoticeGroup({ label, notices, onRanAgain }: { label: string; notices: Notice[]; onRanAgain: (noticeId: string) => void }): ReactNode {
  const labelId = useId();
  if (notices.length === 0) return null;
  return (
    <div className="notice-group">
      <p id={labelId} className="notice-group__label">
        {label} <span className="notice-group__count">({notices.length})</span>
      </p>
      <ul className="notice-list" aria-labelledby={labelId}>
        {notices.map((notice) => (
          <li key={notice.id}>
            <NoticeCard notice={notice} onRanAgain={onRanAgain} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Open notices first; then resolved ones that can still Run again, which left the open list (and the
 * badge) but still have something for the operator to do; the rest on request.
 */
export function NoticesPage() {
  const showClosed = useUiStore((state) => state.showClosedNotices);
  const setShowClosed = useUiStore((state) => state.setShowClosedNotices);
  const notices = useNotices('all');
  const [ranHere, setRanHere] = useState<ReadonlySet<string>>(() => new Set());
  const toggleId = useId();
  const onRanAgain = (noticeId: string) => setRanHere((current) => new Set([...current, noticeId]));

  let body;
  if (notices.isPending) body = <Loading what="notices" />;
  else if (notices.isError) body = <QueryError what="notices" error={notices.error} onRetry={() => void notices.refetch()} />;
  else {
    const groups = groupNotices(notices.data, ranHere);
    const nothingToDo = groups.open.length === 0 && groups.ready.length === 0;
    body = (
      <>
        {nothingToDo ? (
          <EmptyState title="No notices — nothing needs your attention.">
            <p>
              When a run needs you (a missing AI connection, an expired login, a CLI that is not installed), a notice appears
              here with a link to the fix.
            </p>
          </EmptyState>
        ) : null}
        <NoticeGroup label="Open" notices={groups.open} onRanAgain={onRanAgain} />
        <NoticeGroup label="Resolved" notices={groups.ready} onRanAgain={onRanAgain} />
        {showClosed ? <NoticeGroup label="Closed" notices={groups.closed} onRanAgain={onRanAgain} /> : null}
        {showClosed && groups.closed.length === 0 ? <p className="muted">No resolved or dismissed notices.</p> : null}
      </>
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
