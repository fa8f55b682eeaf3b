import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import type { ChannelOutput } from '../../../shared/contract';
import type { LandingPlan, LandingStrategy, RunComparison } from '../../../shared/landing';
import { actionPath } from '../../../shared/routes';
import { Choice } from '../../ui/choice';
import { ErrorAlert } from '../../ui/error-alert';
import { FormField } from '../../ui/form-field';
import { pluralize } from '../../ui/format';
import { ModalDialog } from '../../ui/modal-dialog';
import { Loading, QueryError } from '../../ui/query-error';
import { useSingleSubmit } from '../../ui/use-single-submit';
import { listFew, shortSha } from '../runs/landing-format';
import { landingSummary } from '../runs/landing-labels';
import { effectiveStrategy, StrategyChoice } from '../runs/strategy-choice';
import { TargetBranchField } from '../runs/target-branch-field';
import { useCommitRunChanges } from '../runs/use-landing';
import { isComparedRunActive } from './compare-labels';
import { useCompareLandingPlan, useLandRun } from './use-compare';

export type LandResult = ChannelOutput<'landRun'>;

/**
 * Why Land cannot go ahead with this dry run's answer, in words; null when it can. Uncommitted files
 * are something to land: Land commits them first.
 */
function landingBlocker(plan: LandingPlan): string | null {
  if (!plan.available) return plan.blockedBy ?? 'This run cannot be landed.';
  if (plan.holdings.unlandedCommits.length === 0 && plan.holdings.uncommittedFiles.length === 0) {
    return 'Nothing to land: the run has no changes the project does not have yet.';
  }
  if (!plan.clean) return `The run conflicts with ${plan.target}.`;
  if (plan.checkout && plan.checkout.blockingFiles.length > 0) return `${plan.target} has uncommitted changes in the files landing would touch.`;
  return null;
}

/**
 * The dry run's answer: clean or conflicting, what is in the way, and what happens to the checkout.
 * It answers for the run's commits only: files still uncommitted are tried once Land committed them.
 */
function DryRun({ plan, runId }: { plan: LandingPlan; runId: string }) {
  const changesRoute = actionPath({ kind: 'run-changes', runId });
  const commits = plan.holdings.unlandedCommits.length;
  return (
    <div className="dialog-form" aria-live="polite">
      {plan.clean ? (
        commits > 0 ? (
          <p className="callout callout--success">
            {pluralize(commits, 'commit')} land cleanly in <code>{plan.target}</code>
            {plan.touchedFiles.length > 0 ? `, changing ${pluralize(plan.touchedFiles.length, 'file')}` : ''}.
          </p>
        ) : null
      ) : (
        <div className="callout callout--danger">
          <p>
            Conflicts with <code>{plan.target}</code> in:
          </p>
          <ul aria-label="Conflicting files">
            {plan.conflicts.map((file) => (
              <li key={file}>
                <code>{file}</code>
              </li>
            ))}
          </ul>
          <p>
            Nothing was changed. <Link href={changesRoute}>Ask the agent to resolve them on the run’s Changes</Link>, or land another run.
          </p>
        </div>
      )}
      {plan.checkout ? (
        plan.checkout.blockingFiles.length > 0 ? (
          <div className="callout callout--danger">
            <p>
              <code>{plan.target}</code> is checked out in <code>{plan.checkout.path}</code> with uncommitted changes in files landing would touch:
            </p>
            <ul aria-label="Uncommitted files in the way">
              {plan.checkout.blockingFiles.map((file) => (
                <li key={file}>
                  <code>{file}</code>
                </li>
              ))}
            </ul>
            <p>Commit or stash them there first: the console never overwrites your own work.</p>
          </div>
        ) : (
          <p className="muted">
            <code>{plan.target}</code> is checked out in <code>{plan.checkout.path}</code>: its working copy is updated too.
          </p>
        )
      ) : null}
    </div>
  );
}

/**
 * Land this one, from Compare: lands one run of the task (target branch, strategy and message from
 * its dry run) and discards the others ticked, in the same step. The run's own Changes has the full
 * Land dialog; this one adds the choice of which other runs go.
 */
export function CompareLandDialog({
  run,
  name,
  taskTitle,
  others,
  names,
  onLanded,
  onClose,
}: {
  run: RunComparison;
  /** How Compare names the run (its agent, numbered when the agent ran the task more than once). */
  name: string;
  taskTitle: string;
  /** The task's other runs. */
  others: RunComparison[];
  names: Map<string, string>;
  onLanded: (result: LandResult) => void;
  onClose: () => void;
}) {
  const [target, setTarget] = useState<string | null>(null);
  const plan = useCompareLandingPlan(run.runId, target);
  const landRun = useLandRun();
  const commit = useCommitRunChanges();
  // Commit, dry run again and land are one submission: a second click meanwhile does nothing.
  const submission = useSingleSubmit();
  const [commitMessage, setCommitMessage] = useState<string | null>(null);
  const [commitProblem, setCommitProblem] = useState<string | null>(null);
  /** The commit Land made of the uncommitted files, and why landing stopped after it (the new dry run's answer). */
  const [committed, setCommitted] = useState<{ commit: string; files: string[]; stoppedBy: string | null } | null>(null);
  const [strategy, setStrategy] = useState<LandingStrategy | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const discardable = others.filter((other) => other.landing.state !== 'discarded');
  const [discard, setDiscard] = useState<Set<string>>(
    () => new Set(discardable.filter((other) => other.landing.state === 'not_landed' && !isComparedRunActive(other)).map((other) => other.runId)),
  );
  const [problem, setProblem] = useState<string | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const formId = useId();
  const strategyName = useId();

  const data = plan.data;
  const blocker = data ? landingBlocker(data) : null;
  const landWith = effectiveStrategy(strategy, data?.fastForward ?? false);
  // A run with no commits yet may have no merge message to propose: its commit message stands in.
  const effectiveMessage = message ?? (data ? data.landMessage || data.commitMessage : '');
  const discardIds = discardable.filter((other) => discard.has(other.runId)).map((other) => other.runId);

  const uncommitted = data?.holdings.uncommittedFiles ?? [];
  const effectiveCommitMessage = commitMessage ?? data?.commitMessage ?? '';
  const busy = submission.pending;

  const land = (fresh: LandingPlan, strategyToUse: LandingStrategy, landMessage: string) =>
    landRun
      .mutateAsync({
        runId: run.runId,
        target: fresh.target,
        strategy: strategyToUse,
        ...(strategyToUse === 'fast-forward' ? {} : { message: landMessage }),
        ...(discardIds.length > 0 ? { discardRunIds: discardIds } : {}),
      })
      .then(onLanded);

  /**
   * Land with uncommitted files: they are committed on the run's branch first (the agent rarely
   * commits), then the dry run is asked again, since only now does it see those files. Landing goes
   * on only when the new answer still allows it with the strategy the operator saw; otherwise the
   * dialog shows the new answer and the operator decides (the commit stays on the run's branch).
   */
  const commitThenLand = async (landMessage: string) => {
    const made = await commit.mutateAsync({ runId: run.runId, message: effectiveCommitMessage }).catch(() => null);
    if (!made) return; // commit.error is shown in the dialog
    const again = await plan.refetch();
    const fresh = again.data;
    const stoppedBy = !fresh
      ? 'The dry run could not be asked again.'
      : (landingBlocker(fresh) ?? (landWith === 'fast-forward' && !fresh.fastForward ? `${fresh.target} can no longer simply move forward: choose another strategy.` : null));
    setCommitted({ commit: made.commit, files: made.files, stoppedBy });
    if (fresh && !stoppedBy) await land(fresh, landWith, landMessage);
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submission.submit(() => {
      if (!data || blocker || plan.isFetching) return;
      if (uncommitted.length > 0 && !effectiveCommitMessage.trim()) {
        setCommitProblem('A commit needs a message.');
        return;
      }
      if (landWith !== 'fast-forward' && !effectiveMessage.trim()) {
        setProblem('A merge or squash commit needs a message.');
        return;
      }
      return uncommitted.length > 0 ? commitThenLand(effectiveMessage) : land(data, landWith, effectiveMessage);
    });
  };

  let body;
  if (plan.isPending) body = <Loading what="the dry run" />;
  else if (plan.isError && !data) body = <QueryError what="the dry run" error={plan.error} onRetry={() => void plan.refetch()} />;
  else if (data && !data.available) {
    body = <p className="callout callout--warning">{data.blockedBy ?? 'This run cannot be landed.'}</p>;
  } else if (data) {
    body = (
      <form id={formId} className="dialog-form" onSubmit={submit} noValidate>
        <TargetBranchField branches={data.branches} value={data.target} baseBranch={data.baseBranch} onChange={setTarget} />
        {committed ? (
          <p className={committed.stoppedBy ? 'callout callout--warning' : 'callout callout--success'}>
            Committed {pluralize(committed.files.length, 'file')} on the run’s branch as <code>{shortSha(committed.commit)}</code>.
            {committed.stoppedBy ? ` Landing stopped: ${committed.stoppedBy}` : ''}
          </p>
        ) : null}
        {uncommitted.length > 0 ? (
          <>
            <p className="callout callout--warning">
              {pluralize(uncommitted.length, 'uncommitted file')} will be committed first on the run’s branch <code>{data.pushBranch}</code> ({listFew(uncommitted)}),
              with your git identity as the author.
            </p>
            <FormField label="Commit message" problem={commitProblem ?? undefined} hint="The first line is the subject.">
              {(control) => (
                <textarea
                  {...control}
                  className="textarea"
                  rows={4}
                  value={effectiveCommitMessage}
                  onChange={(event) => {
                    setCommitProblem(null);
                    setCommitMessage(event.target.value);
                  }}
                />
              )}
            </FormField>
          </>
        ) : null}
        {plan.isFetching ? <p className="muted">Trying {target ?? data.target}…</p> : <DryRun plan={data} runId={run.runId} />}
        <StrategyChoice name={strategyName} strategy={landWith} fastForward={data.fastForward} target={data.target} onChoose={setStrategy} />
        {landWith === 'fast-forward' ? null : (
          <FormField label={landWith === 'squash' ? 'Squash commit message' : 'Merge commit message'} problem={problem ?? undefined}>
            {(control) => (
              <textarea
                {...control}
                className="textarea"
                rows={4}
                value={effectiveMessage}
                onChange={(event) => {
                  setProblem(null);
                  setMessage(event.target.value);
                }}
              />
            )}
          </FormField>
        )}
        {discardable.length > 0 ? (
          <fieldset className="form-section">
            <legend className="form-section__legend">Discard the others</legend>
            <p className="field__hint">Once this one has landed, the ticked runs’ stores, branches and files are removed. Their history stays.</p>
            <ul className="choice-list" aria-label="Other runs to discard">
              {discardable.map((other) => {
                const active = isComparedRunActive(other);
                const otherName = names.get(other.runId) ?? other.agentName;
                return (
                  <li key={other.runId}>
                    <Choice
                      type="checkbox"
                      value={other.runId}
                      checked={discard.has(other.runId)}
                      disabled={active}
                      onChange={(on) =>
                        setDiscard((current) => {
                          const next = new Set(current);
                          if (on) next.add(other.runId);
                          else next.delete(other.runId);
                          return next;
                        })
                      }
                      label={`Discard ${otherName}`}
                      hint={active ? 'Still on its way: stop it first to discard it.' : landingSummary(other.landing)}
                    />
                  </li>
                );
              })}
            </ul>
          </fieldset>
        ) : null}
        {plan.isRefetchError ? <ErrorAlert error={plan.error} prefix="Could not run the dry run again." /> : null}
        {commit.isError ? <ErrorAlert error={commit.error} prefix="Could not commit the changes." /> : null}
        {landRun.isError ? <ErrorAlert error={landRun.error} prefix="Could not land the run." /> : null}
      </form>
    );
  }

  const offerLand = Boolean(data?.available);
  const blocked = Boolean(blocker) || plan.isFetching || busy;
  return (
    <ModalDialog
      title={`Land ${name}’s run`}
      description={<p>{taskTitle}</p>}
      onClose={onClose}
      initialFocusRef={cancelRef}
      footer={
        <>
          {commit.isPending ? <span className="form-card__progress">Committing…</span> : null}
          {landRun.isPending ? <span className="form-card__progress">Landing…</span> : null}
          {blocker && offerLand ? <span className="muted">{blocker}</span> : null}
          <button ref={cancelRef} type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          {offerLand ? (
            <button type="submit" form={formId} className="button button--primary" aria-disabled={blocked || undefined}>
              {discardIds.length > 0 ? `Land and discard ${pluralize(discardIds.length, 'other')}` : 'Land'}
            </button>
          ) : null}
        </>
      }
    >
      {body}
    </ModalDialog>
  );
}
