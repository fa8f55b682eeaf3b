import { attemptCauseText, startedByOperator } from '../../shared/attempt-cause';
import type { AttentionEvent } from '../../shared/attention';
import type { Attempt } from '../../shared/entities';
import { actionRoute } from '../../shared/routes';

/**
 * What a desktop notification says. An operator who looked away reads it on a lock screen or in a
 * notification centre, with nothing else to go on: it names the run's task and agent, what happened
 * and what to do, and a click opens where to do it.
 */

/** The run an event is about, as it stood when the console heard of it. */
export interface RunFacts {
  runId: string;
  taskTitle: string;
  agentName: string;
  /** Why it failed, was refused or stranded (the run's failure message), if it did. */
  failureMessage: string | null;
  /**
   * The attempt the run ended on, with why it started as the ledger recorded it (and the attempt
   * before it), or null when none started: a run the operator resumed says so, never as a retry.
   */
  lastAttempt: (Pick<Attempt, 'number' | 'cause'> & { previous: Pick<Attempt, 'status' | 'failureCode' | 'exitCode' | 'signal'> | null }) | null;
}

/** The notice an event is about (a new one, or the one a refused run joined). */
export interface NoticeFacts {
  noticeId: string;
  title: string;
  message: string;
  /** Where its fix is made (a hash route), if it names one. */
  actionUrl: string | null;
  /** The runs it stands for (a refusal joins later refused runs of the same cause). */
  runIds: readonly string[];
}

/** One event the console heard, to be told once. */
export interface HeardEvent {
  /** The claim key: what makes this event this event (notifications_sent). */
  key: string;
  /** The notification's id when it is shown on its own. */
  id: string;
  event: AttentionEvent;
  at: number;
  run: RunFacts | null;
  /** For a run event: the notice that stands for the run (its fix). For a `notice` event: the notice. */
  notice: NoticeFacts | null;
  /** A quota wait: when the retry is due (ms), and whether it is a used-up quota or a rate limit. */
  retryAt?: number;
  limit?: 'quota' | 'rate';
}

export interface NotificationText {
  title: string;
  body: string;
  route: string;
}

const runEvents: readonly AttentionEvent[] = ['run_succeeded', 'run_failed', 'run_refused', 'run_stranded'];

export function isRunEnding(event: AttentionEvent): boolean {
  return runEvents.includes(event);
}

/** A sentence ends with its stop (failure messages mostly have one; some do not). */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…)”"]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function join(...parts: Array<string | null | undefined>): string {
  return parts.filter((part): part is string => Boolean(part && part.trim())).join(' ');
}

const pad2 = (value: number) => String(value).padStart(2, '0');

/**
 * When a retry is due, for a notification read now: the local time (24-hour, the console's time
 * zone), the day when it is not today, and how long that is from now.
 */
export function describeRetryTime(retryAt: number, now: number): string {
  const at = new Date(retryAt);
  const time = `${pad2(at.getHours())}:${pad2(at.getMinutes())}`;
  const today = new Date(now);
  const tomorrow = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1);
  const sameDay = (a: Date, b: Date) => a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
  const day = sameDay(at, today)
    ? `at ${time}`
    : sameDay(at, tomorrow)
      ? `tomorrow at ${time}`
      : `on ${at.getFullYear()}-${pad2(at.getMonth() + 1)}-${pad2(at.getDate())} at ${time}`;
  return `${day} (${describeWait(retryAt - now)})`;
}

function describeWait(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 1) return 'in less than a minute';
  if (minutes < 120) return `in ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `in ${hours} hours`;
  return `in ${Math.round(hours / 24)} days`;
}

/** ` (attempt 2, resumed by you)` when the operator started the attempt the run ended on (a Resume, a follow-up); else nothing. */
function operatorAttempt(run: RunFacts): string {
  const attempt = run.lastAttempt;
  if (!attempt || !startedByOperator(attempt)) return '';
  return ` (attempt ${attempt.number}, ${attemptCauseText(attempt, attempt.previous)})`;
}

/** The route a click opens: the run's notice's fix when it has one, else the run. */
function routeOf(heard: HeardEvent): string {
  if (heard.notice?.actionUrl) return heard.notice.actionUrl;
  if (heard.run) return actionRoute({ kind: 'run', runId: heard.run.runId });
  return actionRoute({ kind: 'notices' });
}

/** One event on its own: a run that ended, a run waiting for a quota reset, a new notice. */
export function describeEvent(heard: HeardEvent, now: number): NotificationText {
  const route = routeOf(heard);
  const { run, notice } = heard;
  if (heard.event === 'notice' || !run) {
    // A notice names its fix and what it is about (the agent and task) in its own words.
    return { title: notice?.title ?? 'Notice', body: notice ? sentence(notice.message) : 'Open Notices to see what needs you.', route };
  }
  const task = `“${run.taskTitle}”`;
  switch (heard.event) {
    case 'run_succeeded':
      return { title: `Run succeeded: ${run.taskTitle}`, body: `${run.agentName} finished ${task}${operatorAttempt(run)}. Open the run to review its changes.`, route };
    case 'run_failed':
      return {
        title: `Run failed: ${run.taskTitle}`,
        body: join(`${run.agentName} failed on ${task}${operatorAttempt(run)}.`, run.failureMessage && sentence(run.failureMessage), notice ? null : 'Open the run to see why.'),
        route,
      };
    case 'run_refused':
      return {
        // The notice's title says which rule refused it (AI connection required, Budget reached, ...).
        title: `${notice ? notice.title : 'Run refused'}: ${run.taskTitle}`,
        body: join(`${run.agentName} was not started on ${task}.`, run.failureMessage && sentence(run.failureMessage)),
        route,
      };
    case 'run_stranded':
      return {
        title: `Run stranded: ${run.taskTitle}`,
        body: join(`${run.agentName} was running ${task}${operatorAttempt(run)} when the console stopped.`, run.failureMessage && sentence(run.failureMessage)),
        route,
      };
    case 'quota_wait': {
      const what = heard.limit === 'rate' ? 'was rate limited by its model provider' : 'reached its usage quota';
      const when = heard.retryAt === undefined ? 'when the limit lifts' : describeRetryTime(heard.retryAt, now);
      return {
        title: `Waiting for a quota reset: ${run.taskTitle}`,
        body: `${run.agentName} ${what} on ${task}. The run retries ${when}; open it to stop it or run the task on another agent.`,
        route,
      };
    }
  }
}

const plural = (count: number, singular: string, many = `${singular}s`) => `${count} ${count === 1 ? singular : many}`;

/**
 * A flood as one notification: how many runs ended and how, how many wait for a quota reset, how
 * many notices are new. It opens the runs list, or Notices when every event was a notice's.
 * `continued`: more of a flood just summarized.
 */
export function describeSummary(events: readonly HeardEvent[], continued: boolean): NotificationText {
  const count = (event: AttentionEvent) => events.filter((heard) => heard.event === event).length;
  const ended = events.filter((heard) => isRunEnding(heard.event)).length;
  const waiting = count('quota_wait');
  const notices = count('notice');
  const run = continued ? 'more run' : 'run';
  const breakdown = [
    [count('run_succeeded'), 'succeeded'],
    [count('run_failed'), 'failed'],
    [count('run_refused'), 'refused'],
    [count('run_stranded'), 'stranded'],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, how]) => `${n} ${how}`)
    .join(', ');
  const groups = [
    ended > 0 ? `${plural(ended, run)} ended: ${breakdown}` : null,
    waiting > 0 ? `${plural(waiting, run)} waiting for a quota reset` : null,
    notices > 0 ? plural(notices, continued ? 'more notice' : 'new notice') : null,
  ];
  const [headline, ...rest] = groups.filter((group): group is string => group !== null);
  // Anything that raised a notice needs the operator; the rest is in the runs list.
  const needingYou = events.filter((heard) => heard.notice !== null).length;
  const onlyNotices = events.every((heard) => heard.event === 'notice');
  const advice = onlyNotices
    ? 'Open Notices to see what each needs.'
    : needingYou > 0
      ? `${plural(needingYou, 'needs', 'need')} you: see Notices. Open the runs list to see them all.`
      : 'Open the runs list to see them.';
  return {
    title: headline ?? plural(events.length, 'event'),
    body: join(rest.length > 0 ? `${rest.join('; ')}.` : null, advice),
    route: actionRoute({ kind: onlyNotices ? 'notices' : 'runs' }),
  };
}
