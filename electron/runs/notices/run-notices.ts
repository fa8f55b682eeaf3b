import type { Notice, RunSummary } from '../../../shared/entities';
import { OperatorError, type OperatorErrorShape } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import type { StoredAgent } from '../../ledger/agents-repository';
import type { Ledger } from '../../ledger/ledger';
import { startedRunNoticeKinds } from '../../ledger/notices-repository';
import type { Logger } from '../../platform/log';
import type { NoticeService } from '../../notices/notice-service';
import { budgetExhausted, budgetUnpriced } from '../../../shared/usage';
import { budgetIdOfLink, notRetriedSentence, priceTargetOfLink } from '../../usage/budget-rule';
import { aiConnectionRequired, hostUnready, type Admission, type AdmissionResult } from '../admission';
import type { DiskFullNotices } from './disk-full-notices';
import type { RunBudgets } from '../run-context';

export interface RunNoticesOptions {
  ledger: Ledger;
  notices: NoticeService;
  log: Logger;
  /** Admission as runs see it: a notice resolves once its agent would be admitted. */
  admit: (agent: StoredAgent & { deleted: boolean }) => AdmissionResult;
  /** Starts a run of a task on an agent (Run again starts each refused task this way). */
  start: (taskId: string, agentId: string) => RunSummary;
  /** Budgets: what let a "Budget reached" notice's runs go, in words. */
  budgets?: RunBudgets | undefined;
  /** The console's one Disk full notice, which a run refused or ended for a full disk joins. */
  diskFull: DiskFullNotices;
}

/** Refusals from admission that a notice stands for until the agent's configuration fixes them. */
const admissionNoticeCodes = ['configuration_incomplete', 'sandbox_unavailable'];
/**
 * Reasons of owner notices raised when a run was prepared, which admission does not judge (it reads no
 * secret): an agent admitted again says nothing of them. A later run of the agent that gets through its
 * preparation resolves them (attempt-notices.ts).
 */
export const fixedByPreparationReasons = ['variable_unreadable'];
/** Owner-action notices that a later successful attempt of the same agent shows to be fixed. */
export const fixedBySuccessCodes = ['spawn_failed', 'auth_required', 'auth_expired', 'quota_exhausted', 'sandbox_unavailable'];

/**
 * The notices runs raise and resolve: owner actions (a refusal, a missing CLI, a used-up quota) that
 * stand until their cause is gone, and Run again from one whose cause is fixed.
 */
export class RunNotices {
  private readonly ledger: Ledger;
  private readonly notices: NoticeService;

  constructor(private readonly options: RunNoticesOptions) {
    this.ledger = options.ledger;
    this.notices = options.notices;
  }

  /**
   * Run again, from a notice whose cause is gone: starts each refused task it stands for once (for a
   * notice about runs that started, a blocked request, each of their tasks once). The notice's claim
   * makes a second call (another click, another window) start nothing.
   */
  runAgain(noticeId: string): { notice: Notice; runs: RunSummary[]; alreadyRan: boolean } {
    let notice = this.notices.get(noticeId);
    // The cause may have gone without a change the console watches (the sandbox probe): look again.
    if (notice.status === 'open' && notice.agentId) this.reviewNotices([notice.agentId]);
    notice = this.notices.get(noticeId);
    if (this.notices.rerunClaimed(noticeId)) {
      const runs = notice.rerunRunIds.flatMap((runId) => {
        const summary = this.ledger.runs.summary(runId);
        return summary ? [summary] : [];
      });
      return { notice, runs, alreadyRan: true };
    }
    if (notice.status === 'open') {
      const shape: OperatorErrorShape = { code: 'conflict', message: `Its cause is not fixed yet. ${notice.message}` };
      if (notice.reason) shape.reason = notice.reason;
      if (notice.actionUrl) shape.actionUrl = notice.actionUrl;
      throw new OperatorError(shape);
    }
    if (!notice.canRunAgain || !this.notices.claimRerun(noticeId)) {
      throw new OperatorError({ code: 'conflict', message: 'This notice has nothing to run again.', actionUrl: actionRoute({ kind: 'notices' }) });
    }
    const started: RunSummary[] = [];
    const tasksStarted = new Set<string>();
    const runsStarted = (startedRunNoticeKinds as readonly string[]).includes(notice.kind);
    for (const link of this.notices.runsOf(noticeId)) {
      const row = this.ledger.runs.row(link.run_id);
      if (!row || (row.status !== 'refused' && !runsStarted) || tasksStarted.has(row.task_id)) continue;
      tasksStarted.add(row.task_id);
      try {
        const run = this.options.start(row.task_id, row.agent_id);
        this.notices.recordRerun(noticeId, row.id, run.id);
        started.push(run);
      } catch (error) {
        // The task or agent went away since: there is nothing of it to run again.
        if (!(error instanceof OperatorError)) throw error;
        this.options.log.info('run again skipped a task', { noticeId, taskId: row.task_id, code: error.code });
      }
    }
    this.options.log.info('run again', { noticeId, runs: started.map((run) => run.id) });
    this.notices.announce();
    return { notice: this.notices.get(noticeId), runs: started, alreadyRan: false };
  }

  /**
   * Looks again at open notices raised by admission (for these agents, or all): one whose agent would
   * now be admitted is resolved (and offers Run again); one still refused for the same reason is
   * rewritten to name today's fix. Called whenever an agent, a connection or the sandbox changes.
   */
  reviewNotices(agentIds?: Iterable<string>): void {
    const wanted = agentIds ? new Set(agentIds) : null;
    const open = this.notices
      .list('open')
      .filter((notice) => notice.agentId && notice.code && admissionNoticeCodes.includes(notice.code) && !fixedByPreparationReasons.includes(notice.reason ?? ''));
    for (const notice of open) {
      if (wanted && !wanted.has(notice.agentId!)) continue;
      const agent = this.ledger.agents.get(notice.agentId!);
      if (!agent) continue;
      const verdict = this.options.admit(agent);
      if (verdict.admitted) {
        this.notices.resolve(notice.id, this.fixedBy(notice, agent, verdict.admission));
        this.options.log.info('notice resolved: its cause is gone', { noticeId: notice.id, kind: notice.kind, agentId: agent.id });
      } else if (!verdict.deferred && verdict.failure.reason === notice.reason && verdict.failure.code === notice.code) {
        this.notices.revise(notice.id, this.ownerNoticeContent(notice.id, agent, verdict.failure));
      }
    }
  }

  /** What fixed an admission notice, in words: a budget says how it became whole again, or could count again. */
  private fixedBy(notice: Notice, agent: StoredAgent, admission: Admission): string {
    const budgetId = notice.reason === budgetExhausted ? budgetIdOfLink(notice.actionUrl) : null;
    if (budgetId && this.options.budgets) return this.options.budgets.recovery(budgetId, Date.parse(notice.createdAt));
    if (notice.reason === budgetUnpriced && this.options.budgets) return this.options.budgets.pricedRecovery(priceTargetOfLink(notice.actionUrl));
    return admissionFixed(notice, agent, admission, this.ledger.environments.get(admission.environmentId)?.name);
  }

  /** Resolves a run's open notices of these kinds (a stranded run that was resumed, archived or deleted), saying how. */
  resolveRunNotices(runId: string, kinds: readonly string[], resolution: string): void {
    for (const notice of this.notices.list('open', runId)) {
      if (kinds.includes(notice.kind)) this.notices.resolve(notice.id, resolution);
    }
  }

  /**
   * An attempt of the agent got past what stopped earlier ones (its CLI started; or it succeeded):
   * notices about those are out of date. `resolution` says which.
   */
  resolveFixedBy(agentId: string, fixed: { codes?: readonly string[]; reasons?: readonly string[] }, resolution: string): void {
    for (const notice of this.notices.openForAgent(agentId)) {
      const byCode = notice.code !== null && (fixed.codes ?? []).includes(notice.code);
      const byReason = notice.reason !== null && (fixed.reasons ?? []).includes(notice.reason);
      if (byCode || byReason) this.notices.resolve(notice.id, resolution);
    }
  }

  /**
   * An owner action (a refusal, a missing CLI, a used-up quota): one notice per agent and cause while
   * it is open, naming the agent, the task(s) it stopped and the fix, linking to where to make it.
   */
  raiseOwnerNotice(
    runId: string,
    agent: { id: string; name: string },
    task: { id: string | null; title: string },
    failure: OperatorErrorShape,
    title?: string,
  ): void {
    // A full disk is the console's, not the agent's: one notice for it, which every such run joins.
    if (failure.code === 'disk_full') return this.options.diskFull.raise({ runId, taskId: task.id });
    const content = ownerNoticeContent(failure, agent, [task.title], runId);
    const notice = this.notices.raise({
      kind: failure.reason ?? failure.code,
      severity: 'error',
      title: title ?? noticeTitle(failure),
      message: content.message,
      actionUrl: content.actionUrl,
      actionLabel: content.actionLabel,
      code: failure.code,
      reason: failure.reason ?? null,
      runId,
      agentId: agent.id,
      taskId: task.id,
      dedupeKey: `${failure.code}:${failure.reason ?? ''}:${agent.id}`,
    });
    // A later run joined an open notice: it now names every task it stands for. A budget's notice
    // also says which of its runs were stopped between attempts rather than refused.
    if (notice.runIds.length > 1 || isBudgetStop(failure)) this.notices.revise(notice.id, this.ownerNoticeContent(notice.id, agent, failure));
  }

  private ownerNoticeContent(noticeId: string, agent: { id: string; name: string }, failure: OperatorErrorShape) {
    const runIds = this.notices.runsOf(noticeId).map((link) => link.run_id);
    const titles = runIds.flatMap((runId) => {
      const row = this.ledger.runs.row(runId);
      const task = row ? this.ledger.tasks.get(row.task_id) : undefined;
      return task ? [task.title] : [];
    });
    // A run that crossed its budget while it ran was not refused: it finished its attempt, unretried.
    const crossed = isBudgetStop(failure) ? runIds.filter((runId) => this.ledger.runs.row(runId)?.status === 'failed').length : 0;
    const addendum = crossed === 0 ? undefined : crossed === 1 ? notRetriedSentence : `${crossed} runs finished their current attempts and were not retried.`;
    return ownerNoticeContent(failure, agent, titles, runIds[0] ?? null, addendum);
  }
}

/**
 * What fixed an admission notice, in the past tense, from what admission now admits the agent with:
 * the notice's reader sees the change that made it go, not just that it went.
 */
export function admissionFixed(
  notice: Pick<Notice, 'code' | 'reason' | 'actionUrl'>,
  agent: { name: string },
  admission: Admission,
  environmentName: string | undefined,
): string {
  const where = environmentName ? `the ${environmentName} environment` : `a ${admission.environmentKind} environment`;
  if (notice.code === 'sandbox_unavailable') {
    return admission.environmentKind === 'sandboxed'
      ? `The OS sandbox became available: ${agent.name}'s runs can start.`
      : `${agent.name} was moved to ${where}, which needs no OS sandbox.`;
  }
  if (notice.reason === aiConnectionRequired) {
    const home = notice.actionUrl?.endsWith('/home-mode') && admission.homeMode === 'isolated' ? ' an isolated home and' : '';
    if (admission.connection) return `${agent.name} was given${home} the AI connection “${admission.connection.name}”.`;
    return `${agent.name} no longer needs an AI connection: it now runs in ${where} with ${admission.homeMode === 'isolated' ? 'an isolated' : 'your own (preconfigured)'} home.`;
  }
  return `${agent.name}'s configuration was fixed: its runs are admitted now.`;
}

function noticeTitle(failure: OperatorErrorShape): string {
  if (failure.reason === aiConnectionRequired) return 'AI connection required';
  if (failure.reason === budgetExhausted) return 'Budget reached';
  if (failure.reason === budgetUnpriced) return 'Budget cannot count this run';
  if (failure.reason === hostUnready) return 'SSH host not ready for this run';
  switch (failure.code) {
    case 'sandbox_unavailable':
      return 'OS sandbox unavailable';
    case 'spawn_failed':
      return 'CLI not found';
    case 'configuration_incomplete':
      return 'Agent configuration incomplete';
    case 'auth_required':
    case 'auth_expired':
      return 'Sign-in required';
    case 'quota_exhausted':
      return 'Quota exhausted';
    case 'setup_failed':
      return 'Project setup failed';
    default:
      return 'Run needs attention';
  }
}

/** A budget stops runs between attempts too: its notice also stands for runs that started. */
function isBudgetStop(failure: OperatorErrorShape): boolean {
  return failure.reason === budgetExhausted || failure.reason === budgetUnpriced;
}

/** What an owner-action notice says: the failure's fix, the agent and the task(s) it stopped, and the link. */
function ownerNoticeContent(failure: OperatorErrorShape, agent: { name: string }, taskTitles: string[], runId: string | null, addendum?: string) {
  const titles = [...new Set(taskTitles)].map((title) => `“${title}”`);
  const tasks = titles.length === 0 ? '' : titles.length === 1 ? `; task ${titles[0]}` : `; tasks ${titles.slice(0, -1).join(', ')} and ${titles.at(-1)}`;
  let actionLabel = failure.actionUrl ? 'Fix it' : 'Open the run';
  if (failure.reason === aiConnectionRequired) {
    actionLabel = failure.actionUrl?.endsWith('/home-mode') ? 'Choose an isolated home' : 'Choose an AI connection';
  }
  if (failure.reason === budgetExhausted) actionLabel = 'Change the budget';
  if (failure.reason === budgetUnpriced) actionLabel = 'Set the price';
  if (failure.reason === hostUnready) actionLabel = failure.actionUrl?.includes('/environments/') ? 'Open the environment' : 'Open Settings → Hosts';
  if (failure.code === 'setup_failed') actionLabel = 'Open the project’s setup';
  return {
    message: `${failure.message}${addendum ? ` ${addendum}` : ''} (Agent ${agent.name}${tasks}.)`,
    actionUrl: failure.actionUrl ?? (runId ? actionRoute({ kind: 'run', runId }) : null),
    actionLabel,
  };
}
