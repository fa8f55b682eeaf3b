import { randomUUID } from 'node:crypto';
import type { AttentionEvent, DesktopNotification, NotificationSettings } from '../../shared/attention';
import type { Notice, RunStatus } from '../../shared/entities';
import type { EventHub } from '../events/event-hub';
import type { RunEventBus, RunEventMap } from '../events/run-events';
import type { Ledger } from '../ledger/ledger';
import type { Logger } from '../platform/log';
import { describeEvent, describeSummary, type HeardEvent, type NoticeFacts, type RunFacts } from './attention-text';
import { readNotificationSettings, writeNotificationSettings } from './notification-settings';

/** How events are gathered into notifications. */
export interface AttentionTiming {
  /** A notification waits this long for more events (a refusal's notice, the rest of a flood)... */
  quietMs: number;
  /** ...but never longer than this after the first: the window is bounded. */
  maxWaitMs: number;
  /** This many notifications in one window become one summary. */
  floodCount: number;
  /** A window that opens this soon after a summary is more of the same flood: it is summarized too. */
  floodContinuesMs: number;
  /** An event heard later than this after it happened is history, not news: it never notifies. */
  maxEventAgeMs: number;
  /** Claims are kept this long (well past maxEventAgeMs, so a forgotten claim cannot notify again). */
  keepClaimsMs: number;
  pruneEveryMs: number;
}

export const defaultAttentionTiming: AttentionTiming = {
  quietMs: 600,
  maxWaitMs: 1500,
  floodCount: 3,
  floodContinuesMs: 3000,
  maxEventAgeMs: 10 * 60_000,
  keepClaimsMs: 2 * 24 * 60 * 60_000,
  pruneEveryMs: 6 * 60 * 60_000,
};

export interface AttentionServiceOptions {
  ledger: Ledger;
  /** Where it hears notices being raised, and where it pushes its notifications. */
  events: EventHub;
  /** Where it hears runs ending and attempts ending with a wait for a quota reset. */
  lifecycle: RunEventBus;
  log: Logger;
  now?: () => number;
  timing?: Partial<AttentionTiming>;
}

const endingEvents: Partial<Record<RunStatus, AttentionEvent>> = {
  succeeded: 'run_succeeded',
  failed: 'run_failed',
  refused: 'run_refused',
  stranded: 'run_stranded',
};

/** Failures whose retry waits for the provider's limit to lift (runs/attempt/judge.ts schedules it). */
const quotaLimits: Record<string, 'quota' | 'rate'> = { quota_exhausted: 'quota', rate_limited: 'rate' };

/**
 * Desktop notifications (issue 14): hears runs ending (succeeded, failed, refused, stranded) and a run
 * starting to wait for a quota reset on the run lifecycle's bus, and notices being raised on the
 * event hub, and pushes each once as a
 * `desktopNotification` event that the app shows (the Electron shell, or the browser page).
 *
 * - Once: every event is claimed in the ledger (notifications_sent) before it is told, so a second
 *   delivery of the same change, a second window or a restart never tells it again; and an event
 *   from before this service started (a previous console's) is not news.
 * - One story, one notification: a run that ended with a notice (a refusal, a missing CLI, a stranded
 *   run) and that notice are told together, with the notice's fix as the click.
 * - A flood (`floodCount` or more in one short, bounded window) becomes one summary.
 * - The operator's settings choose the events; the payload carries their sound and focus choices.
 */
export class AttentionService {
  private readonly ledger: Ledger;
  private readonly events: EventHub;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly timing: AttentionTiming;
  private readonly startedAt: number;
  /** Notices already looked at (new ones are found by what is open after each noticesChanged). */
  private readonly seenNotices = new Set<string>();
  private window: { openedAt: number; heard: HeardEvent[]; timer: NodeJS.Timeout | null } | null = null;
  private lastSummaryAt = Number.NEGATIVE_INFINITY;
  private cachedSettings: NotificationSettings | null = null;
  private readonly stopListening: Array<() => void>;
  private readonly pruneTimer: NodeJS.Timeout;
  private closed = false;

  constructor(options: AttentionServiceOptions) {
    this.ledger = options.ledger;
    this.events = options.events;
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.timing = { ...defaultAttentionTiming, ...options.timing };
    this.startedAt = this.now();
    // A throw in hearing says what went wrong, and the core goes on.
    const hearing = (event: string, look: () => void) => {
      try {
        look();
      } catch (error) {
        this.log.error('desktop notification not prepared', { event, error: error instanceof Error ? error.message : String(error) });
      }
    };
    this.stopListening = [
      options.lifecycle.on('runEnded', ({ runId }) => hearing('runEnded', () => this.lookAtEndedRun(runId))),
      options.lifecycle.on('attemptEnded', (attempt) => hearing('attemptEnded', () => this.lookAtQuotaWait(attempt))),
      this.events.listen((event) => {
        if (event === 'noticesChanged') hearing(event, () => this.lookAtNotices());
      }),
    ];
    this.prune();
    this.pruneTimer = setInterval(() => this.prune(), this.timing.pruneEveryMs);
    this.pruneTimer.unref();
  }

  settings(): NotificationSettings {
    this.cachedSettings ??= readNotificationSettings(this.ledger.settings);
    return structuredClone(this.cachedSettings);
  }

  setSettings(value: NotificationSettings): NotificationSettings {
    this.cachedSettings = writeNotificationSettings(this.ledger.settings, value, this.now());
    return structuredClone(this.cachedSettings);
  }

  /** The console is closing: nothing more is told (what was gathered goes with it). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.stopListening) stop();
    clearInterval(this.pruneTimer);
    if (this.window?.timer) clearTimeout(this.window.timer);
    this.window = null;
  }

  // Hearing -----------------------------------------------------------------------------------------

  /** A run ended: as the ledger has it (an end the lifecycle table refused is no end). */
  private lookAtEndedRun(runId: string): void {
    const row = this.ledger.runs.row(runId);
    if (!row) return;
    const event = endingEvents[row.status];
    if (!event || row.ended_at === null || !this.isNews(row.ended_at)) return;
    // A resumed run can end again: each ending is its own event.
    this.hear({ key: `run:${runId}:${row.status}:${row.ended_at}`, event, at: row.ended_at, runId });
  }

  /** An attempt ended: a failure the retry policy gives another go after the provider's limit lifts is a quota wait. */
  private lookAtQuotaWait({ runId, attemptId, end }: RunEventMap['attemptEnded']): void {
    const limit = end.failureCode ? quotaLimits[end.failureCode] : undefined;
    if (end.status !== 'failed' || !limit || end.retryAt === null || !this.isNews(end.endedAt)) return;
    this.hear({ key: `quota:${attemptId}`, event: 'quota_wait', at: end.endedAt, runId, retryAt: end.retryAt, limit });
  }

  /** Notices changed: any open one not seen before, raised since this service started, is new. */
  private lookAtNotices(): void {
    for (const notice of this.ledger.notices.list('open')) {
      if (this.seenNotices.has(notice.id)) continue;
      this.seenNotices.add(notice.id);
      const createdAt = Date.parse(notice.createdAt);
      if (!this.isNews(createdAt)) continue;
      this.hear({ key: `notice:${notice.id}`, event: 'notice', at: createdAt, runId: notice.runId, notice });
    }
  }

  private isNews(at: number): boolean {
    return at >= this.startedAt && this.now() - at <= this.timing.maxEventAgeMs;
  }

  private hear(event: { key: string; event: AttentionEvent; at: number; runId: string | null; notice?: Notice; retryAt?: number; limit?: 'quota' | 'rate' }): void {
    if (this.closed) return;
    const id = `ntf_${randomUUID().replaceAll('-', '')}`;
    // Claimed even when the operator turned the event off: turning it on later must not bring it back.
    if (!this.ledger.notifications.claim(event.key, id, this.now())) return;
    if (!this.settings().events[event.event]) return;
    const run = event.runId ? this.runFacts(event.runId) : null;
    // A notice event is about its notice; a run that did not get done has its notice as its fix.
    const notice = event.notice ? noticeFacts(event.notice) : run && endedWithAFix(event.event) ? this.noticeOfRun(run.runId) : null;
    const heard: HeardEvent = { key: event.key, id, event: event.event, at: event.at, run, notice };
    if (event.retryAt !== undefined) heard.retryAt = event.retryAt;
    if (event.limit) heard.limit = event.limit;
    this.gather(heard);
  }

  private runFacts(runId: string): RunFacts | null {
    const summary = this.ledger.runs.summary(runId);
    if (!summary) return null;
    const attempts = this.ledger.runs.attempts(runId);
    const last = attempts.at(-1);
    return {
      runId,
      taskTitle: summary.taskTitle,
      agentName: summary.agentName,
      failureMessage: failureMessage(this.ledger.runs.row(runId)?.failure_json ?? null),
      lastAttempt: last ? { number: last.number, cause: last.cause, previous: attempts.at(-2) ?? null } : null,
    };
  }

  private noticeOfRun(runId: string): NoticeFacts | null {
    const notice = this.ledger.notices.list('open', runId)[0];
    return notice ? noticeFacts(notice) : null;
  }

  // Telling -----------------------------------------------------------------------------------------

  /** Into the window: told when it has been quiet for `quietMs`, or `maxWaitMs` after it opened. */
  private gather(heard: HeardEvent): void {
    const now = this.now();
    const window = (this.window ??= { openedAt: now, heard: [], timer: null });
    window.heard.push(heard);
    if (window.timer) clearTimeout(window.timer);
    const due = Math.min(window.openedAt + this.timing.maxWaitMs, now + this.timing.quietMs);
    window.timer = setTimeout(() => this.tell(), Math.max(0, due - now));
  }

  private tell(): void {
    const window = this.window;
    this.window = null;
    if (!window || this.closed) return;
    const now = this.now();
    const stories = mergeRunsWithTheirNotices(window.heard);
    if (stories.length === 0) return;
    const settings = this.settings();
    const common = { silent: !settings.sound, quietWhenFocused: settings.quietWhenFocused, at: new Date(now).toISOString() };
    const continued = window.openedAt - this.lastSummaryAt < this.timing.floodContinuesMs;
    if (stories.length >= this.timing.floodCount || continued) {
      this.lastSummaryAt = now;
      const text = describeSummary(stories, continued);
      this.push({ id: `ntf_${randomUUID().replaceAll('-', '')}`, event: 'summary', ...text, runId: null, noticeId: null, count: stories.length, ...common });
      return;
    }
    for (const story of stories) {
      const text = describeEvent(story, now);
      this.push({ id: story.id, event: story.event, ...text, runId: story.run?.runId ?? null, noticeId: story.notice?.noticeId ?? null, count: 1, ...common });
    }
  }

  private push(notification: DesktopNotification): void {
    this.log.info('desktop notification', { id: notification.id, event: notification.event, count: notification.count });
    this.events.emit('desktopNotification', notification);
  }

  private prune(): void {
    try {
      this.ledger.notifications.forgetBefore(this.now() - this.timing.keepClaimsMs);
    } catch (error) {
      this.log.warn('old notification claims not pruned', { error: error instanceof Error ? error.message : String(error) });
    }
  }
}

/**
 * A run that ended with a notice (its refusal, a CLI that is missing, a stranded run) and that
 * notice, heard in the same window, are one story: the run's event, told with the notice's fix.
 */
export function mergeRunsWithTheirNotices(heard: readonly HeardEvent[]): HeardEvent[] {
  const runEvents = heard.filter((event) => event.run && endedWithAFix(event.event));
  const merged: HeardEvent[] = [];
  for (const event of heard) {
    if (event.event === 'notice' && event.notice) {
      const notice = event.notice;
      const run = runEvents.find((candidate) => notice.runIds.includes(candidate.run!.runId));
      if (run) {
        run.notice = notice;
        continue;
      }
    }
    merged.push(event);
  }
  return merged;
}

/** A run that did not get done: a notice about it says how to fix that (a succeeded run's is about something else). */
function endedWithAFix(event: AttentionEvent): boolean {
  return event === 'run_failed' || event === 'run_refused' || event === 'run_stranded';
}

function noticeFacts(notice: Notice): NoticeFacts {
  return { noticeId: notice.id, title: notice.title, message: notice.message, actionUrl: notice.actionUrl, runIds: notice.runIds };
}

function failureMessage(json: string | null): string | null {
  if (!json) return null;
  try {
    const failure = JSON.parse(json) as { message?: unknown };
    return typeof failure.message === 'string' && failure.message.trim() ? failure.message : null;
  } catch {
    return null;
  }
}
