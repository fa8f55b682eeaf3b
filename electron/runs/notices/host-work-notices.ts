import type { OperatorErrorShape } from '../../../shared/errors';
import { actionRoute } from '../../../shared/routes';
import type { RunContext } from '../run-context';

/**
 * "Run’s work left on its host" (issue 28): a run on an SSH host ended, and bringing its work back
 * failed, so its commits and what it left uncommitted are on the host only. One notice per run and
 * cause (a retry that fails the same way rewrites it; another reason is a notice of its own); it names the reason and its fix, and
 * offers Fetch the work again (fetchRunWorkAgain); it resolves once the work is back, or once the
 * operator discarded it with the run's files.
 */
export const hostWorkNoticeKind = 'host_work_not_fetched';

const dedupeKey = (runId: string) => `host-work-not-fetched:${runId}`;

export function raiseHostWorkNotice(context: RunContext, run: { runId: string; agentId: string | null; hostName: string }, failure: OperatorErrorShape): void {
  const notices = context.options.notices;
  const row = context.ledger.runs.row(run.runId);
  const task = row ? context.ledger.tasks.get(row.task_id) : undefined;
  const content = {
    message: `The work of “${task?.title ?? 'the task'}” is still on ${run.hostName}: it was not brought back, so the run’s Changes do not show it and nothing of it can be landed. ${failure.message} Then choose Fetch the work again. Clean up keeps the run’s files on ${run.hostName} until its work is back, unless you confirm discarding it.`,
    actionUrl: actionRoute({ kind: 'run', runId: run.runId }),
    actionLabel: 'Open the run',
  };
  const open = notices.latestForKey(dedupeKey(run.runId));
  if (open?.status === 'open') {
    // The same cause again (a retry that failed as the fetch did): the one notice, its words today's.
    if (open.code === failure.code && open.reason === (failure.reason ?? null)) return notices.revise(open.id, content);
    // Another cause: its own notice, with its own reason; the earlier one is out of date.
    notices.resolve(open.id, 'Fetching the work again failed for another reason: a newer notice says which.');
  }
  notices.raise({
    kind: hostWorkNoticeKind,
    severity: 'error',
    title: 'Run’s work left on its host',
    ...content,
    code: failure.code,
    reason: failure.reason ?? null,
    runId: run.runId,
    agentId: run.agentId,
    taskId: row?.task_id ?? null,
    dedupeKey: dedupeKey(run.runId),
  });
}

/** The run's work came back, or was discarded with its files: its notice, if open, resolves saying which. */
export function resolveHostWorkNotice(context: RunContext, runId: string, resolution: string): void {
  const open = context.options.notices.latestForKey(dedupeKey(runId));
  if (open?.status === 'open') context.options.notices.resolve(open.id, resolution);
}
