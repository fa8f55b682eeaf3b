import type { Attempt, RunDetail, RunSummary } from '../../../shared/entities';
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

/** Whether a run can be started again as a new run of the same task and agent. */
export function canRerun(run: Pick<RunDetail, 'status'>): boolean {
  return !isActiveRunStatus(run.status);
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
