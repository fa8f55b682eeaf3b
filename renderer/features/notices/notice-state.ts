import type { Notice, RunSummary } from '../../../shared/entities';
import type { StatusTone } from '../../ui/run-status';

/** Notices in words and groups. Pure, so it is tested without a DOM. */

const severities: Record<Notice['severity'], { label: string; tone: StatusTone }> = {
  error: { label: 'Error', tone: 'danger' },
  warning: { label: 'Warning', tone: 'warning' },
  info: { label: 'Info', tone: 'progress' },
};

export function severityInfo(severity: Notice['severity']): { label: string; tone: StatusTone } {
  return severities[severity];
}

export type NoticeState = 'open' | 'can-run-again' | 'ran-again' | 'resolved' | 'dismissed';

export function noticeState(notice: Pick<Notice, 'status' | 'canRunAgain' | 'rerunRunIds'>): NoticeState {
  if (notice.status === 'open') return 'open';
  if (notice.status === 'dismissed') return 'dismissed';
  if (notice.canRunAgain) return 'can-run-again';
  return notice.rerunRunIds.length > 0 ? 'ran-again' : 'resolved';
}

/**
 * What a notice says now. An open one asks for its fix; a closed one must not still read "Choose an
 * AI connection for …" as if nothing had happened: it says what fixed it (in the past tense), and
 * keeps what it had asked as a quieter line beneath.
 */
export function noticeWording(notice: Pick<Notice, 'status' | 'message' | 'resolution'>): { message: string; earlier: string | null } {
  if (notice.status === 'open') return { message: notice.message, earlier: null };
  if (notice.status === 'dismissed') return { message: 'You dismissed this notice.', earlier: notice.message };
  return { message: notice.resolution ?? 'Its cause was fixed.', earlier: notice.message };
}

export interface RerunLink {
  runId: string;
  label: string;
}

/**
 * Links to the runs Run again started: the ones just started (with their task titles) and the ones
 * the notice records, each once. One run reads "Open the new run".
 */
export function rerunLinks(recorded: readonly string[], started: readonly Pick<RunSummary, 'id' | 'taskTitle'>[] | undefined): RerunLink[] {
  const titles = new Map((started ?? []).map((run) => [run.id, run.taskTitle]));
  const ids = [...new Set([...(started ?? []).map((run) => run.id), ...recorded])];
  if (ids.length === 1) return [{ runId: ids[0]!, label: 'Open the new run' }];
  return ids.map((runId, index) => {
    const title = titles.get(runId);
    return { runId, label: title ? `Open the new run of ${title}` : `Open new run ${index + 1}` };
  });
}

export interface NoticeGroups {
  /** Needs the operator: each links to its fix. */
  open: Notice[];
  /** Resolved, with a refused task to run again (or just run again from this page). */
  ready: Notice[];
  /** Everything else that has closed; shown on request. */
  closed: Notice[];
}

/**
 * Splits the full list (status `all`) for the Notices page. A resolved notice leaves the open list,
 * but while it can still Run again it stays in view; so does one run again from this page, so its
 * link to the new run does not vanish under the operator's pointer.
 */
export function groupNotices(notices: readonly Notice[], keepInView: ReadonlySet<string>): NoticeGroups {
  const groups: NoticeGroups = { open: [], ready: [], closed: [] };
  for (const notice of notices) {
    const state = noticeState(notice);
    if (state === 'open') groups.open.push(notice);
    else if (state === 'can-run-again' || (state === 'ran-again' && keepInView.has(notice.id))) groups.ready.push(notice);
    else groups.closed.push(notice);
  }
  return groups;
}
