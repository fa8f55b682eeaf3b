import type { RunDetail } from '../../../shared/entities';
import { actionRoute } from '../../../shared/routes';
import { ErrorAlert } from '../../ui/error-alert';
import { isAboutWorkLeftOnHost } from '../notices/fetch-work-again-action';
import { safeActionHref } from '../../ui/error-message';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { canResumeRun } from './run-detail-format';
import { useGoToRun } from './use-go-to-run';
import { useResumeRun } from './use-runs';

/** A stranded run that can be resumed: Resume, where the operator reads what happened, with what it does. */
function StrandedResume({ run }: { run: RunDetail }) {
  const resumeRun = useResumeRun();
  const submission = useSingleSubmit();
  const goTo = useGoToRun(run.id);
  return (
    <div className="run-failure__action">
      <button
        type="button"
        className="button button--primary"
        aria-disabled={submission.pending || undefined}
        onClick={() => submission.submit(() => resumeRun.mutateAsync({ runId: run.id }).then((next) => goTo(next.id)))}
      >
        Resume
      </button>
      <span className="run-failure__hint" aria-live="polite">
        {resumeRun.isPending ? 'Resuming…' : 'Picks up where the agent stopped; the changes it made so far are kept.'}
      </span>
      {resumeRun.isError ? <ErrorAlert error={resumeRun.error} prefix="Could not resume the run." /> : null}
    </div>
  );
}

/** Stranded runs resume from their own box; the header offers Resume for the others. */
export function resumesInFailureBox(run: RunDetail): boolean {
  return run.status === 'stranded' && canResumeRun(run);
}

/**
 * A started run's notice shows beside its failure when it links somewhere else (the agent's
 * settings, say): it then carries the message and the fix, said once. One that only links back to
 * this run (a stranded run's) adds nothing here: the failure box says it, with Resume. An open one
 * whose fix is a button of its own (Fetch the work again, for work left on the run's host) shows here
 * too: this is where the operator looks for the run's work.
 */
export function noticeShownInline(run: RunDetail): boolean {
  if (run.notice === null) return false;
  if (run.notice.status === 'open' && isAboutWorkLeftOnHost(run.notice.kind)) return true;
  return run.notice.actionUrl !== actionRoute({ kind: 'run', runId: run.id });
}

/** Failures that need the operator get the fix's link; the others say what happened. */
export function RunFailure({ run }: { run: RunDetail }) {
  if (!run.failure) return null;
  // A stranded run's link points at the run itself: no use offering it here.
  const ownRoute = actionRoute({ kind: 'run', runId: run.id });
  // The run's own page needs no link to itself, and a run's notice (shown below) carries the fix and the message.
  const withNotice = noticeShownInline(run);
  const actionHref = run.failure.actionUrl === ownRoute || withNotice ? undefined : safeActionHref(run.failure.actionUrl);
  const title = run.status === 'stranded' ? 'Stranded' : run.status === 'cancelled' ? 'Cancelled' : 'Failed';
  return (
    <div className={`run-failure run-failure--${run.status}`}>
      <p className="run-failure__title">
        {title}
        {run.failure.code !== run.status ? <code className="run-failure__code">{run.failure.code}</code> : null}
        {run.failure.reason ? <code className="run-failure__code">{run.failure.reason}</code> : null}
      </p>
      {withNotice ? null : <p className="run-failure__message">{run.failure.message}</p>}
      {resumesInFailureBox(run) ? <StrandedResume run={run} /> : null}
      {actionHref ? (
        <p>
          <a className="button button--primary button--small" href={actionHref}>
            Open the setting that fixes this
          </a>
        </p>
      ) : null}
    </div>
  );
}
