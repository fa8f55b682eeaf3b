import { useEffect, useRef, type ReactNode } from 'react';
import type { RunEvent } from '../../../shared/entities';
import { EmptyState } from '../../ui/empty-state';
import { formatFullTimestamp, formatTimestamp, pluralize } from '../../ui/format';
import { Loading, QueryError } from '../../ui/query-error';
import { useNow } from '../../ui/use-now';
import { RunPanel } from './run-panel';
import { describeRunEvent } from './timeline-entry';
import { maxTimelineEntries, useRunTimeline } from './use-runs';

const clockFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

/** Times inside entries (a retry, a quota reset) read as a clock, to the second. */
function clockTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : clockFormat.format(date);
}

function TimelineItem({ event, now, showAttempt }: { event: RunEvent; now: number; showAttempt: boolean }) {
  const entry = describeRunEvent(event, clockTime);
  return (
    <li className={`timeline__entry tone-${entry.tone}${entry.consoleNote ? ' timeline__entry--note' : ''}`} data-kind={event.kind}>
      <div className="timeline__meta">
        <span className="timeline__label">{entry.label}</span>
        {showAttempt && event.attempt !== null ? <span className="muted">attempt {event.attempt}</span> : null}
        <time className="timeline__time muted" dateTime={event.at} title={formatFullTimestamp(event.at)}>
          {formatTimestamp(event.at, now)}
        </time>
      </div>
      {entry.text ? <p className={`timeline__text${event.kind === 'raw' || event.kind === 'file_change' ? ' timeline__text--mono' : ''}`}>{entry.text}</p> : null}
      {entry.detail ? <p className="timeline__detail">{entry.detail}</p> : null}
    </li>
  );
}

/**
 * The list carries the name "Timeline" (its heading); the section around it does not, so the two are
 * never two landmarks of the same name.
 *
 * What the CLI reported as structured events (messages, tool calls, file changes, usage) and the
 * console's own notes (retries, quota waits, resumes), newest at the bottom like the terminal. It
 * follows new entries while the operator is at the bottom, and stays put when they scrolled up.
 */
export function RunTimeline({ runId, multipleAttempts }: { runId: string; multipleAttempts: boolean }) {
  const timeline = useRunTimeline(runId);
  const listRef = useRef<HTMLOListElement>(null);
  const stickToBottom = useRef(true);
  const count = timeline.data?.events.length ?? 0;
  // For saying whether an entry was today: the time the timeline was shown, not a ticking clock.
  const now = useNow(false);

  useEffect(() => {
    const list = listRef.current;
    if (list && stickToBottom.current) list.scrollTop = list.scrollHeight;
  }, [count]);

  let body: ReactNode | ((headingId: string) => ReactNode);
  if (timeline.isPending) body = <Loading what="the timeline" />;
  else if (timeline.isError && count === 0) {
    body = <QueryError what="the timeline" error={timeline.error} onRetry={() => void timeline.refetch()} />;
  } else if (count === 0) {
    body = (
      <EmptyState title="Nothing on the timeline yet">
        <p>Messages, tool calls, file changes and token usage appear here when the CLI reports them as JSON events.</p>
      </EmptyState>
    );
  } else {
    body = (headingId: string) => (
      <ol
        ref={listRef}
        className="timeline"
        aria-labelledby={headingId}
        tabIndex={0}
        onScroll={(event) => {
          const list = event.currentTarget;
          stickToBottom.current = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
        }}
      >
        {timeline.data!.events.map((event) => (
          <TimelineItem key={event.id} event={event} now={now} showAttempt={multipleAttempts} />
        ))}
      </ol>
    );
  }

  return (
    <RunPanel
      title="Timeline"
      className="run-panel--timeline"
      headerExtra={
        count > 0 ? (
          <span className="muted">
            {pluralize(count, 'entry', 'entries')}
            {count >= maxTimelineEntries ? ' (newest)' : ''}
          </span>
        ) : null
      }
    >
      {body}
    </RunPanel>
  );
}
