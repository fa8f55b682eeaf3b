import type { Notice } from '../../shared/entities';
import { OperatorError } from '../../shared/errors';
import { actionRoute } from '../../shared/routes';
import { newId } from '../ledger/ids';
import type { Ledger } from '../ledger/ledger';
import type { NewNotice } from '../ledger/notices-repository';
import type { EventHub } from '../events/event-hub';

/**
 * Notices: what the operator must act on, each naming the fix and linking to where to make it. A
 * notice stands for one cause (one per agent and cause while it is open) and the runs it stopped;
 * it resolves itself when the cause is gone, and a resolved refusal offers Run again.
 */
export class NoticeService {
  constructor(
    private readonly ledger: Ledger,
    private readonly events: EventHub,
    private readonly now: () => number = Date.now,
  ) {}

  list(status: Notice['status'] | 'all', runId?: string): Notice[] {
    return this.ledger.notices.list(status, runId);
  }

  /**
   * The notices the operator asks for: the open ones unless a status is named; with a run id, every
   * notice that stands for that run, whatever its status (the run detail shows them inline).
   */
  listAsked(filter: { status?: Notice['status'] | 'all' | undefined; runId?: string | undefined } = {}): Notice[] {
    return this.list(filter.status ?? (filter.runId ? 'all' : 'open'), filter.runId);
  }

  get(noticeId: string): Notice {
    const notice = this.ledger.notices.get(noticeId);
    if (!notice) throw new OperatorError({ code: 'not_found', message: 'That notice is no longer in the console.', actionUrl: actionRoute({ kind: 'notices' }) });
    return notice;
  }

  /** The notice that stands for a run (the latest, whatever its status), for the run detail. */
  forRun(runId: string): Notice | null {
    return this.ledger.notices.list('all', runId)[0] ?? null;
  }

  countOpen(): number {
    return this.ledger.notices.countOpen();
  }

  /** Raises a notice, or joins the run to the open one for the same cause (`dedupeKey`). */
  raise(notice: Omit<NewNotice, 'id' | 'createdAt'>): Notice {
    const raised = this.ledger.notices.raise({ ...notice, id: newId('ntc'), createdAt: this.now() });
    this.announce();
    return raised;
  }

  /** Rewrites an open notice's message and link: its cause is the same, but the fix to name changed. */
  revise(noticeId: string, content: { message: string; actionUrl: string | null; actionLabel: string | null }): void {
    const notice = this.ledger.notices.get(noticeId);
    if (!notice || notice.status !== 'open') return;
    if (notice.message === content.message && notice.actionUrl === content.actionUrl && notice.actionLabel === content.actionLabel) return;
    this.ledger.notices.setContent(noticeId, content);
    this.announce();
  }

  openForAgent(agentId: string, kinds?: readonly string[]): Notice[] {
    return this.ledger.notices.openForAgent(agentId, kinds);
  }

  /** The newest notice raised for a cause (its dedupe key), whatever its status now: open, resolved or dismissed. */
  latestForKey(dedupeKey: string): Notice | undefined {
    return this.ledger.notices.latestForKey(dedupeKey);
  }

  openOfKind(kind: string): Notice[] {
    return this.ledger.notices.openOfKind(kind);
  }

  /** Open notices of a kind about an environment, with what each is about (its subject). */
  openForEnvironment(environmentId: string, kind: string): Array<{ notice: Notice; subject: Record<string, unknown> }> {
    return this.ledger.notices.openForEnvironment(environmentId, kind);
  }

  /** Whether a notice of this kind (any status) already stands for the run. */
  runHasNotice(runId: string, kind: string): boolean {
    return this.ledger.notices.runHasNotice(runId, kind);
  }

  /** The cause is gone: the notice leaves the open list (and, for a refusal, offers Run again). */
  resolve(noticeId: string, resolution: string | null = null): Notice | undefined {
    const notice = this.ledger.notices.resolve(noticeId, this.now(), resolution);
    this.announce();
    return notice;
  }

  dismiss(noticeId: string): Notice {
    const notice = this.ledger.notices.dismiss(noticeId, this.now());
    if (!notice) throw new OperatorError({ code: 'not_found', message: 'That notice is no longer in the console.' });
    this.announce();
    return notice;
  }

  /**
   * The agent is gone: what its open notices asked for can no longer be done, so they leave the open
   * list (dismissed, without offering Run again, which would only be refused).
   */
  dismissForAgent(agentId: string): void {
    for (const notice of this.openForAgent(agentId)) this.dismiss(notice.id);
  }

  /** The runs a notice stands for, and what Run again started for each. */
  runsOf(noticeId: string): Array<{ run_id: string; rerun_run_id: string | null }> {
    return this.ledger.notices.runs(noticeId);
  }

  /** True exactly once per notice: the first Run again. */
  claimRerun(noticeId: string): boolean {
    return this.ledger.notices.claimRerun(noticeId, this.now());
  }

  rerunClaimed(noticeId: string): boolean {
    return this.ledger.notices.rerunClaimed(noticeId);
  }

  recordRerun(noticeId: string, runId: string, rerunRunId: string): void {
    this.ledger.notices.recordRerun(noticeId, runId, rerunRunId);
  }

  announce(): void {
    this.events.emit('noticesChanged', { open: this.countOpen() });
  }
}
