import type { Attempt, Notice, RunDetail, RunSummary } from '../../../shared/entities';
import { formatDuration } from '../../ui/format';
import { isActiveRunStatus } from '../../ui/run-status';
import { compactJson } from './timeline-entry';

/** A digest or revision, short enough for a table; the full value goes in a tooltip. */
export function shortDigest(value: string | null | undefined, length = 12): string {
  return value ? value.slice(0, length) : '—';
}

/** The attempt that waits for a retry in the future (after backoff or a quota reset), if any. */
export function pendingRetry(attempts: readonly Attempt[], now: number): Attempt | null {
  for (let index = attempts.length - 1; index >= 0; index -= 1) {
    const attempt = attempts[index]!;
    if (!attempt.retryAt) continue;
    const at = Date.parse(attempt.retryAt);
    if (!Number.isNaN(at) && at > now) return attempt;
  }
  return null;
}

/** `Waiting to retry in 12 s`, `Waiting to retry in 4m 05s`. */
export function retryWaitLabel(retryAt: string, now: number): string {
  const left = Math.max(0, Date.parse(retryAt) - now);
  const seconds = Math.ceil(left / 1000);
  return `Waiting to retry in ${seconds < 60 ? `${seconds} s` : formatDuration(left)}`;
}

/** How an attempt ended, in words: `exit 1`, `signal SIGTERM`, `exit 143 (SIGTERM)`. */
export function attemptExit(attempt: Pick<Attempt, 'exitCode' | 'signal'>): string {
  if (attempt.exitCode !== null && attempt.signal) return `exit ${attempt.exitCode} (${attempt.signal})`;
  if (attempt.exitCode !== null) return `exit ${attempt.exitCode}`;
  if (attempt.signal) return `signal ${attempt.signal}`;
  return '—';
}

const locatorLabels: Record<string, string> = {
  pid: 'pid',
  pgid: 'pgid',
  sessionId: 'session',
  session_id: 'session',
  id: 'id',
  threadId: 'thread',
  sessionDir: 'dir',
  dir: 'dir',
  file: 'file',
};
const locatorOrder = Object.keys(locatorLabels);

/** Long hex digests (fingerprints, revisions) are shortened; the rest shows as it is. */
function locatorValue(value: unknown): string {
  if (typeof value === 'string') return /^[0-9a-f]{32,}$/i.test(value) ? `${value.slice(0, 12)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return compactJson(value, 200);
}

/** A locator's key facts first (pid and process group, or session id and directory), then the rest; empty ones are left out. */
export function locatorFacts(data: Record<string, unknown>): Array<{ label: string; value: string }> {
  const present = Object.entries(data).filter(([, value]) => value !== null && value !== undefined && value !== '');
  const rank = (key: string) => {
    const at = locatorOrder.indexOf(key);
    return at === -1 ? locatorOrder.length : at;
  };
  return present
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([key, value]) => ({ label: locatorLabels[key] ?? key, value: locatorValue(value) }));
}

/**
 * What a run's locator says, in words: the process (its id, its group, when it started) or the CLI's
 * session (its id and folder). The raw record stays available behind a toggle; a process's start time
 * there is in clock ticks since boot, which only tells it apart from a later process with its pid.
 */
export function locatorSummary(
  locator: Pick<RunDetail['locators'][number], 'kind' | 'data' | 'updatedAt'>,
  attempts: readonly Pick<Attempt, 'number' | 'startedAt'>[],
  formatTime: (iso: string) => string,
): { title: string; facts: Array<{ label: string; value: string }> } {
  const data = locator.data;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null);
  const facts: Array<{ label: string; value: string }> = [];
  const add = (label: string, value: string | null) => {
    if (value !== null) facts.push({ label, value });
  };
  if (locator.kind === 'process') {
    add('Process id', text(data.pid));
    const pgid = text(data.pgid);
    add('Process group', pgid === null ? null : pgid === text(data.pid) ? `${pgid} (its own)` : pgid);
    const attemptNumber = typeof data.attempt === 'number' ? data.attempt : null;
    const startedAt = attempts.find((attempt) => attempt.number === attemptNumber)?.startedAt ?? locator.updatedAt;
    add('Started at', formatTime(startedAt));
    if (attemptNumber !== null) add('Attempt', String(attemptNumber));
    return { title: 'Process', facts };
  }
  add('Session', text(data.id) ?? text(data.sessionId) ?? text(data.threadId));
  add('Folder', text(data.dir) ?? text(data.sessionDir) ?? text(data.file));
  add('Recorded at', formatTime(locator.updatedAt));
  return { title: 'CLI session', facts };
}

/**
 * Whether the header offers Run again (a new run of the same task and agent). A refused run offers
 * it only once its cause is gone: its notice resolved (whose own Run again then leads), or, with no
 * open notice, once the agent's check says a run would be admitted. Anything else would only be
 * refused again.
 */
export function canRerun(run: Pick<RunDetail, 'status'> & { notice?: Pick<Notice, 'status' | 'canRunAgain'> | null }, agentReady?: boolean): boolean {
  if (isActiveRunStatus(run.status)) return false;
  if (run.status !== 'refused') return true;
  if (run.notice?.status === 'open' || run.notice?.canRunAgain) return false;
  return agentReady === true;
}

/** Whether a run has ended for good, so that it may be archived or deleted (the core refuses otherwise). */
export function canArchiveOrDelete(run: Pick<RunDetail, 'status' | 'canStop'>): boolean {
  return !isActiveRunStatus(run.status) && !run.canStop;
}

/** Resume continues the CLI's session in the task root: an archived run has none left. */
export function canResumeRun(run: Pick<RunDetail, 'canResume' | 'archived'>): boolean {
  return run.canResume && !run.archived;
}

/**
 * Whether a run is archived. A run detail always says; a run summary (the run list) says only where
 * the core sends the field, and one without it reads as not archived.
 */
export function isArchivedRun(run: RunSummary | Pick<RunDetail, 'archived'>): boolean {
  return run.archived;
}
